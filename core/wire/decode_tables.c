/* decode_tables.c - the decoder's memory, hash maps and symbol tables, and its queries.
 *
 * Every allocation is counted against tcd_limits.max_memory, so a hostile stream that
 * invents identifiers without end fails with "decoder memory limit reached" instead of
 * exhausting the machine. Identifiers are looked up in open-addressing maps whose hash
 * is seeded per decoder, so crafted identifiers cannot force long probe chains.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire/decode_internal.h"

#define ARENA_CHUNK_SIZE (64 * 1024)

/* ---- memory ---------------------------------------------------------------------- */

void *tcd_alloc(struct tcd_decoder *dec, size_t size)
{
    if (size > dec->max_memory - dec->memory) {
        tcd_fail(dec, "decoder memory limit reached (%zu bytes)", dec->max_memory);
        return NULL;
    }
    void *p = calloc(1, size);
    if (!p) {
        tcd_fail(dec, "out of memory");
        return NULL;
    }
    dec->memory += size;
    return p;
}

void *tcd_realloc(struct tcd_decoder *dec, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size > old_size && new_size - old_size > dec->max_memory - dec->memory) {
        tcd_fail(dec, "decoder memory limit reached (%zu bytes)", dec->max_memory);
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (!p) {
        tcd_fail(dec, "out of memory");
        return NULL;
    }
    dec->memory = dec->memory - old_size + new_size;
    return p;
}

void tcd_dealloc(struct tcd_decoder *dec, void *ptr, size_t size)
{
    if (!ptr)
        return;
    free(ptr);
    dec->memory -= size;
}

bool tcd_vec_reserve(struct tcd_decoder *dec, struct tcd_vec *v, size_t elem, uint32_t need)
{
    if (need <= v->cap)
        return true;
    if (need > UINT32_MAX / 2) {
        tcd_fail(dec, "decoder memory limit reached (table too large)");
        return false;
    }
    uint32_t cap = v->cap ? v->cap : 16;
    while (cap < need)
        cap *= 2;
    void *p = tcd_realloc(dec, v->data, (size_t)v->cap * elem, (size_t)cap * elem);
    if (!p)
        return false;
    v->data = p;
    v->cap = cap;
    return true;
}

static void vec_free(struct tcd_decoder *dec, struct tcd_vec *v, size_t elem)
{
    tcd_dealloc(dec, v->data, (size_t)v->cap * elem);
    v->data = NULL;
    v->count = v->cap = 0;
}

const char *tcd_arena_strdup(struct tcd_decoder *dec, const void *s, size_t len)
{
    struct tcd_arena_chunk *c = dec->arena;
    if (!c || c->size - c->used < len + 1) {
        size_t size = len + 1 > ARENA_CHUNK_SIZE ? len + 1 : ARENA_CHUNK_SIZE;
        c = tcd_alloc(dec, sizeof *c + size);
        if (!c)
            return "";
        c->size = size;
        /* A big string gets its own chunk behind the current one, which keeps its room. */
        if (dec->arena && size > ARENA_CHUNK_SIZE) {
            c->next = dec->arena->next;
            dec->arena->next = c;
        } else {
            c->next = dec->arena;
            dec->arena = c;
        }
    }
    char *out = c->data + c->used;
    memcpy(out, s, len);
    out[len] = 0;
    c->used += len + 1;
    return out;
}

bool tcd_pending_keep(struct tcd_decoder *dec, struct tcd_pending_bytes *pb)
{
    if (!pb->set || pb->data == pb->own)
        return true;
    if (pb->own_cap < pb->len || !pb->own) {
        size_t cap = pb->len ? pb->len : 1;
        uint8_t *p = tcd_realloc(dec, pb->own, pb->own_cap, cap);
        if (!p)
            return false;
        pb->own = p;
        pb->own_cap = cap;
    }
    memcpy(pb->own, pb->data, pb->len);
    pb->data = pb->own;
    return true;
}

/* ---- hash maps and paged arrays --------------------------------------------------- */

static bool map_grow(struct tcd_decoder *dec, struct tcd_map *m)
{
    uint32_t old_size = m->slots ? m->mask + 1 : 0;
    uint32_t size = old_size ? old_size * 2 : 64;
    if (size == 0 || size > (1u << 30)) {
        tcd_fail(dec, "decoder memory limit reached (table too large)");
        return false;
    }
    struct tcd_map_slot *slots = tcd_alloc(dec, (size_t)size * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < old_size; i++) {
        const struct tcd_map_slot *s = &m->slots[i];
        if (s->value == 0)
            continue;
        uint32_t j = tcd_map_hash(dec, s->key) & (size - 1);
        while (slots[j].value)
            j = (j + 1) & (size - 1);
        slots[j] = *s;
    }
    tcd_dealloc(dec, m->slots, (size_t)old_size * sizeof *slots);
    m->slots = slots;
    m->mask = size - 1;
    return true;
}

/* Inserts without looking for an existing key: callers have checked. */
bool tcd_map_insert(struct tcd_decoder *dec, struct tcd_map *m, uint64_t key, uint32_t value)
{
    if ((!m->slots || (m->count + 1) * 2 > m->mask + 1) && !map_grow(dec, m))
        return false;
    uint32_t i = tcd_map_hash(dec, key) & m->mask;
    while (m->slots[i].value)
        i = (i + 1) & m->mask;
    m->slots[i].key = key;
    m->slots[i].value = value;
    m->count++;
    return true;
}

static void map_free(struct tcd_decoder *dec, struct tcd_map *m)
{
    if (m->slots)
        tcd_dealloc(dec, m->slots, (size_t)(m->mask + 1) * sizeof *m->slots);
    m->slots = NULL;
    m->count = m->mask = 0;
}

static void *paged_push(struct tcd_decoder *dec, struct tcd_paged *p)
{
    uint32_t page = p->count >> TCD_PAGE_SHIFT;
    if (page >= p->page_slots) {
        uint32_t slots = p->page_slots ? p->page_slots * 2 : 16;
        void **pages = tcd_realloc(dec, p->pages, p->page_slots * sizeof *pages, slots * sizeof *pages);
        if (!pages)
            return NULL;
        memset(pages + p->page_slots, 0, (slots - p->page_slots) * sizeof *pages);
        p->pages = pages;
        p->page_slots = slots;
    }
    if (!p->pages[page]) {
        p->pages[page] = tcd_alloc(dec, p->elem_size << TCD_PAGE_SHIFT);
        if (!p->pages[page])
            return NULL;
    }
    return tcd_paged_at(p, p->count++);
}

static void paged_free(struct tcd_decoder *dec, struct tcd_paged *p)
{
    for (uint32_t i = 0; i < p->page_slots; i++)
        tcd_dealloc(dec, p->pages[i], p->pages[i] ? p->elem_size << TCD_PAGE_SHIFT : 0);
    tcd_dealloc(dec, p->pages, p->page_slots * sizeof *p->pages);
    p->pages = NULL;
    p->count = p->page_slots = 0;
}

/* ---- setup ------------------------------------------------------------------------- */

bool tcd_tables_init(struct tcd_decoder *dec)
{
    dec->threads.elem_size = sizeof(struct tcd_thread);
    dec->srclocs.elem_size = sizeof(struct tcd_srcloc_rec);
    dec->scratch_thread.name = "";
    if (!tcd_vec_reserve(dec, &dec->frame_sets, sizeof(struct tcd_named), 1) ||
        !tcd_vec_reserve(dec, &dec->pools, sizeof(uint32_t), 1))
        return false;
    ((struct tcd_named *)dec->frame_sets.data)[0] = (struct tcd_named){.name = "Frame"};
    dec->frame_sets.count = 1;
    ((uint32_t *)dec->pools.data)[0] = 0;
    dec->pools.count = 1;
    return true;
}

void tcd_tables_free(struct tcd_decoder *dec)
{
    for (uint32_t i = 0; i < dec->threads.count; i++) {
        struct tcd_thread *td = tcd_paged_at(&dec->threads, i);
        tcd_dealloc(dec, td->zone_ids, (size_t)td->cap * sizeof *td->zone_ids);
    }
    struct tcd_thread *scratch = &dec->scratch_thread;
    tcd_dealloc(dec, scratch->zone_ids, (size_t)scratch->cap * sizeof *scratch->zone_ids);
    paged_free(dec, &dec->threads);
    paged_free(dec, &dec->srclocs);
    struct tcd_map *maps[] = {&dec->string_ids,      &dec->thread_ids, &dec->srcloc_ids,
                              &dec->srcloc_payloads, &dec->plot_ids,   &dec->frame_ids,
                              &dec->pool_ids,        &dec->fiber_ids,  &dec->lock_ids};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        map_free(dec, maps[i]);
    vec_free(dec, &dec->strings, sizeof(struct tcd_string_entry));
    vec_free(dec, &dec->plots, sizeof(struct tcd_named));
    vec_free(dec, &dec->frame_sets, sizeof(struct tcd_named));
    vec_free(dec, &dec->pools, sizeof(uint32_t));
    vec_free(dec, &dec->locks, sizeof(struct tcd_lock));
    vec_free(dec, &dec->query_queue, TCW_QUERY_SIZE);
    vec_free(dec, &dec->srcloc_fifo, sizeof(uint32_t));
    struct tcd_pending_bytes *pbs[] = {&dec->single, &dec->second, &dec->frame_image};
    for (size_t i = 0; i < 3; i++)
        tcd_dealloc(dec, pbs[i]->own, pbs[i]->own_cap);
    while (dec->arena) {
        struct tcd_arena_chunk *next = dec->arena->next;
        tcd_dealloc(dec, dec->arena, sizeof *dec->arena + dec->arena->size);
        dec->arena = next;
    }
}

/* ---- queries ------------------------------------------------------------------------ */

void tcd_query(struct tcd_decoder *dec, uint8_t type, uint64_t ptr)
{
    struct tcd_vec *q = &dec->query_queue;
    if (!tcd_vec_reserve(dec, q, TCW_QUERY_SIZE, q->count + 1))
        return;
    uint8_t *pkt = (uint8_t *)q->data + (size_t)q->count * TCW_QUERY_SIZE;
    pkt[0] = type;
    memcpy(pkt + 1, &ptr, 8);
    memset(pkt + 9, 0, 4);
    q->count++;
}

/* Like the server, send queued queries after each frame, keeping at most max_queries
 * unanswered. */
void tcd_flush_queries(struct tcd_decoder *dec)
{
    struct tcd_vec *q = &dec->query_queue;
    while (dec->query_head < q->count && dec->outstanding < dec->max_queries) {
        const uint8_t *pkt = (const uint8_t *)q->data + (size_t)dec->query_head * TCW_QUERY_SIZE;
        dec->query_head++;
        dec->outstanding++;
        dec->stats.queries_sent++;
        if (dec->cb.on_query)
            dec->cb.on_query(dec->query_user, pkt);
    }
    if (dec->query_head == q->count) {
        dec->query_head = q->count = 0;
    } else if (dec->query_head > q->count / 2) {
        memmove(q->data, (uint8_t *)q->data + (size_t)dec->query_head * TCW_QUERY_SIZE,
                (size_t)(q->count - dec->query_head) * TCW_QUERY_SIZE);
        q->count -= dec->query_head;
        dec->query_head = 0;
    }
}

bool tcd_nothing_pending(const struct tcd_decoder *dec)
{
    return dec->query_queue.count == dec->query_head && dec->pending_strings == 0 && dec->pending_threads == 0 &&
           dec->srcloc_fifo.count == dec->srcloc_fifo_head && dec->pending_plots == 0 && dec->pending_frames == 0 &&
           dec->pending_fibers == 0 && !dec->single.set && !dec->second.set && !dec->frame_image.set &&
           dec->pending_payload == 0 && !dec->mem_name_set && !dec->callstack_pending;
}

static void reply_received(struct tcd_decoder *dec)
{
    if (dec->outstanding)
        dec->outstanding--;
}

static bool unsolicited(struct tcd_decoder *dec, const char *what, uint64_t id)
{
    tcd_fail(dec, "unsolicited %s reply for id 0x%" PRIx64 " (the decoder did not ask for it)", what, id);
    return false;
}

/* ---- strings ------------------------------------------------------------------------ */

uint32_t tcd_check_string(struct tcd_decoder *dec, uint64_t id)
{
    if (id == 0)
        return 0;
    uint32_t handle = tcd_map_find(dec, &dec->string_ids, id);
    if (handle)
        return handle;
    struct tcd_vec *v = &dec->strings;
    if (!tcd_vec_reserve(dec, v, sizeof(struct tcd_string_entry), v->count + 1))
        return 0;
    if (!tcd_map_insert(dec, &dec->string_ids, id, v->count + 1))
        return 0;
    ((struct tcd_string_entry *)v->data)[v->count++] = (struct tcd_string_entry){"", 1};
    dec->pending_strings++;
    tcd_query(dec, TCW_QUERY_STRING, id);
    return v->count;
}

bool tcd_reply_string(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    uint32_t handle = tcd_map_find(dec, &dec->string_ids, id);
    struct tcd_string_entry *e = handle ? (struct tcd_string_entry *)dec->strings.data + handle - 1 : NULL;
    if (!e || !e->pending)
        return unsolicited(dec, "StringData", id);
    e->text = tcd_arena_strdup(dec, s, len);
    e->pending = 0;
    dec->pending_strings--;
    reply_received(dec);
    return true;
}

const char *tcd_string(const struct tcd_decoder *dec, uint32_t handle)
{
    if (handle == 0 || handle > dec->strings.count)
        return "";
    return ((const struct tcd_string_entry *)dec->strings.data)[handle - 1].text;
}

/* ---- threads and fibers ------------------------------------------------------------- */

struct tcd_thread *tcd_find_thread(const struct tcd_decoder *dec, uint32_t tid)
{
    uint32_t idx = tcd_map_find(dec, &dec->thread_ids, tid);
    return idx ? tcd_paged_at(&dec->threads, idx - 1) : NULL;
}

static struct tcd_thread *new_thread(struct tcd_decoder *dec, uint32_t tid)
{
    struct tcd_thread *td = paged_push(dec, &dec->threads);
    if (!td || !tcd_map_insert(dec, &dec->thread_ids, tid, dec->threads.count))
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

bool tcd_reply_thread_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    struct tcd_thread *td = id <= UINT32_MAX ? tcd_find_thread(dec, (uint32_t)id) : NULL;
    if (!td || td->is_fiber || !td->name_pending)
        return unsolicited(dec, "ThreadName", id);
    td->name = tcd_arena_strdup(dec, s, len);
    td->name_pending = 0;
    dec->pending_threads--;
    reply_received(dec);
    return true;
}

/* A fiber runs as a virtual thread 0x80000000 | n, named by a FiberName query. */
struct tcd_thread *tcd_fiber_thread(struct tcd_decoder *dec, uint64_t fiber)
{
    uint32_t idx = tcd_map_find(dec, &dec->fiber_ids, fiber);
    if (idx)
        return tcd_paged_at(&dec->threads, idx - 1);
    if (dec->fiber_count >= TCD_FIBER_THREAD_BIT) {
        tcd_fail(dec, "too many fibers");
        return &dec->scratch_thread;
    }
    struct tcd_thread *td = new_thread(dec, TCD_FIBER_THREAD_BIT | dec->fiber_count);
    if (!td || !tcd_map_insert(dec, &dec->fiber_ids, fiber, dec->threads.count))
        return &dec->scratch_thread;
    dec->fiber_count++;
    td->is_fiber = 1;
    td->name_pending = 1;
    dec->pending_fibers++;
    tcd_query(dec, TCW_QUERY_FIBER_NAME, fiber);
    return td;
}

bool tcd_reply_fiber_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    uint32_t idx = tcd_map_find(dec, &dec->fiber_ids, id);
    struct tcd_thread *td = idx ? tcd_paged_at(&dec->threads, idx - 1) : NULL;
    if (!td || !td->name_pending)
        return unsolicited(dec, "FiberName", id);
    td->name = tcd_arena_strdup(dec, s, len);
    td->name_pending = 0;
    dec->pending_fibers--;
    reply_received(dec);
    return true;
}

bool tcd_zone_stack_grow(struct tcd_decoder *dec, struct tcd_thread *td)
{
    uint32_t cap = td->cap ? td->cap * 2 : 16;
    if (cap <= td->cap) {
        tcd_fail(dec, "decoder memory limit reached (zone stack too deep)");
        return false;
    }
    uint32_t *ids = tcd_realloc(dec, td->zone_ids, (size_t)td->cap * sizeof *ids, (size_t)cap * sizeof *ids);
    if (!ids)
        return false;
    td->zone_ids = ids;
    td->cap = cap;
    return true;
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
    struct tcd_srcloc_rec *rec = paged_push(dec, &dec->srclocs);
    if (!rec)
        return NULL;
    rec->pub.name = rec->pub.function = rec->pub.file = "";
    return rec;
}

uint32_t tcd_check_srcloc(struct tcd_decoder *dec, uint64_t id)
{
    if (id == dec->last_srcloc_id && dec->srclocs.count)
        return dec->last_srcloc_index;
    uint32_t idx = tcd_map_find(dec, &dec->srcloc_ids, id);
    if (!idx) {
        struct tcd_vec *fifo = &dec->srcloc_fifo;
        struct tcd_srcloc_rec *rec = new_srcloc(dec);
        if (!rec || !tcd_map_insert(dec, &dec->srcloc_ids, id, dec->srclocs.count) ||
            !tcd_vec_reserve(dec, fifo, sizeof(uint32_t), fifo->count + 1))
            return 0;
        rec->is_static = 1;
        idx = dec->srclocs.count;
        ((uint32_t *)fifo->data)[fifo->count++] = idx - 1;
        tcd_query(dec, TCW_QUERY_SOURCE_LOCATION, id);
    }
    dec->last_srcloc_id = id;
    dec->last_srcloc_index = idx - 1;
    return idx - 1;
}

bool tcd_reply_srcloc(struct tcd_decoder *dec, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                      uint32_t color)
{
    struct tcd_vec *fifo = &dec->srcloc_fifo;
    if (dec->srcloc_fifo_head == fifo->count) {
        tcd_fail(dec, "unsolicited SourceLocation reply (no SourceLocation query is outstanding)");
        return false;
    }
    uint32_t idx = ((uint32_t *)fifo->data)[dec->srcloc_fifo_head++];
    if (dec->srcloc_fifo_head == fifo->count)
        dec->srcloc_fifo_head = fifo->count = 0;
    struct tcd_srcloc_rec *rec = tcd_paged_at(&dec->srclocs, idx);
    /* The server's order: name, file, function. */
    rec->name_str = tcd_check_string(dec, name);
    rec->file_str = tcd_check_string(dec, file);
    rec->function_str = tcd_check_string(dec, function);
    rec->pub.line = line;
    rec->pub.color = color;
    reply_received(dec);
    return true;
}

static uint64_t content_hash(uint64_t h, const void *data, size_t len)
{
    const uint8_t *p = data; /* FNV-1a, then mixed again by the map */
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return (h ^ len) * 0x100000001b3ull;
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
    uint64_t h = content_hash(0xcbf29ce484222325ull ^ ((uint64_t)line << 32 | color), function, flen);
    h = content_hash(h, file, slen);
    h = content_hash(h, name, nlen);
    const struct tcd_map *m = &dec->srcloc_payloads;
    if (m->slots) {
        for (uint32_t i = tcd_map_hash(dec, h) & m->mask; m->slots[i].value; i = (i + 1) & m->mask) {
            if (m->slots[i].key != h)
                continue;
            const struct tcd_srcloc_rec *rec = tcd_paged_at(&dec->srclocs, m->slots[i].value - 1);
            if (srcloc_equal(&rec->pub, color, line, function, flen, file, slen, name, nlen))
                return m->slots[i].value - 1;
        }
    }
    struct tcd_srcloc_rec *rec = new_srcloc(dec);
    if (!rec || !tcd_map_insert(dec, &dec->srcloc_payloads, h, dec->srclocs.count))
        return 0;
    rec->pub.function = tcd_arena_strdup(dec, function, flen);
    rec->pub.file = tcd_arena_strdup(dec, file, slen);
    rec->pub.name = tcd_arena_strdup(dec, name, nlen);
    rec->pub.line = line;
    rec->pub.color = color;
    return dec->srclocs.count - 1;
}

const struct tcd_srcloc *tcd_srcloc(const struct tcd_decoder *dec, uint32_t index)
{
    static const struct tcd_srcloc unknown = {"", "", "", 0, 0};
    if (index >= dec->srclocs.count)
        return &unknown;
    struct tcd_srcloc_rec *rec = tcd_paged_at(&dec->srclocs, index);
    if (rec->is_static) { /* strings may have been answered since the last call */
        rec->pub.name = tcd_string(dec, rec->name_str);
        rec->pub.function = tcd_string(dec, rec->function_str);
        rec->pub.file = tcd_string(dec, rec->file_str);
    }
    return &rec->pub;
}

uint32_t tcd_srcloc_count(const struct tcd_decoder *dec)
{
    return dec->srclocs.count;
}

/* ---- plots and frame sets ------------------------------------------------------------ */

static uint32_t check_named(struct tcd_decoder *dec, struct tcd_map *ids, struct tcd_vec *v, uint32_t *pending,
                            uint8_t query, uint64_t name)
{
    uint32_t idx = tcd_map_find(dec, ids, name);
    if (idx)
        return idx - 1;
    if (!tcd_vec_reserve(dec, v, sizeof(struct tcd_named), v->count + 1) ||
        !tcd_map_insert(dec, ids, name, v->count + 1))
        return 0;
    ((struct tcd_named *)v->data)[v->count] = (struct tcd_named){.name = "", .pending = 1};
    (*pending)++;
    tcd_query(dec, query, name);
    return v->count++;
}

static bool reply_named(struct tcd_decoder *dec, struct tcd_map *ids, struct tcd_vec *v, uint32_t *pending,
                        const char *what, uint64_t id, const uint8_t *s, size_t len)
{
    uint32_t idx = tcd_map_find(dec, ids, id);
    struct tcd_named *e = idx ? (struct tcd_named *)v->data + idx - 1 : NULL;
    if (!e || !e->pending)
        return unsolicited(dec, what, id);
    e->name = tcd_arena_strdup(dec, s, len);
    e->pending = 0;
    (*pending)--;
    reply_received(dec);
    return true;
}

uint32_t tcd_check_plot(struct tcd_decoder *dec, uint64_t name)
{
    return check_named(dec, &dec->plot_ids, &dec->plots, &dec->pending_plots, TCW_QUERY_PLOT_NAME, name);
}

bool tcd_reply_plot_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    return reply_named(dec, &dec->plot_ids, &dec->plots, &dec->pending_plots, "PlotName", id, s, len);
}

/* Frame set 0 is the main "Frame"; create = false only looks up (FrameMarkMsgEnd). */
uint32_t tcd_check_frame_set(struct tcd_decoder *dec, uint64_t name, bool create)
{
    if (name == 0)
        return 0;
    if (!create) {
        uint32_t idx = tcd_map_find(dec, &dec->frame_ids, name);
        return idx ? idx - 1 : UINT32_MAX;
    }
    return check_named(dec, &dec->frame_ids, &dec->frame_sets, &dec->pending_frames, TCW_QUERY_FRAME_NAME, name);
}

bool tcd_reply_frame_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len)
{
    return reply_named(dec, &dec->frame_ids, &dec->frame_sets, &dec->pending_frames, "FrameName", id, s, len);
}

const char *tcd_plot_name(const struct tcd_decoder *dec, uint32_t plot)
{
    return plot < dec->plots.count ? ((const struct tcd_named *)dec->plots.data)[plot].name : "";
}

const char *tcd_frame_name(const struct tcd_decoder *dec, uint32_t frame_set)
{
    if (frame_set >= dec->frame_sets.count)
        return "";
    return ((const struct tcd_named *)dec->frame_sets.data)[frame_set].name;
}

/* ---- memory pools --------------------------------------------------------------------- */

uint32_t tcd_find_pool(const struct tcd_decoder *dec, uint64_t name)
{
    uint32_t idx = tcd_map_find(dec, &dec->pool_ids, name);
    return idx ? idx - 1 : 0;
}

uint32_t tcd_check_pool(struct tcd_decoder *dec, uint64_t name)
{
    uint32_t pool = tcd_find_pool(dec, name);
    if (pool)
        return pool;
    struct tcd_vec *v = &dec->pools;
    if (!tcd_vec_reserve(dec, v, sizeof(uint32_t), v->count + 1) ||
        !tcd_map_insert(dec, &dec->pool_ids, name, v->count + 1))
        return 0;
    ((uint32_t *)v->data)[v->count] = tcd_check_string(dec, name);
    return v->count++;
}

const char *tcd_pool_name(const struct tcd_decoder *dec, uint32_t pool)
{
    if (pool == 0 || pool >= dec->pools.count)
        return "";
    return tcd_string(dec, ((const uint32_t *)dec->pools.data)[pool]);
}

/* ---- acknowledgements ------------------------------------------------------------------ */

/* The decoder never sends the queries these answer (Parameter, SymbolCode, SourceCode,
 * DataTransfer); like the server it counts them as returning a query unit, and treats
 * one arriving while nothing is outstanding as unsolicited. */
bool tcd_reply_ack(struct tcd_decoder *dec, uint8_t type)
{
    if (dec->outstanding == 0) {
        tcd_fail(dec, "unsolicited %s reply (no query is outstanding)", tcd_item_name(type));
        return false;
    }
    dec->outstanding--;
    return true;
}
