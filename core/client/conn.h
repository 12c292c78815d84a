/* conn.h - one connection to a server: transport, encoder, and the answers to queries.
 *
 * The same code serves a TCP server and the in-process capture; only the transport
 * differs. A connection remembers every identifier it sent (source locations, strings),
 * so a query is answered only from data the client itself put on this connection; an
 * unknown identifier gets a placeholder, never a read of arbitrary memory.
 */
#ifndef TRACYC_CLIENT_CONN_H
#define TRACYC_CLIENT_CONN_H

#include "util/map.h"
#include "wire/encode.h"

#include <stddef.h>
#include <stdint.h>

struct tc_thread;
union tc_rec;

/* Kinds of event that some protocol versions lack (docs/protocol.md §24.4). */
enum { TC_ABSENT_SECTION, TC_ABSENT_MEM_DISCARD, TC_ABSENT_GPU_TIME_SYNC, TC_CONN_ABSENT_KINDS };
struct tc_rec_context_switch;
struct ___tracy_source_location_data;
struct tracyc_frame;

struct tc_transport {
    /* 0 when all bytes were sent, -1 when the peer is gone. */
    int (*send)(struct tc_transport *t, const void *data, size_t len);
    /* Bytes read (> 0), 0 when nothing arrived within timeout_ms, -1 when gone. */
    long (*recv)(struct tc_transport *t, void *buf, size_t cap, int timeout_ms);
    void (*close)(struct tc_transport *t);
    /* Optional, for a peer in the same process: takes a frame's items uncompressed (LZ4
     * costs both ends for nothing there). 0 when taken, -1 when the peer is gone. */
    int (*send_items)(struct tc_transport *t, const void *items, size_t len);
    /* Optional, with send_items: a zone's begin (static source location id srcloc) or end
     * on the thread of the items sent last, at its raw time, handed over without an item
     * (tcd_decoder_zone_begin). 0 when taken, -1 when the peer is gone. */
    int (*zone_begin)(struct tc_transport *t, int64_t time, uint64_t srcloc);
    int (*zone_end)(struct tc_transport *t, int64_t time);
    int fd; /* readable when the peer has sent something (the worker waits on it); -1: none */
};

struct tc_conn {
    struct tc_transport *transport;
    int slot;        /* index of this connection in the per-thread connection state */
    uint64_t serial; /* unique over the process's life: names it to the resolver */
    struct tcw_encoder enc;
    struct tcu_map ids;       /* id -> its kind << 56 | its address */
    uint64_t recent_ids[256]; /* direct-mapped cache of ids already in `ids` */
    struct tcu_map pools;     /* memory pools announced */
    struct tcu_map locks;     /* lock << 32 | thread -> what was sent of its use (conn_records.c) */
    struct tcu_map gpu;       /* GPU zone depths and reserved queries sent (conn_records.c) */
    struct tcu_map frames;    /* discontinuous frame sets started on this connection */
    int64_t frame_base;       /* main frame marks made before this connection's first, -1: none yet */
    uint8_t query[13];
    size_t query_len;
    int resolving; /* CallstackFrame/Symbol queries handed to the resolver, not answered */
    int alive;
    int terminated; /* the server asked to stop */
    int bypass;     /* zone begins and ends go to the transport's zone_begin/zone_end, not as items */
    uint64_t dropped_reported;
    uint64_t plot_skipped_reported;
    uint64_t absent[TC_CONN_ABSENT_KINDS]; /* events this server's protocol lacks, not sent */
    uint64_t lost_reported;                /* samples the kernel lost, as last reported */
    int64_t lost_report_time;              /* when (tcu_monotonic_ns) */
    /* Thread renames (docs/protocol.md §27): the server takes them (it asked), the names it
     * was given (tid -> the name's version, tc_names_get), the latest version looked at. */
    int renames;
    struct tcu_map named;
    uint64_t names_seen;
    /* The clock extension (docs/protocol.md §28): the server took it, and when the last
     * reading went (CLOCK_MONOTONIC_RAW ns). */
    int clock;
    int64_t clock_sent;
    int sampling_reported; /* why sampling is off was said on this connection */
    int libdw_reported;    /* why symbols and sample stacks are limited, too */
    /* Context switches as this connection's server has them (conn_switches.c). */
    struct tcu_map running;   /* thread -> cpu + 1, while the server has it running */
    uint32_t cpu_thread[256]; /* the thread the server last saw start on each cpu */
    uint8_t cpu_open[256];    /* ...and has not seen stop */
    int64_t switch_time;      /* latest context-switch time sent */
};

/* Whether the first len (<= 12) bytes of a server's hello can begin Tracy's hello. */
int tc_conn_hello_valid(const uint8_t *hello, size_t len);
/* Answers a server's 12-byte hello (docs/protocol.md §3): the welcome in the server's
 * protocol version, "protocol mismatch" for a version tracyc does not speak, nothing for
 * a hello that is not Tracy's. 0 when the server was welcomed; otherwise the transport
 * is closed. */
int tc_conn_open(struct tc_conn *c, struct tc_transport *t, int slot, const uint8_t hello[12]);
void tc_conn_close(struct tc_conn *c);

/* Encodes one record. `t` is the thread that wrote it, NULL for serial records. */
void tc_conn_record(struct tc_conn *c, struct tc_thread *t, const union tc_rec *r);
/* Encodes the records in [begin, end), all written by t (NULL: the serial stream). */
void tc_conn_records(struct tc_conn *c, struct tc_thread *t, const uint8_t *begin, const uint8_t *end);

/* The identifier of a string or a static source location on this connection, remembered
 * so that a query for it can be answered (0 for a NULL string). */
uint64_t tc_conn_string_id(struct tc_conn *c, const char *s);
uint64_t tc_conn_srcloc_id_slow(struct tc_conn *c, uint64_t srcloc);
/* Inline for a hit of the cache of recent ids (slot as remember_id in conn.c picks it), once per zone. */
static inline uint64_t tc_conn_srcloc_id(struct tc_conn *c, uint64_t srcloc)
{
    return c->recent_ids[(srcloc >> 3) & 255] == srcloc ? srcloc : tc_conn_srcloc_id_slow(c, srcloc);
}
/* What an identifier sent on this connection stands for; NULL when it was not sent as
 * that kind. */
const char *tc_conn_sent_string(const struct tc_conn *c, uint64_t id);
const struct ___tracy_source_location_data *tc_conn_sent_srcloc(const struct tc_conn *c, uint64_t id);

/* Reads and answers every query that has arrived (waiting up to timeout_ms for the
 * first byte), sends the symbol answers the resolver has ready, then flushes. Returns the
 * number of replies sent, -1 when gone. */
int tc_conn_serve_queries(struct tc_conn *c, int timeout_ms);
/* Queries of this connection the resolver is still working on. */
int tc_conn_resolving(const struct tc_conn *c);
/* To a server that takes them (docs/protocol.md §27): a ThreadName item for each thread it
 * was given the name of and that was renamed since. */
void tc_conn_send_renames(struct tc_conn *c);

/* To a server that took the clock extension (docs/protocol.md §28): a TracycClock item,
 * the client's clocks read now, answering probe `probe` (0: unasked). */
void tc_conn_send_clock(struct tc_conn *c, uint32_t probe);
/* The same, unasked, when a second has passed since the last one (`final`: now). */
void tc_conn_report_clock(struct tc_conn *c, int final);

/* Says, once, why sampling is unavailable (unavailable: the reason, or NULL), and how many
 * records were lost when that grew, by the kernel's full rings and at the buffer limit (at
 * most once a second; `final`: now). */
void tc_conn_report_sampling(struct tc_conn *c, const char *unavailable, uint64_t lost_in_rings,
                             uint64_t dropped_at_limit, int final);
/* Once per connection, a warning that libdw could not be loaded (`unavailable`:
 * tcn_libdw_unavailable's reason; NULL: nothing to say). */
void tc_conn_report_libdw(struct tc_conn *c, const char *unavailable);

/* Sends a context switch record as ContextSwitch items the server can take whatever was
 * lost before it (a record the kernel dropped, a connection that began in the middle). */
void tc_conn_context_switch(struct tc_conn *c, const struct tc_rec_context_switch *r);

/* Frame addresses a program may register (tracyc_frames_register): no machine code has them
 * on x86-64 (even with 5-level paging) or AArch64, and the server's packing of frame
 * addresses keeps them as they are (top four bits zero). */
#define TC_FRAMES_LOWEST 0x0200000000000000ull
#define TC_FRAMES_HIGHEST 0x0FFFFFFFFFFFFFFFull
/* Registers a range of program-named frames (conn_samples.c). -1 with *error set. */
int tc_frames_add(uint64_t first, uint64_t last, const char *image, size_t image_len,
                  int (*resolve)(void *, uint64_t, struct tracyc_frame *), void *user, const char **error);
/* After fork: the ranges stay (the child runs the same code), their lock starts anew. */
void tc_frames_forget_after_fork(void);
/* Answers a CallstackFrame or Symbol query about an address of a registered range; 0
 * (nothing sent) when the address is in none. */
int tc_conn_answer_frame(struct tc_conn *c, uint8_t query, uint64_t address);

/* Reports the events dropped so far, as a Tracy-sourced message, if the count grew. */
void tc_conn_report_drops(struct tc_conn *c, uint64_t dropped);
/* Tells the server, in one message, which events were not sent because its protocol
 * version lacks them (none: no message). */
void tc_conn_report_absent(struct tc_conn *c);

#endif
