/* decode.h - the server side of Tracy protocol 82: a client's byte stream in, events out.
 *
 * The decoder is transport-agnostic. Whoever owns the connection (tracyc-capture over
 * TCP, the in-process capture over memory, the tests) does this:
 *
 *   1. sends the 12 bytes of tcd_handshake_request() to the client;
 *   2. passes every byte received from the client to tcd_decoder_feed(), in order and in
 *      chunks of any size (status byte, welcome, then LZ4 frames);
 *   3. sends to the client every 13-byte query packet the decoder hands to on_query;
 *   4. stops when tcd_decoder_state() says TCD_STATE_DONE (send a Terminate query) or
 *      TCD_STATE_FAILED (tcd_decoder_error() says why), or when the client goes away.
 *
 * Like the real server, the decoder asks the client for every string, source location,
 * thread/plot/frame/fiber name it does not know, and keeps them in tables that outlive
 * the connection, so exporters can resolve names after the capture has ended.
 *
 * Bad input never crashes it and never makes it allocate without bound: a malformed,
 * truncated or hostile stream moves it to TCD_STATE_FAILED with a message; everything
 * decoded before that point has already been delivered.
 */
#ifndef TRACYC_DECODE_DECODE_H
#define TRACYC_DECODE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tcd_event_kind {
    TCD_ZONE_BEGIN,       /* thread, time, srcloc */
    TCD_ZONE_END,         /* thread, time */
    TCD_ZONE_TEXT,        /* thread, text (appends to the innermost zone's text) */
    TCD_ZONE_NAME,        /* thread, text (replaces the innermost zone's name) */
    TCD_ZONE_COLOR,       /* thread, color */
    TCD_ZONE_VALUE,       /* thread, value */
    TCD_MESSAGE,          /* thread, time, text, color (0 = none), severity, format = source
                          * (0 user, 1 Tracy); literal messages: id = string handle, text is
                          * "" until the client answered, see tcd_string() */
    TCD_APP_INFO,         /* time, text */
    TCD_FRAME_MARK,       /* time, id = frame set (0 = main "Frame") */
    TCD_FRAME_START,      /* time, id = frame set */
    TCD_FRAME_END,        /* time, id = frame set */
    TCD_FRAME_IMAGE,      /* id = frame number, width/height in value (w << 16 | h), flags = flip,
                          * text/text_len = the DXT1 image bytes */
    TCD_PLOT,             /* time, id = plot, dvalue (int plots: is_int = 1, value holds the int64) */
    TCD_PLOT_CONFIG,      /* id = plot, format, flags (bit 0 step, bit 1 fill), color */
    TCD_MEM_ALLOC,        /* thread, time, address, value = size, id = pool (0 = default) */
    TCD_MEM_FREE,         /* thread, time, address, id = pool */
    TCD_MEM_DISCARD,      /* thread, time, id = pool */
    TCD_LOCK_ANNOUNCE,    /* id = lock, time, srcloc, format = 0 lockable / 1 shared */
    TCD_LOCK_TERMINATE,   /* id = lock, time */
    TCD_LOCK_WAIT,        /* id = lock, thread, time, format = 1 when shared */
    TCD_LOCK_OBTAIN,      /* id = lock, thread, time, format = 1 when shared */
    TCD_LOCK_RELEASE,     /* id = lock, thread (exclusive: the last obtainer), time, format */
    TCD_LOCK_MARK,        /* id = lock, thread, srcloc */
    TCD_LOCK_NAME,        /* id = lock, text */
    TCD_GPU_CONTEXT,      /* id = context, thread, time (cpu), format = type, flags, dvalue = period */
    TCD_GPU_CONTEXT_NAME, /* id = context, text */
    TCD_GPU_ZONE_BEGIN,   /* id = context, query, thread, time (cpu), srcloc */
    TCD_GPU_ZONE_END,     /* id = context, query, thread, time (cpu) */
    TCD_GPU_TIME,         /* id = context, query, time2 = gpu time in ns on the trace's time axis:
                          * ticks * period shifted so that the context's first gpu time falls
                          * on its cpu time (as the server does; GpuTimeSync re-aligns,
                          * GpuCalibration rescales; 32-bit gpu counter wrap is not undone) */
    TCD_FIBER_ENTER,      /* thread = os thread, id = fiber's virtual thread (0x80000000 | n), time;
                          * until TCD_FIBER_LEAVE, that os thread's events carry the fiber's id */
    TCD_FIBER_LEAVE,      /* thread = os thread, time */
    TCD_CRASH,            /* thread, time (0 when unknown), text ("" until the client answered), id = string
                          * handle of the text */
    TCD_DROPPED,        /* thread, time, value = the running total of events the client dropped: follows the TCD_MESSAGE
                          * "tracyc: dropped <count>..." (source Tracy) of a tracyc client */
    TCD_SECTION_ENTER,  /* thread, time, id = section, query = category, text */
    TCD_SECTION_LEAVE,  /* thread, time, id = section */
    TCD_SECTION_SETUP,  /* query = category, text = its description */
    TCD_SAMPLE,         /* thread, time (0 when the client sent none), callstack; flags & TCD_SAMPLE_SWITCH: the
                        * stack at which the thread was switched out (CallstackSampleContextSwitch), not a CPU sample */
    TCD_CONTEXT_SWITCH, /* time (0 when the client sent none), query = cpu, id = the thread switched out, thread = the thread switched in (either
                         * 0: the CPU's idle task), format = the old thread's state, flags = its wait reason (the
                         * client's codes, docs/protocol.md §25.5); any thread of the system, not only the client's */
    TCD_THREAD_WAKEUP,  /* time (0 when the client sent none), thread (any of the system), query = cpu */
    TCD_CALLSTACK_FRAME, /* id = frame index: the client answered the CallstackFrame query for it (tcd_frame()) */
    TCD_SAMPLES_LOST,    /* thread, time, value = the running total of samples the client lost: follows the
                         * TCD_MESSAGE "tracyc: lost <count> samples..." (source Tracy) of a tracyc client */
    TCD_PLOT_SKIPPED,    /* thread, time, value = the running total of plot values the client did not send
                          * (NaN, infinity): follows the TCD_MESSAGE "tracyc: skipped <count>..." */
    TCD_THREAD_NAME,     /* thread, text = its name: the client answered the ThreadString query, or renamed
                          * the thread later (a tracyc client, docs/protocol.md §27); tcd_thread_name() has it */
    TCD_CLOCK_SYNC,      /* a tracyc client's clocks read together (docs/protocol.md §28): time = its event
                          * clock (ns since its origin, like every event time), value = its CLOCK_MONOTONIC_RAW
                          * ns, time2 = its CLOCK_REALTIME ns, address = its host id (util/host_id.h: the same
                          * id, the same CLOCK_MONOTONIC_RAW), id = the probe it answers (0: unsolicited) */
    TCD_EVENT_KIND_COUNT
};

#define TCD_SAMPLE_SWITCH 1 /* TCD_SAMPLE flags */

/* One decoded event. Only the fields named for its kind are meaningful. text points into
 * the decoder and is valid only during the callback. Times are nanoseconds since the
 * trace origin (the welcome's initBegin), as the real server computes them. */
struct tcd_event {
    enum tcd_event_kind kind;
    uint32_t thread;
    int64_t time;
    int64_t time2;
    uint32_t srcloc; /* index for tcd_srcloc() */
    uint32_t id;
    uint32_t color; /* 0x00RRGGBB */
    uint16_t query;
    uint8_t severity; /* 0 trace .. 5 fatal */
    uint8_t format;
    uint8_t flags;
    uint8_t is_int;
    uint32_t callstack; /* for tcd_callstack(), 0 = none: on ZONE_BEGIN, MESSAGE, MEM_*, GPU_ZONE_BEGIN, CRASH,
                         * SAMPLE when the client sent one */
    uint64_t value;
    uint64_t address;
    double dvalue;
    const char *text;
    size_t text_len;
};

/* What a source location's function and file, and a string (a literal text, a memory pool's
 * name), read as while the client has not sent them (yet, or ever: a client killed, a capture
 * stopped before its answer): Tracy's server shows the same. Plots and frame sets keep "",
 * which the outputs number ("plot 3"); threads their decimal id. */
#define TCD_UNKNOWN_NAME "???"

/* A source location, static or allocated. Until the client answered, a static one has no
 * name ("") and TCD_UNKNOWN_NAME for function and file, so it is labelled by the latter.
 * Static source locations (u64 ids) and inline ones (SourceLocationPayload, deduplicated
 * by content) share one dense index space. */
struct tcd_srcloc {
    const char *name; /* "" when the zone has no name */
    const char *function;
    const char *file;
    uint32_t line;
    uint32_t color;
};

struct tcd_welcome {
    double timer_mul;
    int64_t init_begin;
    int64_t init_end;
    uint64_t resolution;
    uint64_t epoch;
    uint64_t pid;
    uint8_t flags;
    uint8_t cpu_arch;
    char program_name[64];
    char host_info[1024];
    uint64_t ondemand_frames; /* on-demand payload (flags bit 0), else 0 */
    int64_t ondemand_time;
};

enum tcd_state {
    TCD_STATE_HANDSHAKE, /* waiting for the status byte and the welcome */
    TCD_STATE_RUNNING,   /* receiving frames */
    TCD_STATE_DONE,      /* the client sent Terminate and nothing is pending: send Terminate */
    TCD_STATE_FAILED,    /* protocol error or refused handshake, see tcd_decoder_error() */
};

struct tcd_callbacks {
    void (*on_event)(void *user, const struct tcd_event *ev);
    /* A 13-byte query packet to send to the client. */
    void (*on_query)(void *user, const uint8_t packet[13]);
};

struct tcd_limits {
    size_t max_memory;    /* bound on the decoder's own memory (tables and its ~1 MiB of
                           * frame buffers), 0 = 1 GiB; past it: FAILED */
    uint32_t max_queries; /* unanswered queries at most, 0 = 8188 (as the server);
                           * more are queued and sent as replies come back */
};

struct tcd_decoder;

/* The 12 bytes a server of protocol 82 sends first: "TracyPrf" and the version. */
void tcd_handshake_request(uint8_t out[12]);

struct tcd_decoder *tcd_decoder_new(const struct tcd_callbacks *cb, void *user, const struct tcd_limits *limits);
void tcd_decoder_free(struct tcd_decoder *dec);

/* Protocol versions. A decoder speaks protocol 82 (Tracy 0.14.0) unless told otherwise;
 * it decodes every version of wire/versions.h (76, 74, 69, 66, 64) into the same events.
 * The server speaks first, so a capture picks a version, sends tcd_decoder_hello(), and
 * when the client answers "protocol mismatch" (FAILED with tcd_decoder_refused() true;
 * upstream's client then waits for the next connection) connects again with another.
 * tcd_decoder_set_version() is allowed before the first byte is fed and after a refusal,
 * which starts the handshake over; it returns -1 otherwise or for an unknown version. */
int tcd_decoder_set_version(struct tcd_decoder *dec, uint32_t protocol);
uint32_t tcd_decoder_version(const struct tcd_decoder *dec);
void tcd_decoder_hello(const struct tcd_decoder *dec, uint8_t out[12]);
bool tcd_decoder_refused(const struct tcd_decoder *dec);

/* Consume bytes received from the client. Returns the state afterwards. Bytes fed after
 * DONE or FAILED are ignored. Queries are handed to on_query after each complete frame,
 * in the order the real server issues them. */
enum tcd_state tcd_decoder_feed(struct tcd_decoder *dec, const void *data, size_t len);
/* True while the decoder waits for the client to answer a query it made (a name, a source
 * location, a callstack's frames, a clock reading) or to finish an item it began: the
 * names of what was received so far are not all known yet. */
bool tcd_decoder_awaiting(const struct tcd_decoder *dec);
/* One frame's items as they were before compression (1..TCW_TARGET_FRAME_SIZE bytes), from
 * a client in the same process (the in-process capture: no LZ4 either way), after the
 * handshake was fed. Otherwise as tcd_decoder_feed. */
enum tcd_state tcd_decoder_feed_items(struct tcd_decoder *dec, const void *items, size_t len);
/* A zone's begin (ZoneBegin, source location id srcloc) or end (ZoneEnd) on the client's
 * current thread at its raw time `time`, from a client in the same process, between its
 * frames: the same events and state as the item in a frame, without encoding and parsing
 * it (the in-process capture, for the most frequent events). Queries it makes are handed
 * to on_query at once. Otherwise as tcd_decoder_feed_items. */
enum tcd_state tcd_decoder_zone_begin(struct tcd_decoder *dec, int64_t time, uint64_t srcloc);
enum tcd_state tcd_decoder_zone_end(struct tcd_decoder *dec, int64_t time);

/* The client closed the connection (or the owner gives up waiting). Returns DONE when the
 * stream ended cleanly between frames after a Terminate, even if queries are still
 * unanswered (their names stay unresolved); FAILED otherwise, with an error saying what
 * was cut off. */
enum tcd_state tcd_decoder_close(struct tcd_decoder *dec);

/* Sends query packets to fn(user, packet) instead of the on_query callback, for a
 * transport that owns the connection (core/server/session.h does this). */
void tcd_decoder_set_query_handler(struct tcd_decoder *dec, void (*fn)(void *user, const uint8_t packet[13]),
                                   void *user);

enum tcd_state tcd_decoder_state(const struct tcd_decoder *dec);
const char *tcd_decoder_error(const struct tcd_decoder *dec); /* "" when none */

/* Valid once the state has left TCD_STATE_HANDSHAKE. */
const struct tcd_welcome *tcd_decoder_welcome(const struct tcd_decoder *dec);

/* Symbol tables. Unknown or unresolved entries give "" or TCD_UNKNOWN_NAME (never NULL).
 * Returned pointers stay valid until tcd_decoder_free(). tcd_srcloc() refreshes the
 * record's strings on each call, so call it again after names were answered.
 * tcd_thread_name() gives the decimal id while the name is unknown (for an id the
 * decoder never saw, from a small per-thread rotating buffer: copy it). */
const struct tcd_srcloc *tcd_srcloc(const struct tcd_decoder *dec, uint32_t index);
uint32_t tcd_srcloc_count(const struct tcd_decoder *dec);
const char *tcd_thread_name(const struct tcd_decoder *dec, uint32_t thread);
const char *tcd_plot_name(const struct tcd_decoder *dec, uint32_t plot);
const char *tcd_frame_name(const struct tcd_decoder *dec, uint32_t frame_set); /* 0: "Frame" */
const char *tcd_pool_name(const struct tcd_decoder *dec, uint32_t pool);       /* 0: "" */
/* The text of a string handle (the id of literal-message and crash events); "" for 0,
 * TCD_UNKNOWN_NAME while unanswered. */
const char *tcd_string(const struct tcd_decoder *dec, uint32_t handle);

/* Callstacks (docs/protocol.md §25). Each distinct callstack the client sent gets an id
 * 1..tcd_callstack_count(); events carry it in `callstack`. A callstack is a list of frame
 * indices, innermost (leaf) first. A frame is one return address (or one frame a client
 * described itself, CallstackAllocPayload); like the server, the decoder asks the client
 * to resolve every new address (CallstackFrame query), and the answer can expand it into
 * several source frames: the functions inlined at that address, innermost first, then the
 * function that contains it. */
struct tcd_subframe {
    const char *function; /* as the client named it ("" unknown) */
    const char *file;     /* "" unknown */
    uint32_t line;        /* 0 unknown */
    uint64_t symbol;      /* address of the function's symbol, 0 unknown: tcd_symbol() */
};

enum tcd_frame_state {
    TCD_FRAME_UNRESOLVED, /* queried, not answered (yet) */
    TCD_FRAME_RESOLVED,   /* answered: image and subframes */
    TCD_FRAME_CUSTOM,     /* described by the client itself (CallstackAllocPayload): one subframe, no address */
};

struct tcd_frame {
    uint64_t address;               /* the return address; 0 for a custom frame */
    const char *image;              /* the binary it is in, "" unknown */
    const struct tcd_subframe *sub; /* count of them, innermost first */
    uint32_t count;                 /* 0 while unresolved */
    uint8_t state;                  /* enum tcd_frame_state */
};

uint32_t tcd_callstack_count(const struct tcd_decoder *dec);
/* The frame indices of callstack id (leaf first) and their number in *depth; NULL (and
 * 0) for an unknown id. The array is valid until the next tcd_decoder_feed(). */
const uint32_t *tcd_callstack(const struct tcd_decoder *dec, uint32_t id, uint32_t *depth);
uint32_t tcd_frame_count(const struct tcd_decoder *dec);
/* Frame `index`, NULL past the end; valid until tcd_decoder_free(), updated in place when
 * its answer arrives. */
const struct tcd_frame *tcd_frame(const struct tcd_decoder *dec, uint32_t index);
/* Where the symbol at `symbol` (a tcd_subframe's) is defined, as the client answered the
 * Symbol query: 1 with *file and *line set, 0 when unknown or unanswered. */
int tcd_symbol(const struct tcd_decoder *dec, uint64_t symbol, const char **file, uint32_t *line);

/* Whether the names of an id are final: the client has answered every query the decoder
 * asked about it (a static source location's, and its strings; a thread's or fiber's name;
 * a plot's, a frame set's, a pool's; a string handle's text; a callstack frame's; a
 * symbol's), so that the tables above give what the client said, not a placeholder. An id
 * the decoder never saw has nothing to wait for: true. The server-side proxy
 * (capture/serve.h) answers its own server's queries only once this holds, or once the
 * client has gone. */
enum tcd_name_kind {
    TCD_NAME_SRCLOC,    /* a tcd_srcloc index */
    TCD_NAME_THREAD,    /* a thread id (a fiber's virtual id too) */
    TCD_NAME_PLOT,      /* a plot */
    TCD_NAME_FRAME_SET, /* a frame set (0: "Frame") */
    TCD_NAME_POOL,      /* a memory pool (0: the default) */
    TCD_NAME_STRING,    /* a string handle */
    TCD_NAME_FRAME,     /* a callstack frame index */
    TCD_NAME_SYMBOL,    /* a symbol address */
};
bool tcd_name_settled(const struct tcd_decoder *dec, enum tcd_name_kind kind, uint64_t id);

/* Threads of the whole system, as context switches name them: the names the client gave
 * for an ExternalName query ("" unknown), and the process a thread belongs to (TidToPid;
 * 0 unknown). */
const char *tcd_external_thread_name(const struct tcd_decoder *dec, uint32_t thread);
const char *tcd_external_process_name(const struct tcd_decoder *dec, uint32_t thread);
uint64_t tcd_thread_pid(const struct tcd_decoder *dec, uint32_t thread);

/* tracyc's clock extension (docs/protocol.md §28): asks the client to read its clocks now.
 * The probe goes out at once (not queued behind name queries, nor held by max_queries),
 * and the client answers with a TCD_CLOCK_SYNC event whose id is `id` (give it a non-zero
 * id: 0 marks the readings the client sends unasked). 0 when sent; -1 when the client did
 * not take the clock extension (upstream's clients, older tracyc clients, and every
 * client until its first TCD_CLOCK_SYNC event) or the decoder is not running. */
int tcd_decoder_probe_clock(struct tcd_decoder *dec, uint32_t id);
/* Probe `id`'s reading is not waited for any more (the capture gave up on it, clock.h): a
 * client that cannot answer it (a recording replayed) may end. The decoder's state: DONE
 * when it awaited nothing else after the client's Terminate. */
enum tcd_state tcd_decoder_probe_lost(struct tcd_decoder *dec, uint32_t id);

/* Counters for status lines and benchmarks. */
struct tcd_stats {
    uint64_t bytes_in;      /* compressed bytes fed */
    uint64_t bytes_decoded; /* decompressed item bytes */
    uint64_t events;        /* events delivered */
    uint64_t zones;
    uint64_t samples; /* CPU samples (TCD_SAMPLE without TCD_SAMPLE_SWITCH) */
    uint64_t queries_sent;
    uint64_t dropped; /* events the client reported as dropped */
    size_t memory;    /* bytes held by the decoder's tables */
};
void tcd_decoder_stats(const struct tcd_decoder *dec, struct tcd_stats *out);

#endif
