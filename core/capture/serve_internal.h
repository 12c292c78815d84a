/* serve_internal.h - the proxy's state, shared by the files that implement serve.h:
 *
 *   serve.c          the public face: listening, accepting, the server's hello, polling,
 *                    the end
 *   serve_queries.c  the server's queries answered, in order, once the answer is known
 *   serve_records.c  the sink: the trace's records re-encoded as items
 *   serve_ids.c      the proxy's ids: (kind, process, the process's id) packed in 64 bits,
 *                    threads, locks, GPU contexts and symbols numbered, processes' labels
 *   serve_wire.c     bytes both ways: sending (reading queries meanwhile), queries parsed,
 *                    the welcome
 *
 * Each calls only the files below it.
 */
#ifndef TRACYC_CAPTURE_SERVE_INTERNAL_H
#define TRACYC_CAPTURE_SERVE_INTERNAL_H

#include <stdint.h>

#include "capture/collector.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "util/map.h"
#include "wire/encode.h"

/* An id given to the server: kind << 56 | process << 32 | the process's id. Kinds start at
 * 1, so no id is 0 ("none") and every id stays below 2^62 (a callstack address the server
 * takes for one of user space). */
enum serve_kind {
    SK_SRCLOC = 1,  /* a source location index */
    SK_SRCLOC_NAME, /* its strings, by the same index */
    SK_SRCLOC_FUNCTION,
    SK_SRCLOC_FILE,
    SK_STRING,    /* a string handle (literal messages) */
    SK_PLOT,      /* a plot */
    SK_FRAME_SET, /* a frame set, 0 the main one */
    SK_POOL,      /* a memory pool, 0 the default one */
    SK_FRAME,     /* a callstack frame index: the address the server is given */
    SK_SYMBOL,    /* a symbol: index into serve.symbols (no process part) */
};

#define SERVE_ID(kind, source, local) ((uint64_t)(kind) << 56 | (uint64_t)(source) << 32 | (uint32_t)(local))
#define SERVE_KIND(id) ((unsigned)((id) >> 56))
#define SERVE_SOURCE(id) ((uint32_t)((id) >> 32) & 0xffffffu)
#define SERVE_LOCAL(id) ((uint32_t)(id))
#define SERVE_MAX_SOURCES 0xffffffu

/* A thread as the server sees it. */
struct serve_thread {
    uint32_t source, id; /* whose, and its id there */
    uint32_t tid;        /* the server's */
    int64_t last;        /* latest time given on it: times never go back on a thread */
    int64_t last_sample;
    uint32_t *sent_text; /* per open zone: bytes of its text sent */
    size_t depth, cap;
};

/* What the proxy keeps of one process. */
struct serve_source {
    char label[TCT_SOURCE_LABEL + 16]; /* "program[pid]" ("#n" added when two share it) */
    int labelled;
    struct tcu_map locks;   /* lock id -> the server's + 1 */
    struct tcu_map gpu;     /* context id -> the server's + 1 */
    struct tcu_map symbols; /* symbol address -> index + 1 in serve.symbols */
    struct tcu_map plots;   /* plots configured */
    struct tcu_map last;    /* key -> latest time given (frame sets, plots, pools, locks, GPU) */
    int clocked;            /* its clock as the server is given it, fixed at its first record: */
    int64_t offset;         /* the trace's offset and scale for it then */
    double scale;
};

struct serve_symbol {
    uint32_t source;
    uint64_t address;
};

/* A GPU zone whose parent has not ended yet (serve_records.c). */
struct serve_gpu_held {
    const struct tct_source *source;
    struct tct_gpu_record rec;
};

struct serve_query {
    uint8_t type; /* logical (wire/versions.h: tcw_query_from_wire) */
    uint64_t ptr;
    uint32_t extra;
};

enum serve_state {
    SERVE_IDLE,      /* not listening */
    SERVE_LISTENING, /* waiting for a server */
    SERVE_HELLO,     /* connected: reading its 12 bytes */
    SERVE_RUNNING,   /* handshake answered (the welcome goes out before the first item) */
    SERVE_FINISHING, /* Terminate sent: answering the last queries */
    SERVE_GONE,      /* the server is gone or has everything */
};

struct serve_sink;

struct tcs_serve {
    struct tct_trace *trace;
    const struct tcs_collector *collector;
    struct serve_sink *sink;
    enum serve_state state;
    int listen_fd, fd;
    double accept_paused_until; /* accepting failed for want of descriptors: not polled until then */
    uint8_t hello[12];
    size_t hello_len;
    int vi; /* the server's version index */
    int welcome_sent;
    struct tcw_encoder enc;
    int enc_ready;
    double quiet_since; /* finishing: when the server last said something */
    int terminated;     /* the server's Terminate query came: it has everything, reads no more */
    /* bytes from the server not yet made queries, and the queries not yet answered */
    uint8_t partial[13];
    size_t partial_len;
    struct serve_query *queries;
    size_t query_head, query_count, query_cap;
    /* ids */
    struct serve_source *sources;
    size_t source_count, source_cap;
    struct serve_thread *threads;
    size_t thread_count, thread_cap;
    struct tcu_map thread_ids; /* source << 32 | id -> index + 1 */
    struct tcu_map tids;       /* the server's tid -> index + 1 */
    uint32_t next_tid;         /* for threads whose own tid another process has */
    struct serve_symbol *symbols;
    size_t symbol_count, symbol_cap;
    uint32_t lock_count;
    uint32_t gpu_count;
    uint16_t gpu_queries[256]; /* the next query id of each GPU context */
    struct serve_gpu_held *gpu_held;
    size_t gpu_held_count, gpu_held_cap;
    char why[256];
};

/* serve_ids.c */
struct serve_source *serve_source(struct tcs_serve *s, uint32_t source);
const char *serve_label(struct tcs_serve *s, uint32_t source);
struct serve_thread *serve_thread_of(struct tcs_serve *s, uint32_t source, uint32_t id);
const struct serve_thread *serve_thread_by_tid(const struct tcs_serve *s, uint32_t tid);
/* The server's id of a process's lock, a new one when announce (-1: not announced); its
 * GPU context (-1: none left); its symbol's. */
int64_t serve_lock(struct tcs_serve *s, uint32_t source, uint32_t lock, int announce);
int serve_gpu_context(struct tcs_serve *s, uint32_t source, uint32_t ctx, int *is_new);
uint64_t serve_symbol(struct tcs_serve *s, uint32_t source, uint64_t address);
/* A time of the source's on the trace's clock now, on the clock the server is given. */
int64_t serve_time(struct tcs_serve *s, const struct tct_source *src, int64_t t);
/* t, or the latest time given under key if t is earlier (then t becomes the latest). */
int64_t serve_monotonic(struct tcs_serve *s, uint32_t source, uint64_t key, int64_t t);
void serve_ids_free(struct tcs_serve *s);

/* serve_records.c */
struct serve_sink *serve_sink_new(struct tcs_serve *s);
void serve_sink_detach(struct serve_sink *sink);
/* The capture has ended: GPU zones still waiting for a parent go out as they are. */
void serve_records_flush(struct tcs_serve *s);

/* serve_queries.c: answers what can be answered; 1 when the Terminate query came. */
int serve_answer(struct tcs_serve *s);

/* serve_wire.c */
/* Everything of data to the server, reading its queries while it cannot take more: 0, or
 * -1 when it is gone (state GONE, why set). */
int serve_send(struct tcs_serve *s, const void *data, size_t len);
/* Reads what the server sent without waiting: -1 when it is gone. */
int serve_receive(struct tcs_serve *s);
/* The encoder's transport. */
int serve_write(void *user, const void *data, size_t len);
/* The welcome, once, before the first item. */
void serve_welcome(struct tcs_serve *s);
void serve_gone(struct tcs_serve *s, const char *why);

#endif
