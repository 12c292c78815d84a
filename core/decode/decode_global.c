/* decode_global.c - memory, lock and GPU items: they carry their own thread id (or none)
 * instead of using the current thread context; memory and lock items (and the serial GPU
 * items) run on the serial time chain. */
#include "decode/decode_callstacks.h"
#include "decode/decode_global.h"
#include "decode/decode_item.h"

/* ---- memory ------------------------------------------------------------------------------ */

/* Named items take their pool from the MemNamePayload just before them. */
static int mem_pool(struct tcd_decoder *dec, bool named, uint32_t *pool)
{
    if (named != (bool)dec->mem_name_set) {
        tcd_item_fail(dec, named ? "no MemNamePayload precedes the named memory event"
                                 : "a MemNamePayload precedes an unnamed memory event");
        return -1;
    }
    dec->mem_name_set = 0;
    *pool = named ? tcd_check_pool(dec, dec->pending_mem_name) : 0;
    return 0;
}

/* The callstack of a *Callstack memory item: the serial one (0 and FAILED when missing). */
static int mem_callstack(struct tcd_decoder *dec, bool with_callstack, uint32_t *callstack)
{
    *callstack = with_callstack ? tcd_take_serial_callstack(dec) : 0;
    return !with_callstack || *callstack ? 0 : -1;
}

static void mem_alloc(struct tcd_decoder *dec, const uint8_t *it, bool named, bool with_callstack)
{
    uint32_t pool, callstack;
    if (mem_pool(dec, named, &pool) != 0 || mem_callstack(dec, with_callstack, &callstack) != 0)
        return;
    int64_t t = tcd_serial_time(dec, tcu_rd64(it + 1));
    uint32_t thread = tcu_rd32(it + 9);
    tcd_notice_thread(dec, thread);
    uint64_t size = tcu_rd32(it + 21) | (uint64_t)tcu_rd16(it + 25) << 32;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_MEM_ALLOC,
                                      .thread = thread,
                                      .time = t,
                                      .address = tcu_rd64(it + 13),
                                      .value = size,
                                      .id = pool,
                                      .callstack = callstack});
}

static void mem_free(struct tcd_decoder *dec, const uint8_t *it, bool named, bool with_callstack)
{
    uint32_t pool, callstack;
    if (mem_pool(dec, named, &pool) != 0 || mem_callstack(dec, with_callstack, &callstack) != 0)
        return;
    int64_t t = tcd_serial_time(dec, tcu_rd64(it + 1));
    uint64_t address = tcu_rd64(it + 13);
    if (address == 0)
        return; /* free(NULL): the server ignores it */
    uint32_t thread = tcu_rd32(it + 9);
    tcd_notice_thread(dec, thread);
    tcd_emit(
        dec,
        &(struct tcd_event){
            .kind = TCD_MEM_FREE, .thread = thread, .time = t, .address = address, .id = pool, .callstack = callstack});
}

static void mem_discard(struct tcd_decoder *dec, const uint8_t *it, bool with_callstack)
{
    uint32_t callstack;
    if (mem_callstack(dec, with_callstack, &callstack) != 0)
        return;
    if (dec->mem_name_set) {
        tcd_item_fail(dec, "a MemNamePayload precedes MemDiscard");
        return;
    }
    /* The server ignores an unknown pool without applying the delta (docs/protocol.md §15). */
    uint32_t pool = tcd_find_pool(dec, tcu_rd64(it + 13));
    if (!pool)
        return;
    int64_t t = tcd_serial_time(dec, tcu_rd64(it + 1));
    uint32_t thread = tcu_rd32(it + 9);
    tcd_notice_thread(dec, thread);
    tcd_emit(dec, &(struct tcd_event){
                      .kind = TCD_MEM_DISCARD, .thread = thread, .time = t, .id = pool, .callstack = callstack});
}

/* ---- locks ---------------------------------------------------------------------------------- */

static struct tcd_lock *find_lock(struct tcd_decoder *dec, uint32_t id, bool shared_event)
{
    const uint64_t *index = tcu_map_get(&dec->lock_ids, id);
    if (!index) {
        tcd_item_fail(dec, "lock event for a lock that was not announced");
        return NULL;
    }
    struct tcd_lock *lock = tcu_array_at(&dec->locks, *index);
    if (shared_event && !lock->shared) {
        tcd_item_fail(dec, "shared lock event on a lock announced as exclusive");
        return NULL;
    }
    return lock;
}

static void lock_announce(struct tcd_decoder *dec, const uint8_t *it)
{
    uint32_t id = tcu_rd32(it + 1);
    if (tcu_map_get(&dec->lock_ids, id)) {
        tcd_item_fail(dec, "lock announced twice");
        return;
    }
    struct tcd_lock *lock = tcd_table_add(dec, &dec->locks, &dec->lock_ids, id);
    if (!lock)
        return;
    lock->shared = it[21] != 0;
    uint32_t srcloc = tcd_item_srcloc(dec, tcu_rd64(it + 13));
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_LOCK_ANNOUNCE,
                                      .id = id,
                                      .time = tcd_trace_time(dec, tcu_rd64(it + 5)),
                                      .srcloc = srcloc,
                                      .format = it[21]});
}

/* LockWait, LockObtain and their shared forms: u32 thread, u32 id, i64 time. */
static void lock_thread_event(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind, uint8_t shared)
{
    uint32_t id = tcu_rd32(it + 5), thread = tcu_rd32(it + 1);
    struct tcd_lock *lock = find_lock(dec, id, shared);
    if (!lock)
        return;
    int64_t t = tcd_serial_time(dec, tcu_rd64(it + 9));
    if (kind == TCD_LOCK_OBTAIN && !shared)
        lock->last_obtainer = thread;
    tcd_notice_thread(dec, thread);
    tcd_emit(dec, &(struct tcd_event){.kind = kind, .id = id, .thread = thread, .time = t, .format = shared});
}

static void lock_release(struct tcd_decoder *dec, const uint8_t *it, uint8_t shared)
{
    uint32_t id = tcu_rd32(it + 1);
    struct tcd_lock *lock = find_lock(dec, id, shared);
    if (!lock)
        return;
    int64_t t = tcd_serial_time(dec, tcu_rd64(it + 5));
    /* An exclusive release names no thread: it is the last obtainer's. */
    uint32_t thread = shared ? tcu_rd32(it + 13) : lock->last_obtainer;
    if (shared)
        tcd_notice_thread(dec, thread);
    tcd_emit(dec,
             &(struct tcd_event){.kind = TCD_LOCK_RELEASE, .id = id, .thread = thread, .time = t, .format = shared});
}

/* ---- GPU ------------------------------------------------------------------------------------- */

static struct tcd_gpu_ctx *find_gpu(struct tcd_decoder *dec, uint8_t context)
{
    if (!dec->gpu[context].created) {
        tcd_item_fail(dec, "GPU event for a context that was not created");
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
        tcd_item_fail(dec, "GPU context created twice");
        return;
    }
    float period = tcu_rdf32(it + 21);
    int64_t cpu = tcd_trace_time(dec, tcu_rd64(it + 1));
    *g = (struct tcd_gpu_ctx){.created = 1,
                              .period = period,
                              .has_period = period != 1.f,
                              .has_calibration = it[26] & 1,
                              .calibration_mod = 1.0};
    g->calibrated_gpu = tcd_clamp_i64(gpu_scaled(g, (int64_t)tcu_rd64(it + 9)));
    g->calibrated_cpu = cpu;
    g->time_diff = (int64_t)((uint64_t)cpu - (uint64_t)g->calibrated_gpu);
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_GPU_CONTEXT,
                                      .id = it[25],
                                      .thread = tcu_rd32(it + 17),
                                      .time = cpu,
                                      .format = it[27],
                                      .flags = it[26],
                                      .dvalue = period});
}

/* GpuZoneBegin*: i64 cpuTime, u32 thread, u16 query, u8 context [, u64 srcloc]. The
 * *Callstack forms take the serial callstack (serial items) or the current thread's. */
static void gpu_zone(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind, bool serial, int srcloc_kind,
                     bool with_callstack)
{
    uint32_t srcloc = 0, callstack = 0;
    if (srcloc_kind == 1) {
        srcloc = tcd_item_srcloc(dec, tcu_rd64(it + 16));
    } else if (srcloc_kind == 2) {
        if (!dec->pending_payload) {
            tcd_item_fail(dec, "no SourceLocationPayload precedes the GPU zone");
            return;
        }
        srcloc = dec->pending_payload - 1;
        dec->pending_payload = 0;
    }
    if (!find_gpu(dec, it[15]))
        return;
    if (with_callstack) {
        callstack = serial ? tcd_take_serial_callstack(dec) : tcd_take_thread_callstack(dec, true);
        if (!callstack)
            return;
    }
    uint64_t delta = tcu_rd64(it + 1);
    int64_t t = serial ? tcd_serial_time(dec, delta) : tcd_thread_time(dec, delta);
    tcd_emit(dec, &(struct tcd_event){.kind = kind,
                                      .id = it[15],
                                      .query = tcu_rd16(it + 13),
                                      .thread = tcu_rd32(it + 9),
                                      .time = t,
                                      .srcloc = srcloc,
                                      .callstack = callstack});
}

static void gpu_time(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[11]);
    if (!g)
        return;
    int64_t ticks = (int64_t)(dec->ref_gpu += tcu_rd64(it + 1));
    double scaled = gpu_scaled(g, ticks);
    int64_t ns =
        g->has_calibration
            ? tcd_clamp_i64((scaled - (double)g->calibrated_gpu) * g->calibration_mod + (double)g->calibrated_cpu)
            : (int64_t)((uint64_t)tcd_clamp_i64(scaled) + (uint64_t)g->time_diff);
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_GPU_TIME, .id = it[11], .query = tcu_rd16(it + 9), .time2 = ns});
}

static void gpu_calibration(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[25]);
    if (!g)
        return;
    int64_t gpu = tcd_clamp_i64(gpu_scaled(g, (int64_t)tcu_rd64(it + 1)));
    double gpu_delta = (double)gpu - (double)g->calibrated_gpu;
    if (gpu_delta != 0)
        g->calibration_mod = (double)(int64_t)tcu_rd64(it + 17) / gpu_delta;
    g->calibrated_gpu = gpu;
    g->calibrated_cpu = tcd_trace_time(dec, tcu_rd64(it + 9));
}

static void gpu_time_sync(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_gpu_ctx *g = find_gpu(dec, it[17]);
    if (!g)
        return;
    int64_t gpu = tcd_clamp_i64(gpu_scaled(g, (int64_t)tcu_rd64(it + 1)));
    g->time_diff = (int64_t)((uint64_t)tcd_trace_time(dec, tcu_rd64(it + 9)) - (uint64_t)gpu);
}

static void gpu_context_name(struct tcd_decoder *dec, const uint8_t *it)
{
    const uint8_t *s;
    size_t len;
    if (tcd_take_single(dec, &s, &len) != 0 || !find_gpu(dec, it[1]))
        return;
    tcd_emit(dec,
             &(struct tcd_event){.kind = TCD_GPU_CONTEXT_NAME, .id = it[1], .text = (const char *)s, .text_len = len});
}

void tcd_parse_global_item(struct tcd_decoder *dec, uint8_t type, const uint8_t *it)
{
    switch ((enum tcw_type)type) {
    case TCW_MemAlloc:
        mem_alloc(dec, it, false, false);
        break;
    case TCW_MemAllocCallstack:
        mem_alloc(dec, it, false, true);
        break;
    case TCW_MemAllocNamed:
        mem_alloc(dec, it, true, false);
        break;
    case TCW_MemAllocCallstackNamed:
        mem_alloc(dec, it, true, true);
        break;
    case TCW_MemFree:
        mem_free(dec, it, false, false);
        break;
    case TCW_MemFreeCallstack:
        mem_free(dec, it, false, true);
        break;
    case TCW_MemFreeNamed:
        mem_free(dec, it, true, false);
        break;
    case TCW_MemFreeCallstackNamed:
        mem_free(dec, it, true, true);
        break;
    case TCW_MemDiscard:
        mem_discard(dec, it, false);
        break;
    case TCW_MemDiscardCallstack:
        mem_discard(dec, it, true);
        break;
    case TCW_MemNamePayload:
        if (dec->mem_name_set) {
            tcd_item_fail(dec, "MemNamePayload while another one is pending");
            break;
        }
        dec->mem_name_set = 1;
        dec->pending_mem_name = tcu_rd64(it + 1);
        break;

    case TCW_LockAnnounce:
        lock_announce(dec, it);
        break;
    case TCW_LockTerminate:
        if (find_lock(dec, tcu_rd32(it + 1), false))
            tcd_emit(dec, &(struct tcd_event){.kind = TCD_LOCK_TERMINATE,
                                              .id = tcu_rd32(it + 1),
                                              .time = tcd_trace_time(dec, tcu_rd64(it + 5))});
        break;
    case TCW_LockWait:
        lock_thread_event(dec, it, TCD_LOCK_WAIT, 0);
        break;
    case TCW_LockObtain:
        lock_thread_event(dec, it, TCD_LOCK_OBTAIN, 0);
        break;
    case TCW_LockSharedWait:
        lock_thread_event(dec, it, TCD_LOCK_WAIT, 1);
        break;
    case TCW_LockSharedObtain:
        lock_thread_event(dec, it, TCD_LOCK_OBTAIN, 1);
        break;
    case TCW_LockRelease:
        lock_release(dec, it, 0);
        break;
    case TCW_LockSharedRelease:
        lock_release(dec, it, 1);
        break;
    case TCW_LockMark: {
        uint32_t srcloc = tcd_item_srcloc(dec, tcu_rd64(it + 9));
        if (find_lock(dec, tcu_rd32(it + 5), false))
            tcd_emit(dec,
                     &(struct tcd_event){
                         .kind = TCD_LOCK_MARK, .id = tcu_rd32(it + 5), .thread = tcu_rd32(it + 1), .srcloc = srcloc});
        break;
    }
    case TCW_LockName: {
        const uint8_t *s;
        size_t len;
        if (tcd_take_single(dec, &s, &len) == 0 && find_lock(dec, tcu_rd32(it + 1), false))
            tcd_emit(dec, &(struct tcd_event){
                              .kind = TCD_LOCK_NAME, .id = tcu_rd32(it + 1), .text = (const char *)s, .text_len = len});
        break;
    }

    case TCW_GpuNewContext:
        gpu_new_context(dec, it);
        break;
    case TCW_GpuZoneBegin:
    case TCW_GpuZoneBeginCallstack:
        gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, false, 1, it[0] == TCW_GpuZoneBeginCallstack);
        break;
    case TCW_GpuZoneBeginSerial:
    case TCW_GpuZoneBeginCallstackSerial:
        gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, true, 1, it[0] == TCW_GpuZoneBeginCallstackSerial);
        break;
    case TCW_GpuZoneBeginAllocSrcLoc:
    case TCW_GpuZoneBeginAllocSrcLocCallstack:
        gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, false, 2, it[0] == TCW_GpuZoneBeginAllocSrcLocCallstack);
        break;
    case TCW_GpuZoneBeginAllocSrcLocSerial:
    case TCW_GpuZoneBeginAllocSrcLocCallstackSerial:
        gpu_zone(dec, it, TCD_GPU_ZONE_BEGIN, true, 2, it[0] == TCW_GpuZoneBeginAllocSrcLocCallstackSerial);
        break;
    case TCW_GpuZoneEnd:
        gpu_zone(dec, it, TCD_GPU_ZONE_END, false, 0, false);
        break;
    case TCW_GpuZoneEndSerial:
        gpu_zone(dec, it, TCD_GPU_ZONE_END, true, 0, false);
        break;
    case TCW_GpuTime:
        gpu_time(dec, it);
        break;
    case TCW_GpuCalibration:
        gpu_calibration(dec, it);
        break;
    case TCW_GpuTimeSync:
        gpu_time_sync(dec, it);
        break;
    case TCW_GpuContextName:
        gpu_context_name(dec, it);
        break;
    case TCW_GpuAnnotationName: {
        const uint8_t *s;
        size_t len;
        if (tcd_take_single(dec, &s, &len) == 0)
            find_gpu(dec, it[9]);
        break;
    }
    case TCW_GpuZoneAnnotation:
        find_gpu(dec, it[23]);
        break;
    default:
        break; /* every other type is parsed in decode_items.c */
    }
}
