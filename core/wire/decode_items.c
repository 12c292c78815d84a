/* decode_items.c - one decompressed frame of protocol-82 items in, events out.
 *
 * Every item is checked against the frame's end before any of its bytes is read, and
 * every length is checked before it is trusted. Semantics follow the spec (section 8)
 * and, where it is silent, tracy-capture 0.14.0: the order in which new identifiers are
 * queried, the time chains, and the failures of section 9.2.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "wire/decode_internal.h"

static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline float rdf32(const uint8_t *p) { float v; memcpy(&v, p, 4); return v; }
static inline double rdf64(const uint8_t *p) { double v; memcpy(&v, p, 8); return v; }
/* Wire colours are b, g, r bytes; events carry 0x00RRGGBB. */
static inline uint32_t rd_bgr(const uint8_t *p) { return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }

static void item_fail(struct tcd_decoder *dec, const char *what)
{
    uint8_t type = dec->item[0];
    tcd_fail(dec, "%s [item %s (%u) at offset %td of frame %" PRIu64 "]", what,
             tcd_item_name(type), type, dec->item - dec->frame_items, dec->frame_index);
}

static inline void emit(struct tcd_decoder *dec, const struct tcd_event *ev)
{
    dec->stats.events++;
    if (dec->cb.on_event) dec->cb.on_event(dec->user, ev);
}

/* ---- time ------------------------------------------------------------------------- */

static inline int64_t clamp_i64(double ns)
{
    if (ns > -9.2e18 && ns < 9.2e18) return (int64_t)ns;
    return ns > 0 ? INT64_MAX : ns < 0 ? INT64_MIN : 0; /* NaN: 0 */
}

/* int64((T - initBegin) * timerMul), in f64 like the server. */
static inline int64_t trace_time(const struct tcd_decoder *dec, uint64_t t)
{
    return clamp_i64((double)(int64_t)(t - (uint64_t)dec->welcome.init_begin) * dec->welcome.timer_mul);
}

static inline int64_t thread_time(struct tcd_decoder *dec, uint64_t delta)
{
    return trace_time(dec, dec->ref_thread += delta);
}

static inline int64_t serial_time(struct tcd_decoder *dec, uint64_t delta)
{
    return trace_time(dec, dec->ref_serial += delta);
}

/* The 64-bit variant of a compact encoding (spec 8.1.2). */
static inline uint64_t delta64(const uint8_t *p)
{
    int64_t v = (int64_t)rd64(p);
    return v >= 0 ? (uint64_t)v + TCW_DELTA32_LIMIT : (uint64_t)v;
}

/* ---- threads and registers ----------------------------------------------------------- */

/* The thread a thread-bound item belongs to: the current context, noticed (and its
 * name queried) on first use, or the fiber it runs. */
static inline struct tcd_thread *current_thread(struct tcd_decoder *dec)
{
    struct tcd_thread *td = dec->ctx;
    if (!td) td = dec->ctx = tcd_notice_thread(dec, dec->ctx_tid);
    return td->fiber ? td->fiber : td;
}

static inline uint32_t check_srcloc(struct tcd_decoder *dec, uint64_t id)
{
    if (id == dec->last_srcloc_id && dec->srclocs.count) return dec->last_srcloc_index;
    uint32_t idx = tcd_map_find(dec, &dec->srcloc_ids, id);
    if (!idx) return tcd_check_srcloc(dec, id); /* new: query it */
    dec->last_srcloc_id = id;
    dec->last_srcloc_index = idx - 1;
    return idx - 1;
}

/* Zone text, name, colour and value go to the innermost zone of the current thread,
 * checked against the ZoneValidation register (spec 8.4). */
static struct tcd_thread *zone_extra_target(struct tcd_decoder *dec, const char *failure)
{
    struct tcd_thread *td = dec->ctx ? dec->ctx : tcd_find_thread(dec, dec->ctx_tid);
    if (td && td->fiber) td = td->fiber;
    if (!td || td->depth == 0 || td->next_zone_id != td->zone_ids[td->depth - 1]) {
        item_fail(dec, failure);
        return NULL;
    }
    td->next_zone_id = 0;
    return td;
}

static bool take_bytes(struct tcd_decoder *dec, struct tcd_pending_bytes *pb, const char *missing,
                       const uint8_t **s, size_t *len)
{
    if (!pb->set) {
        item_fail(dec, missing);
        return false;
    }
    pb->set = 0;
    *s = pb->data;
    *len = pb->len;
    return true;
}

static bool take_single(struct tcd_decoder *dec, const uint8_t **s, size_t *len)
{
    return take_bytes(dec, &dec->single, "no single string precedes the item that consumes it", s, len);
}

static void put_bytes(struct tcd_decoder *dec, struct tcd_pending_bytes *pb, const char *twice,
                      const uint8_t *s, size_t len)
{
    if (pb->set) {
        item_fail(dec, twice);
        return;
    }
    pb->set = 1;
    pb->data = s;
    pb->len = len;
}

/* ---- zones ---------------------------------------------------------------------------- */

static void zone_begin(struct tcd_decoder *dec, uint64_t delta, uint32_t srcloc)
{
    int64_t t = thread_time(dec, delta);
    struct tcd_thread *td = current_thread(dec);
    if (!tcd_zone_push(dec, td)) return;
    dec->stats.zones++;
    struct tcd_event *ev = &dec->zone_event;
    ev->kind = TCD_ZONE_BEGIN;
    ev->thread = td->id;
    ev->time = t;
    ev->srcloc = srcloc;
    emit(dec, ev);
}

static void zone_begin_static(struct tcd_decoder *dec, uint64_t delta, uint64_t srcloc_id)
{
    uint32_t srcloc = check_srcloc(dec, srcloc_id); /* queried before the thread, as upstream */
    zone_begin(dec, delta, srcloc);
}

static void zone_begin_alloc(struct tcd_decoder *dec, const uint8_t *it)
{
    if (!dec->pending_payload) {
        item_fail(dec, "no SourceLocationPayload precedes the zone");
        return;
    }
    uint32_t srcloc = dec->pending_payload - 1;
    dec->pending_payload = 0;
    zone_begin(dec, rd64(it + 1), srcloc);
}

static void zone_end(struct tcd_decoder *dec, uint64_t delta)
{
    struct tcd_thread *td = current_thread(dec);
    if (td->depth == 0) {
        item_fail(dec, "Zone is ended twice.");
        return;
    }
    if (td->zone_ids[--td->depth] != td->next_zone_id) {
        item_fail(dec, "Invalid order of zone begin and end events.");
        return;
    }
    td->next_zone_id = 0;
    dec->open_zones--;
    struct tcd_event *ev = &dec->zone_event;
    ev->kind = TCD_ZONE_END;
    ev->thread = td->id;
    ev->time = thread_time(dec, delta);
    ev->srcloc = 0;
    emit(dec, ev);
}

static void zone_text(struct tcd_decoder *dec, enum tcd_event_kind kind)
{
    struct tcd_thread *td = zone_extra_target(dec, kind == TCD_ZONE_TEXT
        ? "Zone text transfer destination doesn't match active zone."
        : "Zone name transfer destination doesn't match active zone.");
    const uint8_t *s;
    size_t len;
    if (!td || !take_single(dec, &s, &len)) return;
    emit(dec, &(struct tcd_event){ .kind = kind, .thread = td->id, .text = (const char *)s, .text_len = len });
}

/* ---- messages ------------------------------------------------------------------------- */

/* A tracyc client reports events dropped at its buffer limit as a Tracy-source message
 * "tracyc: dropped <count> ...". */
static void check_dropped(struct tcd_decoder *dec, const struct tcd_event *msg, uint8_t meta)
{
    static const char prefix[] = "tracyc: dropped ";
    const size_t plen = sizeof prefix - 1;
    const char *s = msg->text;
    if ((meta & 0x0f) != TCW_MESSAGE_SOURCE_TRACY || msg->text_len <= plen || memcmp(s, prefix, plen) ||
        s[plen] < '0' || s[plen] > '9')
        return;
    uint64_t count = 0;
    for (size_t i = plen; i < msg->text_len && s[i] >= '0' && s[i] <= '9'; i++)
        count = count > (UINT64_MAX - 9) / 10 ? UINT64_MAX : count * 10 + (uint64_t)(s[i] - '0');
    dec->stats.dropped += count;
    emit(dec, &(struct tcd_event){ .kind = TCD_DROPPED, .thread = msg->thread, .time = msg->time, .value = count });
}

static void message(struct tcd_decoder *dec, uint64_t time, uint32_t color, uint8_t meta)
{
    struct tcd_thread *td = current_thread(dec);
    const uint8_t *s;
    size_t len;
    if (!take_single(dec, &s, &len)) return;
    struct tcd_event ev = { .kind = TCD_MESSAGE, .thread = td->id, .time = trace_time(dec, time),
                            .color = color, .severity = meta >> 4, .format = meta & 0x0f,
                            .text = (const char *)s, .text_len = len };
    emit(dec, &ev);
    check_dropped(dec, &ev, meta);
}

/* Literal messages carry (string id << 8) | metadata. */
static void message_literal(struct tcd_decoder *dec, uint64_t time, uint32_t color, uint64_t field)
{
    struct tcd_thread *td = current_thread(dec);
    uint32_t handle = tcd_check_string(dec, field >> 8);
    const char *text = tcd_string(dec, handle);
    uint8_t meta = (uint8_t)field;
    emit(dec, &(struct tcd_event){ .kind = TCD_MESSAGE, .thread = td->id, .time = trace_time(dec, time),
                                   .id = handle, .color = color, .severity = meta >> 4,
                                   .format = meta & 0x0f, .text = text, .text_len = strlen(text) });
}

/* ---- plots and frames ------------------------------------------------------------------- */

static void plot(struct tcd_decoder *dec, const uint8_t *it, double value, int is_int)
{
    uint32_t id = tcd_check_plot(dec, rd64(it + 1));
    emit(dec, &(struct tcd_event){ .kind = TCD_PLOT, .id = id, .time = thread_time(dec, rd64(it + 9)),
                                   .dvalue = value, .is_int = (uint8_t)is_int,
                                   .value = is_int ? rd64(it + 17) : 0 });
}

static void frame_mark(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind)
{
    uint32_t set = tcd_check_frame_set(dec, rd64(it + 9), kind != TCD_FRAME_END);
    struct tcd_named *sets = dec->frame_sets.data;
    if (kind == TCD_FRAME_START && set < dec->frame_sets.count) sets[set].started = 1;
    if (kind == TCD_FRAME_END && set != 0 && (set >= dec->frame_sets.count || !sets[set].started)) {
        if (!(dec->welcome.flags & TCW_FLAG_ON_DEMAND)) item_fail(dec, "Discontinuous frame begin/end mismatch.");
        return;
    }
    emit(dec, &(struct tcd_event){ .kind = kind, .id = set, .time = trace_time(dec, rd64(it + 1)) });
}

/* ---- memory ------------------------------------------------------------------------------ */

/* Named items take their pool from the MemNamePayload just before them. */
static bool mem_pool(struct tcd_decoder *dec, bool named, uint32_t *pool)
{
    if (named != (bool)dec->mem_name_set) {
        item_fail(dec, named ? "no MemNamePayload precedes the named memory event"
                             : "a MemNamePayload precedes an unnamed memory event");
        return false;
    }
    dec->mem_name_set = 0;
    *pool = named ? tcd_check_pool(dec, dec->pending_mem_name) : 0;
    return true;
}

static void mem_alloc(struct tcd_decoder *dec, const uint8_t *it, bool named)
{
    uint32_t pool;
    if (!mem_pool(dec, named, &pool)) return;
    int64_t t = serial_time(dec, rd64(it + 1));
    uint32_t thread = rd32(it + 9);
    tcd_notice_thread(dec, thread);
    uint64_t size = rd32(it + 21) | (uint64_t)rd16(it + 25) << 32;
    emit(dec, &(struct tcd_event){ .kind = TCD_MEM_ALLOC, .thread = thread, .time = t,
                                   .address = rd64(it + 13), .value = size, .id = pool });
}

static void mem_free(struct tcd_decoder *dec, const uint8_t *it, bool named)
{
    uint32_t pool;
    if (!mem_pool(dec, named, &pool)) return;
    int64_t t = serial_time(dec, rd64(it + 1));
    uint64_t address = rd64(it + 13);
    if (address == 0) return; /* free(NULL): the server ignores it */
    uint32_t thread = rd32(it + 9);
    tcd_notice_thread(dec, thread);
    emit(dec, &(struct tcd_event){ .kind = TCD_MEM_FREE, .thread = thread, .time = t,
                                   .address = address, .id = pool });
}

static void mem_discard(struct tcd_decoder *dec, const uint8_t *it)
{
    if (dec->mem_name_set) {
        item_fail(dec, "a MemNamePayload precedes MemDiscard");
        return;
    }
    /* The server ignores an unknown pool without applying the delta (spec 8.9). */
    uint32_t pool = tcd_find_pool(dec, rd64(it + 13));
    if (!pool) return;
    int64_t t = serial_time(dec, rd64(it + 1));
    uint32_t thread = rd32(it + 9);
    tcd_notice_thread(dec, thread);
    emit(dec, &(struct tcd_event){ .kind = TCD_MEM_DISCARD, .thread = thread, .time = t, .id = pool });
}

/* ---- locks ---------------------------------------------------------------------------------- */

static struct tcd_lock *find_lock(struct tcd_decoder *dec, uint32_t id, bool shared_event)
{
    uint32_t idx = tcd_map_find(dec, &dec->lock_ids, id);
    if (!idx) {
        item_fail(dec, "lock event for a lock that was not announced");
        return NULL;
    }
    struct tcd_lock *lock = (struct tcd_lock *)dec->locks.data + idx - 1;
    if (shared_event && !lock->shared) {
        item_fail(dec, "shared lock event on a lock announced as exclusive");
        return NULL;
    }
    return lock;
}

static void lock_announce(struct tcd_decoder *dec, const uint8_t *it)
{
    uint32_t id = rd32(it + 1);
    if (tcd_map_find(dec, &dec->lock_ids, id)) {
        item_fail(dec, "lock announced twice");
        return;
    }
    struct tcd_vec *v = &dec->locks;
    if (!tcd_vec_reserve(dec, v, sizeof(struct tcd_lock), v->count + 1) ||
        !tcd_map_insert(dec, &dec->lock_ids, id, v->count + 1))
        return;
    ((struct tcd_lock *)v->data)[v->count++] = (struct tcd_lock){ .shared = it[21] != 0 };
    uint32_t srcloc = check_srcloc(dec, rd64(it + 13));
    emit(dec, &(struct tcd_event){ .kind = TCD_LOCK_ANNOUNCE, .id = id, .time = trace_time(dec, rd64(it + 5)),
                                   .srcloc = srcloc, .format = it[21] });
}

/* LockWait, LockObtain and their shared forms: u32 thread, u32 id, i64 time. */
static void lock_thread_event(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind, uint8_t shared)
{
    uint32_t id = rd32(it + 5), thread = rd32(it + 1);
    struct tcd_lock *lock = find_lock(dec, id, shared);
    if (!lock) return;
    int64_t t = serial_time(dec, rd64(it + 9));
    if (kind == TCD_LOCK_OBTAIN && !shared) lock->last_obtainer = thread;
    tcd_notice_thread(dec, thread);
    emit(dec, &(struct tcd_event){ .kind = kind, .id = id, .thread = thread, .time = t, .format = shared });
}

static void lock_release(struct tcd_decoder *dec, const uint8_t *it, uint8_t shared)
{
    uint32_t id = rd32(it + 1);
    struct tcd_lock *lock = find_lock(dec, id, shared);
    if (!lock) return;
    int64_t t = serial_time(dec, rd64(it + 5));
    /* An exclusive release names no thread: it is the last obtainer's. */
    uint32_t thread = shared ? rd32(it + 13) : lock->last_obtainer;
    if (shared) tcd_notice_thread(dec, thread);
    emit(dec, &(struct tcd_event){ .kind = TCD_LOCK_RELEASE, .id = id, .thread = thread, .time = t, .format = shared });
}

/* ---- GPU ------------------------------------------------------------------------------------- */

static struct tcd_gpu_ctx *find_gpu(struct tcd_decoder *dec, uint8_t context)
{
    if (!dec->gpu[context].created) {
        item_fail(dec, "GPU event for a context that was not created");
        return NULL;
    }
    return &dec->gpu[context];
}

static inline double gpu_scaled(const struct tcd_gpu_ctx *g, int64_t ticks)
{
    return g->has_period ? (double)g->period * (double)ticks : (double)ticks;
}

static void gpu_new_context(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = &dec->gpu[it[25]];
    if (g->created) {
        item_fail(dec, "GPU context created twice");
        return;
    }
    float period = rdf32(it + 21);
    int64_t cpu = trace_time(dec, rd64(it + 1));
    *g = (struct tcd_gpu_ctx){ .created = 1, .period = period, .has_period = period != 1.f,
                               .has_calibration = it[26] & 1, .calibration_mod = 1.0 };
    g->calibrated_gpu = clamp_i64(gpu_scaled(g, (int64_t)rd64(it + 9)));
    g->calibrated_cpu = cpu;
    g->time_diff = (int64_t)((uint64_t)cpu - (uint64_t)g->calibrated_gpu);
    emit(dec, &(struct tcd_event){ .kind = TCD_GPU_CONTEXT, .id = it[25], .thread = rd32(it + 17),
                                   .time = cpu, .format = it[27], .flags = it[26], .dvalue = period });
}

/* GpuZoneBegin*: i64 cpuTime, u32 thread, u16 query, u8 context [, u64 srcloc]. */
static void gpu_zone(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind, bool serial, int srcloc_kind)
{
    uint32_t srcloc = 0;
    if (srcloc_kind == 1) {
        srcloc = check_srcloc(dec, rd64(it + 16));
    } else if (srcloc_kind == 2) {
        if (!dec->pending_payload) {
            item_fail(dec, "no SourceLocationPayload precedes the GPU zone");
            return;
        }
        srcloc = dec->pending_payload - 1;
        dec->pending_payload = 0;
    }
    if (!find_gpu(dec, it[15])) return;
    uint64_t delta = rd64(it + 1);
    int64_t t = serial ? serial_time(dec, delta) : thread_time(dec, delta);
    emit(dec, &(struct tcd_event){ .kind = kind, .id = it[15], .query = rd16(it + 13),
                                   .thread = rd32(it + 9), .time = t, .srcloc = srcloc });
}

static void gpu_time(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[11]);
    if (!g) return;
    int64_t ticks = (int64_t)(dec->ref_gpu += rd64(it + 1));
    double scaled = gpu_scaled(g, ticks);
    int64_t ns = g->has_calibration
        ? clamp_i64((scaled - (double)g->calibrated_gpu) * g->calibration_mod + (double)g->calibrated_cpu)
        : (int64_t)((uint64_t)clamp_i64(scaled) + (uint64_t)g->time_diff);
    emit(dec, &(struct tcd_event){ .kind = TCD_GPU_TIME, .id = it[11], .query = rd16(it + 9), .time2 = ns });
}

static void gpu_calibration(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[25]);
    if (!g) return;
    int64_t gpu = clamp_i64(gpu_scaled(g, (int64_t)rd64(it + 1)));
    double gpu_delta = (double)gpu - (double)g->calibrated_gpu;
    if (gpu_delta != 0) g->calibration_mod = (double)(int64_t)rd64(it + 17) / gpu_delta;
    g->calibrated_gpu = gpu;
    g->calibrated_cpu = trace_time(dec, rd64(it + 9));
}

static void gpu_time_sync(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[17]);
    if (!g) return;
    int64_t gpu = clamp_i64(gpu_scaled(g, (int64_t)rd64(it + 1)));
    g->time_diff = (int64_t)((uint64_t)trace_time(dec, rd64(it + 9)) - (uint64_t)gpu);
}

static void gpu_context_name(struct tcd_decoder *dec, const uint8_t *it)
{
    const uint8_t *s;
    size_t len;
    if (!take_single(dec, &s, &len) || !find_gpu(dec, it[1])) return;
    emit(dec, &(struct tcd_event){ .kind = TCD_GPU_CONTEXT_NAME, .id = it[1], .text = (const char *)s, .text_len = len });
}

/* ---- fibers, crashes ---------------------------------------------------------------------- */

static void fiber_enter(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = thread_time(dec, rd64(it + 1));
    struct tcd_thread *fiber = tcd_fiber_thread(dec, rd64(it + 9));
    struct tcd_thread *td = tcd_notice_thread(dec, rd32(it + 17));
    td->fiber = fiber;
    emit(dec, &(struct tcd_event){ .kind = TCD_FIBER_ENTER, .thread = td->id, .id = fiber->id, .time = t });
}

static void fiber_leave(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = thread_time(dec, rd64(it + 1));
    struct tcd_thread *td = tcd_find_thread(dec, rd32(it + 9));
    if (!td || !td->fiber) {
        item_fail(dec, "Fiber execution stopped on a thread which is not executing a fiber.");
        return;
    }
    td->fiber = NULL;
    emit(dec, &(struct tcd_event){ .kind = TCD_FIBER_LEAVE, .thread = td->id, .time = t });
}

static void crash_report(struct tcd_decoder *dec, const uint8_t *it)
{
    uint32_t handle = tcd_check_string(dec, rd64(it + 9));
    struct tcd_thread *td = current_thread(dec);
    const char *text = tcd_string(dec, handle);
    dec->crash_reported = 1;
    emit(dec, &(struct tcd_event){ .kind = TCD_CRASH, .thread = td->id, .time = trace_time(dec, rd64(it + 1)),
                                   .id = handle, .text = text, .text_len = strlen(text) });
}

static void crash(struct tcd_decoder *dec)
{
    dec->crashed = 1;
    if (!dec->crash_reported)
        emit(dec, &(struct tcd_event){ .kind = TCD_CRASH, .thread = dec->ctx_tid, .text = "" });
}

/* ---- string-carrying items ------------------------------------------------------------------ */

static void source_location_payload(struct tcd_decoder *dec, const uint8_t *s, size_t len)
{
    if (dec->pending_payload) {
        item_fail(dec, "SourceLocationPayload while another one is pending");
        return;
    }
    const uint8_t *fn = s + 8, *fn_end, *file, *file_end;
    if (len < 8 || !(fn_end = memchr(fn, 0, len - 8)) ||
        !(file_end = memchr(file = fn_end + 1, 0, (size_t)(s + len - fn_end - 1)))) {
        item_fail(dec, "malformed SourceLocationPayload (needs colour, line, function\\0, file\\0, name)");
        return;
    }
    const uint8_t *name = file_end + 1;
    uint32_t idx = tcd_payload_srcloc(dec, rd32(s) & 0xffffff, rd32(s + 4),
                                      (const char *)fn, (size_t)(fn_end - fn),
                                      (const char *)file, (size_t)(file_end - file),
                                      (const char *)name, (size_t)(s + len - name));
    dec->pending_payload = idx + 1;
}

static void callstack_payload(struct tcd_decoder *dec)
{
    if (dec->callstack_pending) {
        item_fail(dec, "callstack payload while another one is pending");
        return;
    }
    dec->callstack_pending = 1; /* frames are not resolved: no CallstackFrame queries */
}

static void callstack(struct tcd_decoder *dec, bool thread_bound)
{
    if (!dec->callstack_pending) {
        item_fail(dec, "no callstack payload precedes the item");
        return;
    }
    dec->callstack_pending = 0;
    if (thread_bound) current_thread(dec);
}

static void frame_image(struct tcd_decoder *dec, const uint8_t *it)
{
    const uint8_t *s;
    size_t len;
    if (!take_bytes(dec, &dec->frame_image, "no FrameImageData precedes FrameImage", &s, &len)) return;
    emit(dec, &(struct tcd_event){ .kind = TCD_FRAME_IMAGE, .id = rd32(it + 1),
                                   .value = (uint64_t)rd16(it + 5) << 16 | rd16(it + 7), .flags = it[9],
                                   .text = (const char *)s, .text_len = len });
}

/* Replies to queries this decoder never sends (ExternalName, CallstackFrame, Symbol,
 * SymbolCode, SourceCode): always unsolicited. */
static void unsupported_reply(struct tcd_decoder *dec)
{
    item_fail(dec, "unsolicited reply (the decoder never asks for it)");
}

/* Items of type >= StringData: u64 ptr, u16 (u32 for the long ones) length, bytes.
 * Returns the item's total size, or 0 when it overruns the frame. */
static size_t string_transfer(struct tcd_decoder *dec, const uint8_t *it, size_t avail)
{
    uint8_t type = it[0];
    bool wide = type == TCW_FrameImageData || type == TCW_SymbolCode || type == TCW_SourceCode;
    size_t head = wide ? 13 : 11;
    if (avail < head) {
        item_fail(dec, "item straddles the end of the frame");
        return 0;
    }
    size_t len = wide ? rd32(it + 9) : rd16(it + 9);
    if (len > avail - head) {
        char msg[96];
        snprintf(msg, sizeof msg, "string length %zu overruns the frame (%zu bytes left)", len, avail - head);
        item_fail(dec, msg);
        return 0;
    }
    uint64_t id = rd64(it + 1);
    const uint8_t *s = it + head;
    switch (type) {
    case TCW_StringData: tcd_reply_string(dec, id, s, len); break;
    case TCW_ThreadName: tcd_reply_thread_name(dec, id, s, len); break;
    case TCW_PlotName: tcd_reply_plot_name(dec, id, s, len); break;
    case TCW_FrameName: tcd_reply_frame_name(dec, id, s, len); break;
    case TCW_FiberName: tcd_reply_fiber_name(dec, id, s, len); break;
    case TCW_SourceLocationPayload: source_location_payload(dec, s, len); break;
    case TCW_CallstackPayload:
    case TCW_CallstackAllocPayload: callstack_payload(dec); break;
    case TCW_FrameImageData:
        put_bytes(dec, &dec->frame_image, "FrameImageData while another one is pending", s, len);
        break;
    default: /* ExternalName, ExternalThreadName, SymbolCode, SourceCode */
        unsupported_reply(dec);
        break;
    }
    return head + len;
}

/* SingleStringData(8) / SecondStringData(8). Returns the item's size, 0 on error. */
static size_t attached_string(struct tcd_decoder *dec, const uint8_t *it, size_t avail)
{
    uint8_t type = it[0];
    bool narrow = type == TCW_SingleStringData8 || type == TCW_SecondStringData8;
    size_t head = narrow ? 2 : 3;
    if (avail < head) {
        item_fail(dec, "item straddles the end of the frame");
        return 0;
    }
    size_t len = narrow ? it[1] : (size_t)rd16(it + 1) + 256;
    if (len > TCW_MAX_STRING) {
        item_fail(dec, "string length overflow (the 16-bit form stores length - 256)");
        return 0;
    }
    if (len > avail - head) {
        item_fail(dec, "string length overruns the frame");
        return 0;
    }
    bool second = type == TCW_SecondStringData || type == TCW_SecondStringData8;
    put_bytes(dec, second ? &dec->second : &dec->single,
              "two single (or second) strings in a row", it + head, len);
    return head + len;
}

/* ---- the frame loop ---------------------------------------------------------------------------- */

void tcd_parse_items(struct tcd_decoder *dec, const uint8_t *p, size_t n)
{
    size_t off = 0;
    dec->frame_items = p;
    while (off < n) {
        const uint8_t *it = p + off;
        const size_t avail = n - off;
        const uint8_t type = it[0];
        dec->item = it;
        if (type >= TCW_NUM_TYPES) {
            item_fail(dec, "unknown item type");
            return;
        }
        size_t size = tcw_item_size[type];
        if (avail < size) {
            item_fail(dec, "item straddles the end of the frame");
            return;
        }
        switch ((enum tcw_type)type) {
        case TCW_ZoneBegin16:
        case TCW_ZoneBeginCallstack16: zone_begin_static(dec, rd16(it + 1), rd64(it + 3)); break;
        case TCW_ZoneBegin32:
        case TCW_ZoneBeginCallstack32: zone_begin_static(dec, rd32(it + 1) + (uint64_t)TCW_DELTA16_LIMIT, rd64(it + 5)); break;
        case TCW_ZoneBegin:
        case TCW_ZoneBeginCallstack: zone_begin_static(dec, delta64(it + 1), rd64(it + 9)); break;
        case TCW_ZoneBeginAllocSrcLoc:
        case TCW_ZoneBeginAllocSrcLocCallstack: zone_begin_alloc(dec, it); break;
        case TCW_ZoneEnd16: zone_end(dec, rd16(it + 1)); break;
        case TCW_ZoneEnd32: zone_end(dec, rd32(it + 1) + (uint64_t)TCW_DELTA16_LIMIT); break;
        case TCW_ZoneEnd: zone_end(dec, delta64(it + 1)); break;
        case TCW_ZoneValidation: current_thread(dec)->next_zone_id = rd32(it + 1); break;
        case TCW_ZoneText: zone_text(dec, TCD_ZONE_TEXT); break;
        case TCW_ZoneName: zone_text(dec, TCD_ZONE_NAME); break;
        case TCW_ZoneColor: {
            struct tcd_thread *td = zone_extra_target(dec, "Zone color transfer destination doesn't match active zone.");
            if (td) emit(dec, &(struct tcd_event){ .kind = TCD_ZONE_COLOR, .thread = td->id, .color = rd_bgr(it + 1) });
            break;
        }
        case TCW_ZoneValue: {
            struct tcd_thread *td = zone_extra_target(dec, "Zone value transfer destination doesn't match active zone.");
            if (td) emit(dec, &(struct tcd_event){ .kind = TCD_ZONE_VALUE, .thread = td->id, .value = rd64(it + 1) });
            break;
        }
        case TCW_ThreadContext: {
            uint32_t tid = rd32(it + 1);
            dec->ref_thread = 0;
            if (tid != dec->ctx_tid) {
                dec->ctx_tid = tid;
                dec->ctx = tcd_find_thread(dec, tid);
            }
            break;
        }

        case TCW_Message:
        case TCW_MessageCallstack: message(dec, rd64(it + 1), 0, it[9]); break;
        case TCW_MessageColor:
        case TCW_MessageColorCallstack: message(dec, rd64(it + 1), rd_bgr(it + 9), it[12]); break;
        case TCW_MessageLiteral:
        case TCW_MessageLiteralCallstack: message_literal(dec, rd64(it + 1), 0, rd64(it + 9)); break;
        case TCW_MessageLiteralColor:
        case TCW_MessageLiteralColorCallstack: message_literal(dec, rd64(it + 1), rd_bgr(it + 9), rd64(it + 12)); break;
        case TCW_MessageAppInfo: {
            const uint8_t *s;
            size_t len;
            if (take_single(dec, &s, &len))
                emit(dec, &(struct tcd_event){ .kind = TCD_APP_INFO, .time = trace_time(dec, rd64(it + 1)),
                                               .text = (const char *)s, .text_len = len });
            break;
        }

        case TCW_PlotDataInt: plot(dec, it, (double)(int64_t)rd64(it + 17), 1); break;
        case TCW_PlotDataFloat: {
            float v = rdf32(it + 17);
            if (isfinite(v)) plot(dec, it, v, 0); /* the server drops these before the delta */
            break;
        }
        case TCW_PlotDataDouble: {
            double v = rdf64(it + 17);
            if (isfinite(v)) plot(dec, it, v, 0);
            break;
        }
        case TCW_PlotConfig: {
            uint32_t id = tcd_check_plot(dec, rd64(it + 1));
            emit(dec, &(struct tcd_event){ .kind = TCD_PLOT_CONFIG, .id = id, .format = it[9],
                                           .flags = (uint8_t)((it[10] ? 1 : 0) | (it[11] ? 2 : 0)),
                                           .color = rd32(it + 12) & 0xffffff });
            break;
        }

        case TCW_FrameMarkMsg: frame_mark(dec, it, TCD_FRAME_MARK); break;
        case TCW_FrameMarkMsgStart: frame_mark(dec, it, TCD_FRAME_START); break;
        case TCW_FrameMarkMsgEnd: frame_mark(dec, it, TCD_FRAME_END); break;
        case TCW_FrameImage: frame_image(dec, it); break;

        case TCW_MemAlloc:
        case TCW_MemAllocCallstack: mem_alloc(dec, it, false); break;
        case TCW_MemAllocNamed:
        case TCW_MemAllocCallstackNamed: mem_alloc(dec, it, true); break;
        case TCW_MemFree:
        case TCW_MemFreeCallstack: mem_free(dec, it, false); break;
        case TCW_MemFreeNamed:
        case TCW_MemFreeCallstackNamed: mem_free(dec, it, true); break;
        case TCW_MemDiscard:
        case TCW_MemDiscardCallstack: mem_discard(dec, it); break;
        case TCW_MemNamePayload:
            if (dec->mem_name_set) {
                item_fail(dec, "MemNamePayload while another one is pending");
                break;
            }
            dec->mem_name_set = 1;
            dec->pending_mem_name = rd64(it + 1);
            break;

        case TCW_LockAnnounce: lock_announce(dec, it); break;
        case TCW_LockTerminate:
            if (find_lock(dec, rd32(it + 1), false))
                emit(dec, &(struct tcd_event){ .kind = TCD_LOCK_TERMINATE, .id = rd32(it + 1),
                                               .time = trace_time(dec, rd64(it + 5)) });
            break;
        case TCW_LockWait: lock_thread_event(dec, it, TCD_LOCK_WAIT, 0); break;
        case TCW_LockObtain: lock_thread_event(dec, it, TCD_LOCK_OBTAIN, 0); break;
        case TCW_LockSharedWait: lock_thread_event(dec, it, TCD_LOCK_WAIT, 1); break;
        case TCW_LockSharedObtain: lock_thread_event(dec, it, TCD_LOCK_OBTAIN, 1); break;
        case TCW_LockRelease: lock_release(dec, it, 0); break;
        case TCW_LockSharedRelease: lock_release(dec, it, 1); break;
        case TCW_LockMark: {
            uint32_t srcloc = check_srcloc(dec, rd64(it + 9));
            if (find_lock(dec, rd32(it + 5), false))
                emit(dec, &(struct tcd_event){ .kind = TCD_LOCK_MARK, .id = rd32(it + 5), .thread = rd32(it + 1),
                                               .srcloc = srcloc });
            break;
        }
        case TCW_LockName: {
            const uint8_t *s;
            size_t len;
            if (take_single(dec, &s, &len) && find_lock(dec, rd32(it + 1), false))
                emit(dec, &(struct tcd_event){ .kind = TCD_LOCK_NAME, .id = rd32(it + 1),
                                               .text = (const char *)s, .text_len = len });
            break;
        }

        case TCW_GpuNewContext: gpu_new_context(dec, it); break;
        case TCW_GpuZoneBegin:
        case TCW_GpuZoneBeginCallstack: gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, false, 1); break;
        case TCW_GpuZoneBeginSerial:
        case TCW_GpuZoneBeginCallstackSerial: gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, true, 1); break;
        case TCW_GpuZoneBeginAllocSrcLoc:
        case TCW_GpuZoneBeginAllocSrcLocCallstack: gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, false, 2); break;
        case TCW_GpuZoneBeginAllocSrcLocSerial:
        case TCW_GpuZoneBeginAllocSrcLocCallstackSerial: gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, true, 2); break;
        case TCW_GpuZoneEnd: gpu_zone(dec, it, TCD_GPU_ZONE_END, false, 0); break;
        case TCW_GpuZoneEndSerial: gpu_zone(dec, it, TCD_GPU_ZONE_END, true, 0); break;
        case TCW_GpuTime: gpu_time(dec, it); break;
        case TCW_GpuCalibration: gpu_calibration(dec, it); break;
        case TCW_GpuTimeSync: gpu_time_sync(dec, it); break;
        case TCW_GpuContextName: gpu_context_name(dec, it); break;
        case TCW_GpuAnnotationName: {
            const uint8_t *s;
            size_t len;
            if (take_single(dec, &s, &len)) find_gpu(dec, it[9]);
            break;
        }
        case TCW_GpuZoneAnnotation: find_gpu(dec, it[23]); break;

        case TCW_FiberEnter: fiber_enter(dec, it); break;
        case TCW_FiberLeave: fiber_leave(dec, it); break;
        case TCW_SectionEnter: {
            const uint8_t *s;
            size_t len;
            thread_time(dec, rd64(it + 1));
            take_single(dec, &s, &len);
            break;
        }
        case TCW_SectionLeave: thread_time(dec, rd64(it + 1)); break;
        case TCW_SectionSetup: {
            const uint8_t *s;
            size_t len;
            take_single(dec, &s, &len);
            break;
        }

        case TCW_CallstackPayload:
        case TCW_CallstackAllocPayload:
        case TCW_SourceLocationPayload:
        case TCW_FrameImageData:
        case TCW_StringData:
        case TCW_ThreadName:
        case TCW_PlotName:
        case TCW_FrameName:
        case TCW_FiberName:
        case TCW_ExternalName:
        case TCW_ExternalThreadName:
        case TCW_SymbolCode:
        case TCW_SourceCode: size = string_transfer(dec, it, avail); break;
        case TCW_SingleStringData:
        case TCW_SecondStringData:
        case TCW_SingleStringData8:
        case TCW_SecondStringData8: size = attached_string(dec, it, avail); break;
        case TCW_SourceLocation:
            tcd_reply_srcloc(dec, rd64(it + 1), rd64(it + 9), rd64(it + 17), rd32(it + 25), rd_bgr(it + 29));
            break;
        case TCW_AckServerQueryNoop:
        case TCW_AckSourceCodeNotAvailable:
        case TCW_AckSymbolCodeNotAvailable: tcd_reply_ack(dec, type); break;
        case TCW_CallstackFrameSize:
        case TCW_CallstackFrame:
        case TCW_SymbolInformation: unsupported_reply(dec); break;

        case TCW_CallstackSerial: callstack(dec, false); break;
        case TCW_Callstack:
        case TCW_CallstackAlloc: callstack(dec, true); break;
        case TCW_CrashReport: crash_report(dec, it); break;
        case TCW_Crash: crash(dec); break;
        case TCW_Terminate: dec->terminated = 1; break;
        case TCW_ParamSetup: tcd_check_string(dec, rd64(it + 5)); break;
        case TCW_SysPowerReport: tcd_check_string(dec, rd64(it + 17)); break;

        /* System-tracer and informational items: no event; parsed for their size. */
        case TCW_KeepAlive:
        case TCW_FrameVsync:
        case TCW_ThreadGroupHint:
        case TCW_CpuTopology:
        case TCW_SysTimeReport:
        case TCW_TidToPid:
        case TCW_ContextSwitch:
        case TCW_ThreadWakeup:
        case TCW_CallstackSample:
        case TCW_CallstackSample32:
        case TCW_CallstackSample16:
        case TCW_CallstackSampleContextSwitch:
        case TCW_CallstackSampleContextSwitch32:
        case TCW_CallstackSampleContextSwitch16:
        case TCW_HwSampleCpuCycle:
        case TCW_HwSampleInstructionRetired:
        case TCW_HwSampleCacheReference:
        case TCW_HwSampleCacheMiss:
        case TCW_HwSampleBranchRetired:
        case TCW_HwSampleBranchMiss: break;

        case TCW_ExternalNameMetadata:
        case TCW_SymbolCodeMetadata:
        case TCW_SourceCodeMetadata:
        case TCW_NUM_TYPES:
            item_fail(dec, "client-internal item type that never appears on the wire");
            break;
        }
        if (dec->state == TCD_STATE_FAILED) return;
        off += size;
    }
}
