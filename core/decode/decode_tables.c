/* decode_tables.c - the decoder's memory and symbol tables, and its queries.
 *
 * Every allocation is counted against tcd_limits.max_memory (a budget, util/budget.h),
 * so a hostile stream that invents identifiers without end fails with "decoder memory
 * limit reached" instead of exhausting the machine. Identifiers are looked up in hash
 * maps seeded per decoder, so crafted identifiers cannot force long probe chains.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decode/decode_fail.h"
#include "decode/decode_names.h"
#include "decode/decode_tables.h"

/* ---- memory ---------------------------------------------------------------------- */

static void refused(void *user, const char *why)
{
    struct tcd_decoder *dec = user;
    if (why == tcu_budget_over_limit)
        tcd_fail(dec, "decoder memory limit reached (%zu bytes)", dec->budget.limit);
    else
        tcd_fail(dec, "%s", why);
}

void *tcd_table_add(struct tcd_decoder *dec, struct tcu_array *v, struct tcu_map *ids, uint64_t key)
{
    if (v->count >= UINT32_MAX / 2) {
        tcd_fail(dec, "decoder memory limit reached (table too large)");
        return NULL;
    }
    if (tcu_array_reserve(v, v->count + 1) != 0 || (ids && tcu_map_put(ids, key, v->count) < 0))
        return NULL;
    return tcu_array_push(v);
}

const char *tcd_arena_strdup(struct tcd_decoder *dec, const void *s, size_t len)
{
    const char *copy = tcu_arena_strdup(&dec->arena, s, len);
    return copy ? copy : "";
}

const char *tcd_intern(struct tcd_decoder *dec, const void *s, size_t len)
{
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, s, len);
    const uint64_t *newest = tcu_map_get(&dec->interned_ids, h);
    uint32_t older = newest ? (uint32_t)*newest : 0;
    for (uint32_t i = older; i;) {
        const struct tcd_interned *e = tcu_array_at(&dec->interned, i - 1);
        if (e->len == len && memcmp(e->text, s, len) == 0)
            return e->text;
        i = e->next;
    }
    const char *copy = tcu_arena_strdup(&dec->arena, s, len);
    struct tcd_interned *e = copy ? tcd_table_add(dec, &dec->interned, NULL, 0) : NULL;
    if (!e || tcu_map_put(&dec->interned_ids, h, dec->interned.count) < 0)
        return copy ? copy : "";
    *e = (struct tcd_interned){copy, (uint32_t)len, older};
    return copy;
}

int tcd_pending_keep(struct tcd_decoder *dec, struct tcd_pending_bytes *pb)
{
    if (!pb->set || pb->data == pb->own)
        return 0;
    if (pb->own_cap < pb->len || !pb->own) {
        size_t cap = pb->len ? pb->len : 1;
        uint8_t *p = tcu_realloc(&dec->budget, pb->own, pb->own_cap, cap);
        if (!p)
            return -1;
        pb->own = p;
        pb->own_cap = cap;
    }
    memcpy(pb->own, pb->data, pb->len);
    pb->data = pb->own;
    return 0;
}

/* ---- setup ------------------------------------------------------------------------- */

#define MAP_COUNT 17
#define ARRAY_COUNT 13

/* The decoder's maps and arrays, set up and freed together. */
static void decoder_maps(struct tcd_decoder *dec, struct tcu_map *maps[MAP_COUNT])
{
    struct tcu_map *all[MAP_COUNT] = {
        &dec->string_ids,     &dec->thread_ids,    &dec->srcloc_ids,    &dec->srcloc_payloads, &dec->plot_ids,
        &dec->frame_ids,      &dec->pool_ids,      &dec->fiber_ids,     &dec->lock_ids,        &dec->next_callstacks,
        &dec->address_frames, &dec->custom_frames, &dec->callstack_ids, &dec->symbol_ids,      &dec->interned_ids,
        &dec->external_ids,   &dec->thread_pids,
    };
    memcpy(maps, all, sizeof all);
}

struct sized_array {
    struct tcu_array *array;
    size_t elem_size;
};

static void decoder_arrays(struct tcd_decoder *dec, struct sized_array arrays[ARRAY_COUNT])
{
    struct sized_array all[ARRAY_COUNT] = {
        {&dec->strings, sizeof(struct tcd_string_entry)},
        {&dec->plots, sizeof(struct tcd_named)},
        {&dec->frame_sets, sizeof(struct tcd_named)},
        {&dec->pools, sizeof(uint32_t)},
        {&dec->locks, sizeof(struct tcd_lock)},
        {&dec->query_queue, TCW_QUERY_SIZE},
        {&dec->query_queue_low, TCW_QUERY_SIZE},
        {&dec->srcloc_fifo, sizeof(uint32_t)},
        {&dec->callstacks, sizeof(struct tcd_callstack_rec)},
        {&dec->callstack_frames, sizeof(uint32_t)},
        {&dec->symbols, sizeof(struct tcd_symbol_rec)},
        {&dec->interned, sizeof(struct tcd_interned)},
        {&dec->externals, sizeof(struct tcd_external)},
    };
    memcpy(arrays, all, sizeof all);
}

int tcd_tables_init(struct tcd_decoder *dec, size_t max_memory)
{
    dec->budget = (struct tcu_budget){.used = sizeof *dec, .limit = max_memory, .refused = refused, .user = dec};
    struct tcu_budget *b = &dec->budget;
    tcu_arena_init(&dec->arena, b);
    struct tcu_map *maps[MAP_COUNT];
    decoder_maps(dec, maps);
    for (size_t i = 0; i < MAP_COUNT; i++)
        tcu_map_init(maps[i], dec->hash_seed, b);
    struct sized_array arrays[ARRAY_COUNT];
    decoder_arrays(dec, arrays);
    for (size_t i = 0; i < ARRAY_COUNT; i++)
        tcu_array_init(arrays[i].array, arrays[i].elem_size, b);
    tcu_chunks_init(&dec->threads, sizeof(struct tcd_thread), TCD_CHUNK_SHIFT, b);
    tcu_chunks_init(&dec->srclocs, sizeof(struct tcd_srcloc_rec), TCD_CHUNK_SHIFT, b);
    tcu_chunks_init(&dec->frames, sizeof(struct tcd_frame_rec), TCD_CHUNK_SHIFT, b);
    dec->scratch_thread.name = "";
    struct tcd_named *frame = tcu_array_push(&dec->frame_sets);
    uint32_t *default_pool = tcu_array_push(&dec->pools); /* string handle 0 */
    if (!frame || !default_pool)
        return -1;
    frame->name = "Frame";
    return 0;
}

void tcd_tables_free(struct tcd_decoder *dec)
{
    struct tcu_budget *b = &dec->budget;
    for (size_t i = 0; i < dec->threads.count; i++) {
        struct tcd_thread *td = tcu_chunks_at(&dec->threads, i);
        tcu_free(b, td->zone_ids, td->cap * sizeof *td->zone_ids);
    }
    struct tcd_thread *scratch = &dec->scratch_thread;
    tcu_free(b, scratch->zone_ids, scratch->cap * sizeof *scratch->zone_ids);
    tcu_chunks_free(&dec->threads);
    tcu_chunks_free(&dec->srclocs);
    struct tcu_map *maps[MAP_COUNT];
    decoder_maps(dec, maps);
    for (size_t i = 0; i < MAP_COUNT; i++)
        tcu_map_free(maps[i]);
    struct sized_array arrays[ARRAY_COUNT];
    decoder_arrays(dec, arrays);
    for (size_t i = 0; i < ARRAY_COUNT; i++)
        tcu_array_free(arrays[i].array);
    struct tcd_pending_bytes *pbs[] = {&dec->single, &dec->second, &dec->frame_image};
    for (size_t i = 0; i < 3; i++)
        tcu_free(b, pbs[i]->own, pbs[i]->own_cap);
    tcu_arena_free(&dec->arena);
}

/* ---- queries ------------------------------------------------------------------------ */

/* Queries for names go first; like the server, CallstackFrame and Symbol queries (and
 * everything from Disconnect on) wait in a second queue. */
void tcd_query(struct tcd_decoder *dec, uint8_t type, uint64_t ptr)
{
    struct tcu_array *queue = type < TCW_QUERY_DISCONNECT ? &dec->query_queue : &dec->query_queue_low;
    uint8_t *pkt = tcd_table_add(dec, queue, NULL, 0);
    if (!pkt)
        return;
    pkt[0] = tcw_query_to_wire(type, dec->vi);
    memcpy(pkt + 1, &ptr, 8);
}

static void flush_queue(struct tcd_decoder *dec, struct tcu_array *q, uint32_t *head)
{
    while (*head < q->count && dec->outstanding < dec->max_queries) {
        const uint8_t *pkt = tcu_array_at(q, *head);
        ++*head;
        dec->outstanding++;
        dec->stats.queries_sent++;
        if (dec->cb.on_query)
            dec->cb.on_query(dec->query_user, pkt);
    }
    if (*head == q->count) {
        *head = 0;
        q->count = 0;
    } else if (*head > q->count / 2) {
        memmove(q->data, tcu_array_at(q, *head), (q->count - *head) * TCW_QUERY_SIZE);
        q->count -= *head;
        *head = 0;
    }
}

/* Like the server, send queued queries after each frame, keeping at most max_queries
 * unanswered. */
void tcd_flush_queries(struct tcd_decoder *dec)
{
    flush_queue(dec, &dec->query_queue, &dec->query_head);
    flush_queue(dec, &dec->query_queue_low, &dec->query_low_head);
}

bool tcd_nothing_pending(const struct tcd_decoder *dec)
{
    return dec->query_queue.count == dec->query_head && dec->query_queue_low.count == dec->query_low_head &&
           dec->pending_strings == 0 && dec->pending_threads == 0 && dec->srcloc_fifo.count == dec->srcloc_fifo_head &&
           dec->pending_plots == 0 && dec->pending_frames == 0 && dec->pending_fibers == 0 && !dec->single.set &&
           !dec->second.set && !dec->frame_image.set && dec->pending_payload == 0 && !dec->mem_name_set &&
           dec->pending_callstack == 0 && dec->pending_callstack_frames == 0 && !dec->open_frame &&
           dec->pending_symbols == 0 && dec->pending_externals == 0 && dec->probe_pending == 0;
}

bool tcd_done(const struct tcd_decoder *dec)
{
    return dec->terminated && tcd_nothing_pending(dec) && (dec->open_zones == 0 || dec->crashed);
}

void tcd_reply_received(struct tcd_decoder *dec)
{
    if (dec->outstanding)
        dec->outstanding--;
}

int tcd_unsolicited(struct tcd_decoder *dec, const char *what, uint64_t id)
{
    tcd_fail(dec, "unsolicited %s reply for id 0x%" PRIx64 " (the decoder did not ask for it)", what, id);
    return -1;
}

/* ---- strings ------------------------------------------------------------------------ */

uint32_t tcd_check_string(struct tcd_decoder *dec, uint64_t id)
{
    if (id == 0)
        return 0;
    const uint64_t *index = tcu_map_get(&dec->string_ids, id);
    if (index)
        return (uint32_t)*index + 1;
    struct tcd_string_entry *e = tcd_table_add(dec, &dec->strings, &dec->string_ids, id);
    if (!e)
        return 0;
    *e = (struct tcd_string_entry){TCD_UNKNOWN_NAME, 1};
    dec->pending_strings++;
    tcd_query(dec, TCW_QUERY_STRING, id);
    return (uint32_t)dec->strings.count;
}

int tcd_reply_string(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    const uint64_t *index = tcu_map_get(&dec->string_ids, id);
    struct tcd_string_entry *e = index ? tcu_array_at(&dec->strings, *index) : NULL;
    if (!e || !e->pending)
        return tcd_unsolicited(dec, "StringData", id);
    e->text = tcd_arena_strdup(dec, s, len);
    e->pending = 0;
    dec->pending_strings--;
    tcd_reply_received(dec);
    return 0;
}

static const struct tcd_string_entry *string_entry(const struct tcd_decoder *dec, uint32_t handle)
{
    return handle == 0 || handle > dec->strings.count ? NULL : tcu_array_at(&dec->strings, handle - 1);
}

const char *tcd_string(const struct tcd_decoder *dec, uint32_t handle)
{
    const struct tcd_string_entry *e = string_entry(dec, handle);
    return e ? e->text : "";
}

const char *tcd_string_answered(const struct tcd_decoder *dec, uint32_t handle)
{
    const struct tcd_string_entry *e = string_entry(dec, handle);
    return e && !e->pending ? e->text : "";
}

/* ---- threads and fibers ------------------------------------------------------------- */

struct tcd_thread *tcd_find_thread(const struct tcd_decoder *dec, uint32_t tid)
{
    const uint64_t *index = tcu_map_get(&dec->thread_ids, tid);
    return index ? tcu_chunks_at(&dec->threads, *index) : NULL;
}

static struct tcd_thread *new_thread(struct tcd_decoder *dec, uint32_t tid)
{
    struct tcd_thread *td = tcu_chunks_push(&dec->threads);
    if (!td || tcu_map_put(&dec->thread_ids, tid, dec->threads.count - 1) < 0)
        return NULL;
    char digits[16];
    int n = snprintf(digits, sizeof digits, "%" PRIu32, tid);
    td->id = tid;
    td->name = tcd_arena_strdup(dec, digits, (size_t)n);
    return td;
}

struct tcd_thread *tcd_notice_thread(struct tcd_decoder *dec, uint32_t tid)
{
    struct tcd_thread *td = tcd_find_thread(dec, tid);
    if (td)
        return td;
    td = new_thread(dec, tid);
    if (!td)
        return &dec->scratch_thread;
    td->name_pending = 1;
    dec->pending_threads++;
    tcd_query(dec, TCW_QUERY_THREAD_STRING, tid);
    return td;
}

/* The answer to a ThreadString query or, from a client that may send them, a rename of a
 * thread whose name it already gave (docs/protocol.md §27). */
int tcd_reply_thread_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    struct tcd_thread *td = id <= UINT32_MAX ? tcd_find_thread(dec, (uint32_t)id) : NULL;
    if (!td || td->is_fiber || (!td->name_pending && !dec->renames))
        return tcd_unsolicited(dec, "ThreadName", id);
    td->name = tcd_arena_strdup(dec, s, len);
    if (td->name_pending) {
        td->name_pending = 0;
        dec->pending_threads--;
        tcd_reply_received(dec);
    }
    /* Not counted among the trace's events (stats.events): a name is no event of the trace. */
    if (dec->cb.on_event)
        dec->cb.on_event(
            dec->user,
            &(struct tcd_event){.kind = TCD_THREAD_NAME, .thread = td->id, .text = (const char *)s, .text_len = len});
    return 0;
}

/* A fiber runs as a virtual thread 0x80000000 | n, named by a FiberName query. */
struct tcd_thread *tcd_fiber_thread(struct tcd_decoder *dec, uint64_t fiber)
{
    const uint64_t *index = tcu_map_get(&dec->fiber_ids, fiber);
    if (index)
        return tcu_chunks_at(&dec->threads, *index);
    if (dec->fiber_count >= TCD_FIBER_THREAD_BIT) {
        tcd_fail(dec, "too many fibers");
        return &dec->scratch_thread;
    }
    struct tcd_thread *td = new_thread(dec, TCD_FIBER_THREAD_BIT | dec->fiber_count);
    if (!td || tcu_map_put(&dec->fiber_ids, fiber, dec->threads.count - 1) < 0)
        return &dec->scratch_thread;
    dec->fiber_count++;
    td->is_fiber = 1;
    td->name_pending = 1;
    dec->pending_fibers++;
    tcd_query(dec, TCW_QUERY_FIBER_NAME, fiber);
    return td;
}

int tcd_reply_fiber_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    const uint64_t *index = tcu_map_get(&dec->fiber_ids, id);
    struct tcd_thread *td = index ? tcu_chunks_at(&dec->threads, *index) : NULL;
    if (!td || !td->name_pending)
        return tcd_unsolicited(dec, "FiberName", id);
    td->name = tcd_arena_strdup(dec, s, len);
    td->name_pending = 0;
    dec->pending_fibers--;
    tcd_reply_received(dec);
    return 0;
}

int tcd_zone_stack_grow(struct tcd_decoder *dec, struct tcd_thread *td)
{
    uint32_t *ids = tcu_grow(&dec->budget, td->zone_ids, &td->cap, (size_t)td->depth + 1, sizeof *ids);
    if (!ids)
        return -1;
    td->zone_ids = ids;
    return 0;
}

const char *tcd_thread_name(const struct tcd_decoder *dec, uint32_t thread)
{
    const struct tcd_thread *td = tcd_find_thread(dec, thread);
    if (td)
        return td->name;
    /* Never seen: give the decimal id from a small rotating buffer. */
    static _Thread_local char buf[4][16];
    static _Thread_local unsigned next;
    char *out = buf[next++ & 3];
    snprintf(out, sizeof buf[0], "%" PRIu32, thread);
    return out;
}

/* ---- source locations --------------------------------------------------------------- */

static struct tcd_srcloc_rec *new_srcloc(struct tcd_decoder *dec)
{
    struct tcd_srcloc_rec *rec = tcu_chunks_push(&dec->srclocs);
    if (!rec)
        return NULL;
    rec->pub.name = "";
    rec->pub.function = rec->pub.file = TCD_UNKNOWN_NAME;
    return rec;
}

uint32_t tcd_check_srcloc(struct tcd_decoder *dec, uint64_t id)
{
    struct tcd_recent_srcloc *r = &dec->recent_srclocs[tcd_recent_srcloc_slot(id)];
    if (r->id == id && r->index_plus1)
        return r->index_plus1 - 1;
    const uint64_t *found = tcu_map_get(&dec->srcloc_ids, id);
    uint32_t index;
    if (found) {
        index = (uint32_t)*found;
    } else {
        struct tcd_srcloc_rec *rec = new_srcloc(dec);
        index = (uint32_t)dec->srclocs.count - 1;
        uint32_t *queried = rec && tcu_map_put(&dec->srcloc_ids, id, index) >= 0
                                ? tcd_table_add(dec, &dec->srcloc_fifo, NULL, 0)
                                : NULL;
        if (!queried)
            return 0;
        rec->is_static = 1;
        *queried = index;
        tcd_query(dec, TCW_QUERY_SOURCE_LOCATION, id);
    }
    r->id = id;
    r->index_plus1 = index + 1;
    return index;
}

int tcd_reply_srcloc(struct tcd_decoder *dec, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                     uint32_t color)
{
    struct tcu_array *fifo = &dec->srcloc_fifo;
    if (dec->srcloc_fifo_head == fifo->count) {
        tcd_fail(dec, "unsolicited SourceLocation reply (no SourceLocation query is outstanding)");
        return -1;
    }
    uint32_t idx = *(uint32_t *)tcu_array_at(fifo, dec->srcloc_fifo_head++);
    if (dec->srcloc_fifo_head == fifo->count)
        dec->srcloc_fifo_head = fifo->count = 0;
    struct tcd_srcloc_rec *rec = tcu_chunks_at(&dec->srclocs, idx);
    /* The server's order: name, file, function. */
    rec->name_str = tcd_check_string(dec, name);
    rec->file_str = tcd_check_string(dec, file);
    rec->function_str = tcd_check_string(dec, function);
    rec->pub.line = line;
    rec->pub.color = color;
    rec->answered = 1;
    tcd_reply_received(dec);
    return 0;
}

static bool srcloc_equal(const struct tcd_srcloc *a, uint32_t color, uint32_t line, const char *function, size_t flen,
                         const char *file, size_t slen, const char *name, size_t nlen)
{
    return a->color == color && a->line == line && strlen(a->function) == flen &&
           !memcmp(a->function, function, flen) && strlen(a->file) == slen && !memcmp(a->file, file, slen) &&
           strlen(a->name) == nlen && !memcmp(a->name, name, nlen);
}

/* Inline source locations are deduplicated by content into the same index space as
 * static ones. */
uint32_t tcd_payload_srcloc(struct tcd_decoder *dec, uint32_t color, uint32_t line, const char *function, size_t flen,
                            const char *file, size_t slen, const char *name, size_t nlen)
{
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT ^ ((uint64_t)line << 32 | color), function, flen);
    h = tcu_hash_bytes(h, file, slen);
    h = tcu_hash_bytes(h, name, nlen);
    const uint64_t *newest = tcu_map_get(&dec->srcloc_payloads, h);
    uint32_t same_hash = newest ? (uint32_t)*newest + 1 : 0;
    for (uint32_t i = same_hash; i;) {
        const struct tcd_srcloc_rec *rec = tcu_chunks_at(&dec->srclocs, i - 1);
        if (srcloc_equal(&rec->pub, color, line, function, flen, file, slen, name, nlen))
            return i - 1;
        i = rec->same_hash;
    }
    struct tcd_srcloc_rec *rec = new_srcloc(dec);
    if (!rec || tcu_map_put(&dec->srcloc_payloads, h, dec->srclocs.count - 1) < 0)
        return 0;
    rec->same_hash = same_hash;
    rec->pub.function = tcd_arena_strdup(dec, function, flen);
    rec->pub.file = tcd_arena_strdup(dec, file, slen);
    rec->pub.name = tcd_arena_strdup(dec, name, nlen);
    rec->pub.line = line;
    rec->pub.color = color;
    return dec->srclocs.count - 1;
}

const struct tcd_srcloc *tcd_srcloc(const struct tcd_decoder *dec, uint32_t index)
{
    static const struct tcd_srcloc unknown = {"", TCD_UNKNOWN_NAME, TCD_UNKNOWN_NAME, 0, 0};
    if (index >= dec->srclocs.count)
        return &unknown;
    struct tcd_srcloc_rec *rec = tcu_chunks_at(&dec->srclocs, index);
    if (rec->is_static && rec->answered) { /* strings may have been answered since the last call */
        rec->pub.name = tcd_string(dec, rec->name_str);
        rec->pub.function = tcd_string(dec, rec->function_str);
        rec->pub.file = tcd_string(dec, rec->file_str);
    }
    return &rec->pub;
}

uint32_t tcd_srcloc_count(const struct tcd_decoder *dec)
{
    return (uint32_t)dec->srclocs.count;
}

/* ---- plots and frame sets ------------------------------------------------------------ */

static uint32_t check_named(struct tcd_decoder *dec, struct tcu_map *ids, struct tcu_array *v, uint32_t *pending,
                            uint8_t query, uint64_t name)
{
    const uint64_t *index = tcu_map_get(ids, name);
    if (index)
        return (uint32_t)*index;
    struct tcd_named *e = tcd_table_add(dec, v, ids, name);
    if (!e)
        return 0;
    *e = (struct tcd_named){.name = "", .pending = 1};
    (*pending)++;
    tcd_query(dec, query, name);
    return (uint32_t)v->count - 1;
}

static int reply_named(struct tcd_decoder *dec, struct tcu_map *ids, struct tcu_array *v, uint32_t *pending,
                       const char *what, uint64_t id, const uint8_t *s, size_t len)
{
    const uint64_t *index = tcu_map_get(ids, id);
    struct tcd_named *e = index ? tcu_array_at(v, *index) : NULL;
    if (!e || !e->pending)
        return tcd_unsolicited(dec, what, id);
    e->name = tcd_arena_strdup(dec, s, len);
    e->pending = 0;
    (*pending)--;
    tcd_reply_received(dec);
    return 0;
}

uint32_t tcd_check_plot(struct tcd_decoder *dec, uint64_t name)
{
    return check_named(dec, &dec->plot_ids, &dec->plots, &dec->pending_plots, TCW_QUERY_PLOT_NAME, name);
}

int tcd_reply_plot_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    return reply_named(dec, &dec->plot_ids, &dec->plots, &dec->pending_plots, "PlotName", id, s, len);
}

/* Frame set 0 is the main "Frame"; create = false only looks up (FrameMarkMsgEnd). */
uint32_t tcd_check_frame_set(struct tcd_decoder *dec, uint64_t name, bool create)
{
    if (name == 0)
        return 0;
    if (!create) {
        const uint64_t *index = tcu_map_get(&dec->frame_ids, name);
        return index ? (uint32_t)*index : UINT32_MAX;
    }
    return check_named(dec, &dec->frame_ids, &dec->frame_sets, &dec->pending_frames, TCW_QUERY_FRAME_NAME, name);
}

int tcd_reply_frame_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    return reply_named(dec, &dec->frame_ids, &dec->frame_sets, &dec->pending_frames, "FrameName", id, s, len);
}

const char *tcd_plot_name(const struct tcd_decoder *dec, uint32_t plot)
{
    return plot < dec->plots.count ? ((const struct tcd_named *)tcu_array_at(&dec->plots, plot))->name : "";
}

const char *tcd_frame_name(const struct tcd_decoder *dec, uint32_t frame_set)
{
    if (frame_set >= dec->frame_sets.count)
        return "";
    return ((const struct tcd_named *)tcu_array_at(&dec->frame_sets, frame_set))->name;
}

/* ---- memory pools --------------------------------------------------------------------- */

uint32_t tcd_find_pool(const struct tcd_decoder *dec, uint64_t name)
{
    const uint64_t *index = tcu_map_get(&dec->pool_ids, name);
    return index ? (uint32_t)*index : 0;
}

uint32_t tcd_check_pool(struct tcd_decoder *dec, uint64_t name)
{
    uint32_t pool = tcd_find_pool(dec, name);
    if (pool)
        return pool;
    uint32_t *handle = tcd_table_add(dec, &dec->pools, &dec->pool_ids, name);
    if (!handle)
        return 0;
    pool = (uint32_t)dec->pools.count - 1;
    *handle = tcd_check_string(dec, name);
    return pool;
}

const char *tcd_pool_name(const struct tcd_decoder *dec, uint32_t pool)
{
    if (pool == 0 || pool >= dec->pools.count)
        return "";
    return tcd_string(dec, *(const uint32_t *)tcu_array_at(&dec->pools, pool));
}

/* ---- acknowledgements ------------------------------------------------------------------ */

/* The decoder never sends the queries these answer (Parameter, SymbolCode, SourceCode,
 * DataTransfer); like the server it counts them as returning a query unit, and treats
 * one arriving while nothing is outstanding as unsolicited. */
int tcd_reply_ack(struct tcd_decoder *dec, uint8_t type)
{
    if (dec->outstanding == 0) {
        tcd_fail(dec, "unsolicited %s reply (no query is outstanding)", tcd_item_name(type));
        return -1;
    }
    dec->outstanding--;
    return 0;
}
