/* decode_internal.h - the decoder's state, shared by the files that implement decode.h.
 *
 *   decode.c         public API: handshake, LZ4 framing, completion
 *   decode_items.c   one decompressed frame of items -> events (thread-bound items,
 *                    strings, replies); decode_item.h holds the helpers it shares with
 *   decode_global.c  memory, lock and GPU items
 *   decode_tables.c  memory accounting, hash maps, symbol tables, the query queue
 *   decode_names.c   item type names for error messages
 *
 * Nothing here is part of the public interface.
 */
#ifndef TRACYC_WIRE_DECODE_INTERNAL_H
#define TRACYC_WIRE_DECODE_INTERNAL_H

#include <lz4.h>
#include <stdbool.h>
#include <string.h>

#include "wire/decode.h"
#include "wire/protocol.h"

#define TCD_RING_SIZE (3 * TCW_TARGET_FRAME_SIZE + 1) /* docs/protocol.md §5.3 */
#define TCD_FRAME_HEADER 4
#define TCD_DEFAULT_MAX_MEMORY ((size_t)1 << 30)
#define TCD_DEFAULT_MAX_QUERIES 8188u /* min(SO_SNDBUF / 13, 8192) - 4 in upstream */
#define TCD_FIBER_THREAD_BIT 0x80000000u
#define TCD_PAGE_SHIFT 8 /* elements per page of a paged array: 256 */

/* Open-addressing hash map from a u64 key to a u32 value; value 0 marks an empty slot,
 * so callers store index + 1. */
struct tcd_map_slot {
    uint64_t key;
    uint32_t value;
};
struct tcd_map {
    struct tcd_map_slot *slots;
    uint32_t mask;
    uint32_t count;
};

/* An array whose elements never move, so pointers to them stay valid as it grows. */
struct tcd_paged {
    void **pages;
    uint32_t count;
    uint32_t page_slots;
    size_t elem_size;
};

/* Strings live in an arena of chunks that are never moved or freed before the decoder. */
struct tcd_arena_chunk {
    struct tcd_arena_chunk *next;
    size_t used, size;
    char data[];
};

struct tcd_string_entry {
    const char *text; /* "" while the client has not answered */
    uint8_t pending;
};

struct tcd_thread {
    uint32_t id;
    uint32_t next_zone_id; /* ZoneValidation register, docs/protocol.md §11.5 */
    uint32_t depth, cap;   /* zone stack: only the validation ids are needed */
    uint32_t *zone_ids;
    struct tcd_thread *fiber; /* fiber this OS thread runs, or NULL */
    const char *name;         /* decimal id until named */
    uint8_t name_pending;
    uint8_t is_fiber;
};

struct tcd_srcloc_rec {
    struct tcd_srcloc pub;
    uint32_t name_str, function_str, file_str; /* string handles of a static srcloc */
    uint8_t is_static;
};

struct tcd_named { /* a plot or a frame set */
    const char *name;
    uint8_t pending;
    uint8_t started; /* frame sets: a discontinuous frame was started */
};

struct tcd_lock {
    uint32_t last_obtainer;
    uint8_t shared;
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

struct tcd_vec { /* a plain growable array */
    void *data;
    uint32_t count, cap;
};

struct tcd_decoder {
    struct tcd_callbacks cb;
    void *user;
    void *query_user; /* argument of cb.on_query */
    size_t max_memory, memory;
    uint32_t max_queries;
    uint64_t hash_seed;

    enum tcd_state state;
    char error[320];

    /* handshake */
    uint8_t hs_buf[1 + TCW_WELCOME_SIZE + TCW_ONDEMAND_SIZE];
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

    /* time chains, docs/protocol.md §8 (unsigned: hostile deltas must wrap, not overflow) */
    uint64_t ref_thread, ref_serial, ref_gpu;

    /* current thread context */
    uint32_t ctx_tid;
    struct tcd_thread *ctx;           /* NULL until the server noticed ctx_tid */
    struct tcd_thread scratch_thread; /* stands in after an allocation failure */

    /* registers of items that belong to the next item */
    struct tcd_pending_bytes single, second, frame_image;
    uint32_t pending_payload; /* srcloc index + 1 */
    uint64_t pending_mem_name;
    uint8_t mem_name_set;
    uint8_t callstack_pending;

    /* Zone begin/end events are built here: only their own fields ever change, which
     * spares clearing a whole event per zone on the hot path. */
    struct tcd_event zone_event;

    uint8_t terminated, crashed, crash_reported;
    uint64_t open_zones;

    /* tables */
    struct tcd_arena_chunk *arena;
    struct tcd_map string_ids;      /* string id -> handle */
    struct tcd_vec strings;         /* struct tcd_string_entry, handle - 1 */
    struct tcd_map thread_ids;      /* thread id -> index + 1 */
    struct tcd_paged threads;       /* struct tcd_thread */
    struct tcd_map srcloc_ids;      /* static srcloc id -> index + 1 */
    struct tcd_map srcloc_payloads; /* content hash -> index + 1 (collisions probed) */
    struct tcd_paged srclocs;       /* struct tcd_srcloc_rec */
    uint64_t last_srcloc_id;
    uint32_t last_srcloc_index;
    struct tcd_map plot_ids;
    struct tcd_vec plots; /* struct tcd_named */
    struct tcd_map frame_ids;
    struct tcd_vec frame_sets; /* struct tcd_named, 0 = "Frame" */
    struct tcd_map pool_ids;   /* name string id -> pool */
    struct tcd_vec pools;      /* uint32_t string handle, 0 = default pool */
    struct tcd_map fiber_ids;  /* fiber id -> thread index + 1 */
    uint32_t fiber_count;
    struct tcd_map lock_ids;
    struct tcd_vec locks; /* struct tcd_lock */
    struct tcd_gpu_ctx gpu[256];

    /* queries */
    struct tcd_vec query_queue; /* uint8_t[13] packets */
    uint32_t query_head;
    uint32_t outstanding;
    struct tcd_vec srcloc_fifo; /* uint32_t srcloc index of SourceLocation queries */
    uint32_t srcloc_fifo_head;
    uint32_t pending_strings, pending_threads, pending_plots, pending_frames, pending_fibers;

    struct tcd_stats stats;
};

/* decode.c */
void tcd_fail(struct tcd_decoder *dec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* decode_items.c: parse one decompressed frame. */
void tcd_parse_items(struct tcd_decoder *dec, const uint8_t *p, size_t n);

/* decode_names.c */
const char *tcd_item_name(uint8_t type);

/* decode_tables.c: memory */
void *tcd_alloc(struct tcd_decoder *dec, size_t size);
void *tcd_realloc(struct tcd_decoder *dec, void *ptr, size_t old_size, size_t new_size);
void tcd_dealloc(struct tcd_decoder *dec, void *ptr, size_t size);
bool tcd_vec_reserve(struct tcd_decoder *dec, struct tcd_vec *v, size_t elem, uint32_t need);
void tcd_tables_free(struct tcd_decoder *dec);
bool tcd_tables_init(struct tcd_decoder *dec);
const char *tcd_arena_strdup(struct tcd_decoder *dec, const void *s, size_t len);
bool tcd_pending_keep(struct tcd_decoder *dec, struct tcd_pending_bytes *pb);

/* decode_tables.c: maps. The multiplier mixes the per-decoder seed into the high bits,
 * which pick the slot. */
static inline uint32_t tcd_map_hash(const struct tcd_decoder *dec, uint64_t key)
{
    return (uint32_t)(((key ^ dec->hash_seed) * 0x9e3779b97f4a7c15ull) >> 32);
}

static inline uint32_t tcd_map_find(const struct tcd_decoder *dec, const struct tcd_map *m, uint64_t key)
{
    if (!m->slots)
        return 0;
    for (uint32_t i = tcd_map_hash(dec, key) & m->mask;; i = (i + 1) & m->mask) {
        const struct tcd_map_slot *s = &m->slots[i];
        if (s->value == 0)
            return 0;
        if (s->key == key)
            return s->value;
    }
}

bool tcd_map_insert(struct tcd_decoder *dec, struct tcd_map *m, uint64_t key, uint32_t value);

static inline void *tcd_paged_at(const struct tcd_paged *p, uint32_t i)
{
    return (char *)p->pages[i >> TCD_PAGE_SHIFT] + (size_t)(i & ((1u << TCD_PAGE_SHIFT) - 1)) * p->elem_size;
}

/* decode_tables.c: symbol tables; each sends the query the real server sends for a
 * new identifier. On allocation failure the decoder is FAILED and a harmless stand-in
 * is returned (handle 0, index 0, the scratch thread). */
uint32_t tcd_check_string(struct tcd_decoder *dec, uint64_t id);
struct tcd_thread *tcd_find_thread(const struct tcd_decoder *dec, uint32_t tid);
struct tcd_thread *tcd_notice_thread(struct tcd_decoder *dec, uint32_t tid);
struct tcd_thread *tcd_fiber_thread(struct tcd_decoder *dec, uint64_t fiber);
uint32_t tcd_check_srcloc(struct tcd_decoder *dec, uint64_t id);
uint32_t tcd_payload_srcloc(struct tcd_decoder *dec, uint32_t color, uint32_t line, const char *function, size_t flen,
                            const char *file, size_t slen, const char *name, size_t nlen);
uint32_t tcd_check_plot(struct tcd_decoder *dec, uint64_t name);
uint32_t tcd_check_frame_set(struct tcd_decoder *dec, uint64_t name, bool create);
uint32_t tcd_find_pool(const struct tcd_decoder *dec, uint64_t name);
uint32_t tcd_check_pool(struct tcd_decoder *dec, uint64_t name);
bool tcd_zone_stack_grow(struct tcd_decoder *dec, struct tcd_thread *td);

static inline bool tcd_zone_push(struct tcd_decoder *dec, struct tcd_thread *td)
{
    if (td->depth == td->cap && !tcd_zone_stack_grow(dec, td))
        return false;
    td->zone_ids[td->depth++] = td->next_zone_id;
    td->next_zone_id = 0;
    dec->open_zones++;
    return true;
}

/* decode_tables.c: replies; each returns false (and fails) when nothing asked for it. */
bool tcd_reply_string(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
bool tcd_reply_thread_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
bool tcd_reply_plot_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
bool tcd_reply_frame_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
bool tcd_reply_fiber_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
bool tcd_reply_srcloc(struct tcd_decoder *dec, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                      uint32_t color);
bool tcd_reply_ack(struct tcd_decoder *dec, uint8_t type);

/* decode_tables.c: queries */
void tcd_query(struct tcd_decoder *dec, uint8_t type, uint64_t ptr);
void tcd_flush_queries(struct tcd_decoder *dec);
bool tcd_nothing_pending(const struct tcd_decoder *dec);

#endif
