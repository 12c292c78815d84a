/* decode_internal.h - the decoder's state, shared by the files that implement decode.h.
 * Each file's functions are declared in its own header; the files form a tree, each
 * calling only those below it:
 *
 *   decoder.c        the public face: life, handshake, LZ4 framing, completion
 *   decode_items.c   one decompressed frame of items -> events: the dispatcher, with the
 *                    thread-bound items, strings and replies
 *   decode_global.c  memory, lock and GPU items
 *   decode_callstacks.c  callstack payloads and the items that consume them, samples,
 *                    frame and symbol answers, their tables
 *   decode_system.c  context switches, wakeups, TidToPid, external thread names
 *   decode_clock.c   tracyc's clock extension: TracycClock items, clock probes
 *   decode_item.c    the steps every item parser shares (decode_item.h: reading fields,
 *                    times, emitting events, taking the pending strings)
 *   decode_tables.c  memory budget, symbol tables, kept strings, the query queue
 *   decode_fail.c    failing: the first cause kept, with the item's name and position
 *   decode_names.c   item type names for error messages
 *   decode_settled.c whether an id's names are final (tcd_name_settled): reads the tables
 *                    of decode_tables.c and decode_callstacks.c; nothing calls it
 *
 * Nothing here is part of the public interface.
 */
#ifndef TRACYC_DECODE_DECODE_INTERNAL_H
#define TRACYC_DECODE_DECODE_INTERNAL_H

#include <lz4.h>
#include <stdbool.h>
#include <string.h>

#include "util/arena.h"
#include "util/array.h"
#include "util/budget.h"
#include "util/chunks.h"
#include "util/map.h"
#include "decode/decode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define TCD_RING_SIZE (3 * TCW_TARGET_FRAME_SIZE + 1) /* docs/protocol.md §5.3 */
#define TCD_FRAME_HEADER 4
#define TCD_DEFAULT_MAX_MEMORY ((size_t)1 << 30)
#define TCD_DEFAULT_MAX_QUERIES 8188u /* min(SO_SNDBUF / 13, 8192) - 4 in upstream */
#define TCD_FIBER_THREAD_BIT 0x80000000u
#define TCD_CHUNK_SHIFT 8    /* threads and source locations: 256 a chunk */
#define TCD_WELCOME_MAX 1178 /* the largest welcome of any version (64-74) */
#define TCD_UNKNOWN_TYPE 0xff

/* The clock extension on this connection (docs/protocol.md §28). */
enum tcd_clock_state {
    TCD_CLOCK_NONE,  /* not asked: TracycClock items are unsolicited */
    TCD_CLOCK_ASKED, /* asked; the client has not sent a reading yet */
    TCD_CLOCK_TAKEN, /* the client sent a reading: it answers probes */
};

struct tcd_string_entry {
    const char *text; /* TCD_UNKNOWN_NAME while the client has not answered */
    uint8_t pending;
};

struct tcd_thread {
    uint32_t id;
    uint32_t next_zone_id; /* ZoneValidation register, docs/protocol.md §11.5 */
    uint32_t depth;        /* zone stack: only the validation ids are needed */
    uint8_t name_pending;
    uint8_t is_fiber;
    uint32_t *zone_ids;
    size_t cap;
    struct tcd_thread *fiber; /* fiber this OS thread runs, or NULL */
    const char *name;         /* decimal id until named */
};

struct tcd_srcloc_rec {
    struct tcd_srcloc pub;
    uint32_t name_str, function_str, file_str; /* string handles of a static srcloc */
    uint32_t same_hash; /* payload srclocs: index + 1 of the older one with the same content hash, 0 = none */
    uint8_t is_static;
    uint8_t answered; /* a static one: its SourceLocation reply came */
};

/* Static source locations seen lately, by id: zones of a few functions alternate (a caller
 * and its callees), which a cache of the last one alone misses every time. */
#define TCD_RECENT_SRCLOCS 64
struct tcd_recent_srcloc {
    uint64_t id;
    uint32_t index_plus1; /* 0: empty */
};
static inline size_t tcd_recent_srcloc_slot(uint64_t id)
{
    _Static_assert(TCD_RECENT_SRCLOCS == 1 << 6, "the slot is the hash's top 6 bits");
    return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 58);
}

struct tcd_named { /* a plot or a frame set */
    const char *name;
    uint8_t pending;
    uint8_t started; /* frame sets: a discontinuous frame was started */
};

struct tcd_lock {
    uint32_t last_obtainer;
    uint8_t shared;
};

struct tcd_frame_rec {
    struct tcd_frame pub;
    uint32_t same_hash; /* custom frames: index + 1 of the older one with the same content hash, 0 = none */
    uint8_t queried;    /* a CallstackFrame query for it is unanswered */
};

struct tcd_callstack_rec {
    uint32_t first; /* of its frame indices in callstack_frames */
    uint32_t depth;
    uint32_t same_hash; /* id of the older callstack with the same content hash, 0 = none */
};

struct tcd_symbol_rec {
    const char *file;
    uint32_t line;
    uint8_t pending;
};

struct tcd_external {
    const char *thread_name, *process_name;
    uint8_t pending; /* bit 0: thread name, bit 1: process name */
};

/* A string kept once however often the client sends it (frame functions, files, images). */
struct tcd_interned {
    const char *text;
    uint32_t len;
    uint32_t next; /* index + 1 of an older string with the same hash, 0 = none */
};

struct tcd_gpu_ctx {
    uint8_t created;
    uint8_t has_period, has_calibration;
    float period;
    int64_t time_diff;
    int64_t calibrated_gpu, calibrated_cpu;
    double calibration_mod;
};

/* A string or blob waiting for the item that consumes it. It points into the
 * decompression ring while its frame is processed and is copied out at the frame's end. */
struct tcd_pending_bytes {
    const uint8_t *data;
    size_t len;
    uint8_t set;
    uint8_t *own;
    size_t own_cap;
};

struct tcd_decoder {
    struct tcd_callbacks cb;
    void *user;
    void *query_user;         /* argument of cb.on_query */
    struct tcu_budget budget; /* every table allocates through it */
    uint32_t max_queries;
    uint64_t hash_seed; /* of every map: crafted ids cannot aim at one probe run */

    enum tcd_state state;
    char error[320];

    /* protocol version (docs/protocol.md §24): items are read through these tables */
    int vi;                                 /* index into tcw_versions */
    uint8_t logical[256];                   /* wire opcode -> logical type, TCD_UNKNOWN_TYPE if none */
    uint8_t wire_size[256];                 /* wire opcode -> fixed size in this version */
    uint8_t normalized[TCW_NORMALIZED_MAX]; /* an older item in protocol 82's layout */
    uint8_t refused;                        /* the client answered "protocol mismatch" */
    uint8_t renames;                        /* the client may send renames (docs/protocol.md §27) */
    uint8_t clock;                          /* enum tcd_clock_state (docs/protocol.md §28) */
    uint32_t probe_pending;                 /* the clock probe whose reading has not come (0: none): the capture
                             * is not done without it (§28) */

    /* handshake */
    uint8_t hs_buf[1 + TCD_WELCOME_MAX + TCW_ONDEMAND_SIZE];
    size_t hs_len;
    struct tcd_welcome welcome;

    /* framing */
    LZ4_streamDecode_t lz4;
    uint8_t *ring;
    size_t ring_off;
    uint8_t *inbuf; /* a frame that arrived in pieces */
    size_t inbuf_len;
    uint32_t frame_csize; /* of the frame in inbuf, once its header is complete */
    uint64_t frame_index;
    const uint8_t *frame_items; /* the frame being parsed and its current item, */
    const uint8_t *item;        /* for error messages */
    uint8_t item_type;          /* the current item's logical type */

    /* time chains, docs/protocol.md §8 (unsigned: hostile deltas must wrap, not overflow) */
    uint64_t ref_thread, ref_serial, ref_gpu, ref_ctx;

    /* current thread context */
    uint32_t ctx_tid;
    struct tcd_thread *ctx;           /* NULL until the server noticed ctx_tid */
    struct tcd_thread scratch_thread; /* stands in after an allocation failure */

    /* registers of items that belong to the next item */
    struct tcd_pending_bytes single, second, frame_image;
    uint32_t pending_payload; /* srcloc index + 1 */
    uint64_t pending_mem_name;
    uint8_t mem_name_set;
    uint32_t pending_callstack;     /* id of the callstack the last payload gave, 0 = none */
    uint32_t serial_callstack;      /* for the next serial item (CallstackSerial) */
    struct tcu_map next_callstacks; /* thread id -> callstack id for its next item (Callstack) */

    /* the frame whose CallstackFrame items are arriving (CallstackFrameSize), docs/protocol.md §25.3 */
    struct tcd_frame_rec *open_frame;
    uint32_t open_frame_index, open_frame_size, open_frame_left;

    /* Zone begin/end events are built here: only their own fields ever change, which
     * spares clearing a whole event per zone on the hot path. */
    struct tcd_event zone_event;

    uint8_t terminated, crashed, crash_reported;
    uint64_t open_zones;

    /* tables: each map gives an index into the array or chunks below it */
    struct tcu_arena arena;         /* every string kept */
    struct tcu_map string_ids;      /* string id -> handle - 1 */
    struct tcu_array strings;       /* struct tcd_string_entry */
    struct tcu_map thread_ids;      /* thread id -> index */
    struct tcu_chunks threads;      /* struct tcd_thread */
    struct tcu_map srcloc_ids;      /* static srcloc id -> index */
    struct tcu_map srcloc_payloads; /* content hash -> index of the newest payload srcloc with it */
    struct tcu_chunks srclocs;      /* struct tcd_srcloc_rec */
    struct tcd_recent_srcloc recent_srclocs[TCD_RECENT_SRCLOCS]; /* by tcd_recent_srcloc_slot */
    struct tcu_map plot_ids;
    struct tcu_array plots; /* struct tcd_named */
    struct tcu_map frame_ids;
    struct tcu_array frame_sets; /* struct tcd_named, 0 = "Frame" */
    struct tcu_map pool_ids;     /* name string id -> index */
    struct tcu_array pools;      /* uint32_t string handle, 0 = default pool */
    struct tcu_map fiber_ids;    /* fiber id -> thread index */
    uint32_t fiber_count;
    struct tcu_map lock_ids;
    struct tcu_array locks; /* struct tcd_lock */
    struct tcd_gpu_ctx gpu[256];

    /* callstacks, frames and symbols (decode_callstacks.c) */
    struct tcu_map address_frames;     /* return address -> frame index */
    struct tcu_map custom_frames;      /* content hash -> index of the newest custom frame with it */
    struct tcu_chunks frames;          /* struct tcd_frame_rec */
    struct tcu_map callstack_ids;      /* content hash -> id of the newest callstack with it */
    struct tcu_array callstacks;       /* struct tcd_callstack_rec, id - 1 */
    struct tcu_array callstack_frames; /* uint32_t frame indices of every callstack */
    struct tcu_map symbol_ids;         /* symbol address -> index */
    struct tcu_array symbols;          /* struct tcd_symbol_rec */
    struct tcu_map interned_ids;       /* content hash -> index + 1 of the newest string with it */
    struct tcu_array interned;         /* struct tcd_interned */
    /* system tracing (decode_system.c) */
    struct tcu_map external_ids; /* thread id -> index */
    struct tcu_array externals;  /* struct tcd_external */
    struct tcu_map thread_pids;  /* thread id -> pid (TidToPid) */

    /* queries: names first, then frames and symbols, as the server sends them */
    struct tcu_array query_queue; /* uint8_t[13] packets of queries for names */
    uint32_t query_head;
    struct tcu_array query_queue_low; /* CallstackFrame and Symbol queries */
    uint32_t query_low_head;
    uint32_t outstanding;
    struct tcu_array srcloc_fifo; /* uint32_t srcloc index of SourceLocation queries */
    uint32_t srcloc_fifo_head;
    uint32_t pending_strings, pending_threads, pending_plots, pending_frames, pending_fibers;
    uint32_t pending_callstack_frames, pending_symbols, pending_externals;

    struct tcd_stats stats;
};

#endif
