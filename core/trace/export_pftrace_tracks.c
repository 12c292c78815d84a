/* export_pftrace_tracks.c - the tracks of the Perfetto output: a TrackDescriptor for each,
 * written before the first event on it, on its source's sequence.
 *
 *   a source         its process (ProcessDescriptor: pid, program name; app info as labels),
 *                    what made its capture incomplete in the track's description
 *   a thread         ThreadDescriptor: pid, tid, name (so Perfetto joins it with the same
 *                    thread's scheduling events and samples)
 *   a plot           a counter track in the process: bytes for memory plots, "%" for
 *                    percentages, "W" for watts, no unit for numbers
 *   a frame set      a track in the process, named after the set
 *   a GPU context    a track in the process: "GPU context <id>: <name>", one per thread for a
 *                    context not bound to one thread (their zones nest per thread)
 *   a memory pool    a counter track of bytes in the process: "memory" (the default pool) or
 *                    "memory: <pool>"
 *   a lock           a track per thread that used it, beside that thread's: "lock: <name>"
 */
#include "trace/export_pftrace.h"
#include "trace/names.h"
#include "util/array.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* 1 when index was not marked yet (and is now), 0 when it was, -1 when memory ran out. */
static int mark_once(struct tct_pftrace *p, uint8_t **marks, size_t *cap, size_t index)
{
    if (index >= *cap) {
        size_t old = *cap;
        uint8_t *grown = tcu_grow(NULL, *marks, cap, index + 1, 1);
        if (!grown) {
            p->failed = 1;
            return -1;
        }
        memset(grown + old, 0, *cap - old);
        *marks = grown;
    }
    if ((*marks)[index])
        return 0;
    (*marks)[index] = 1;
    return 1;
}

static uint64_t pid_of(const struct tct_pftrace *p, uint32_t source)
{
    return tct_source_pid(p->trace, source);
}

/* A descriptor packet: its fields follow, then descriptor_end. */
static size_t descriptor_begin(struct tct_pftrace *p, uint32_t source, uint64_t uuid, size_t *packet)
{
    *packet = tct_pf_packet_begin(p, tct_pf_sequence(source), TCT_TIME_NONE, 0);
    size_t m = tct_pb_begin(&p->pb, PF_PACKET_TRACK_DESCRIPTOR);
    tct_pb_varint(&p->pb, PF_TRACK_UUID, uuid);
    return m;
}

static void descriptor_end(struct tct_pftrace *p, size_t m, size_t packet)
{
    tct_pb_end(&p->pb, m);
    tct_pf_packet_end(p, packet);
}

/* A track in its source's process. */
static size_t child_begin(struct tct_pftrace *p, uint32_t source, uint64_t uuid, const char *name, size_t *packet)
{
    size_t m = descriptor_begin(p, source, uuid, packet);
    tct_pb_varint(&p->pb, PF_TRACK_PARENT, tct_pf_track_uuid(PF_TRACK_KIND_PROCESS, source));
    tct_pb_string(&p->pb, PF_TRACK_NAME, name ? name : "");
    return m;
}

static void counter(struct tct_pftrace *p, uint64_t unit, const char *unit_name)
{
    size_t m = tct_pb_begin(&p->pb, PF_TRACK_COUNTER);
    if (unit)
        tct_pb_varint(&p->pb, PF_COUNTER_UNIT, unit);
    if (unit_name)
        tct_pb_string(&p->pb, PF_COUNTER_UNIT_NAME, unit_name);
    tct_pb_end(&p->pb, m);
}

/* What a source's capture missed, for its process track's description ("" when nothing). */
static void incomplete(const struct tct_source *src, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
#define NOTE(...) (n += (size_t)snprintf(out + n, n < size ? size - n : 0, __VA_ARGS__), n = n < size ? n : size)
    if (src->incomplete)
        NOTE("Capture incomplete: %s. ", src->incomplete);
    if (src->dropped)
        NOTE("The client dropped %" PRIu64 " events. ", src->dropped);
    if (src->samples_lost)
        NOTE("The client lost %" PRIu64 " CPU samples. ", src->samples_lost);
    if (src->plot_skipped)
        NOTE("The client skipped %" PRIu64 " plot values (NaN, infinity). ", src->plot_skipped);
    if (src->unfinished_zones)
        NOTE("%" PRIu64 " zones were still open when the capture ended. ", src->unfinished_zones);
#undef NOTE
}

void tct_pf_process_tracks(struct tct_pftrace *p)
{
    for (uint32_t i = 0; i < p->source_count; i++) {
        const struct tct_source *src = tct_trace_source(p->trace, i);
        char program[TCT_SOURCE_LABEL], notes[1024];
        tct_source_process_name(p->trace, i, program);
        size_t packet, m = descriptor_begin(p, i, tct_pf_track_uuid(PF_TRACK_KIND_PROCESS, i), &packet);
        size_t process = tct_pb_begin(&p->pb, PF_TRACK_PROCESS);
        tct_pb_int(&p->pb, PF_PROCESS_PID, (int32_t)pid_of(p, i));
        tct_pb_string(&p->pb, PF_PROCESS_NAME, program);
        for (size_t k = 0; k < src->app_info_count; k++)
            tct_pb_string(&p->pb, PF_PROCESS_LABELS, src->app_info[k]);
        tct_pb_end(&p->pb, process);
        incomplete(src, notes, sizeof notes);
        if (notes[0])
            tct_pb_string(&p->pb, PF_TRACK_DESCRIPTION, notes);
        descriptor_end(p, m, packet);
    }
}

static void thread_descriptor(struct tct_pftrace *p, uint32_t source, uint32_t tid, uint64_t uuid)
{
    const struct tct_names *names = &tct_trace_source(p->trace, source)->names;
    const char *name = names->thread(names->ctx, tid);
    size_t packet, m = descriptor_begin(p, source, uuid, &packet);
    size_t thread = tct_pb_begin(&p->pb, PF_TRACK_THREAD);
    tct_pb_int(&p->pb, PF_THREAD_PID, (int32_t)pid_of(p, source));
    tct_pb_int(&p->pb, PF_THREAD_TID, tid); /* a fiber's virtual id too: no OS thread has it */
    if (name && name[0])
        tct_pb_string(&p->pb, PF_THREAD_NAME, name);
    tct_pb_end(&p->pb, thread);
    descriptor_end(p, m, packet);
}

uint64_t tct_pf_thread_track(struct tct_pftrace *p, const struct tct_thread *t)
{
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_THREAD, t->index);
    if (mark_once(p, &p->described_thread, &p->thread_cap, t->index) == 1)
        thread_descriptor(p, t->source, t->id, uuid);
    return uuid;
}

uint64_t tct_pf_thread_track_of(struct tct_pftrace *p, uint32_t source, uint32_t tid)
{
    const struct tct_thread *t = tct_trace_thread(p->trace, source, tid);
    if (t)
        return tct_pf_thread_track(p, t);
    uint64_t key = (uint64_t)source << 32 | tid;
    const uint64_t *known = tcu_map_get(&p->other_thread, key);
    if (known)
        return tct_pf_track_uuid(PF_TRACK_KIND_OTHER_THREAD, *known);
    uint64_t index = tcu_map_count(&p->other_thread);
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_OTHER_THREAD, index);
    if (tcu_map_put(&p->other_thread, key, index) < 0)
        p->failed = 1;
    else
        thread_descriptor(p, source, tid, uuid);
    return uuid;
}

uint64_t tct_pf_plot_track(struct tct_pftrace *p, const struct tct_plot *plot)
{
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_PLOT, plot->index);
    if (mark_once(p, &p->described_plot, &p->plot_cap, plot->index) != 1)
        return uuid;
    /* Its format as the capture last configured it (a PlotConfig may come after values). */
    const struct tct_plot *last = tct_trace_plot_at(p->trace, plot->index);
    uint8_t format = last ? last->format : plot->format;
    const struct tct_names *names = &tct_trace_source(p->trace, plot->source)->names;
    const char *name = names->plot(names->ctx, plot->id);
    char fallback[32];
    if (!name || !name[0]) {
        snprintf(fallback, sizeof fallback, "plot %" PRIu32, plot->id);
        name = fallback;
    }
    size_t packet, m = child_begin(p, plot->source, uuid, name, &packet);
    counter(p, format == 1 ? PF_UNIT_SIZE_BYTES : 0, format == 2 ? "%" : format == 3 ? "W" : NULL);
    descriptor_end(p, m, packet);
    return uuid;
}

uint64_t tct_pf_frames_track(struct tct_pftrace *p, const struct tct_frame_set *set)
{
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_FRAMES, set->index);
    if (mark_once(p, &p->described_frames, &p->frames_cap, set->index) != 1)
        return uuid;
    const struct tct_names *names = &tct_trace_source(p->trace, set->source)->names;
    size_t packet, m = child_begin(p, set->source, uuid, names->frame(names->ctx, set->id), &packet);
    descriptor_end(p, m, packet);
    return uuid;
}

uint64_t tct_pf_gpu_track(struct tct_pftrace *p, const struct tct_gpu_context *ctx, uint32_t thread)
{
    /* The context as the capture last described it (its name, the thread it is bound to). */
    const struct tct_gpu_context *last = tct_trace_gpu_context_at(p->trace, ctx->index);
    if (!last)
        last = ctx;
    uint64_t key = (uint64_t)ctx->index << 32 | (last->thread ? 0 : thread);
    const uint64_t *known = tcu_map_get(&p->gpu_track, key);
    if (known)
        return tct_pf_track_uuid(PF_TRACK_KIND_GPU, *known);
    uint64_t index = tcu_map_count(&p->gpu_track);
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_GPU, index);
    if (tcu_map_put(&p->gpu_track, key, index) < 0) {
        p->failed = 1;
        return uuid;
    }
    char name[512];
    int n = snprintf(name, sizeof name, "GPU context %" PRIu32 "%s%s", ctx->id, last->name ? ": " : "",
                     last->name ? last->name : "");
    if (!last->thread && n > 0 && (size_t)n < sizeof name)
        snprintf(name + n, sizeof name - (size_t)n, ", thread %" PRIu32, thread);
    size_t packet, m = child_begin(p, ctx->source, uuid, name, &packet);
    tct_pb_varint(&p->pb, PF_TRACK_MERGE, PF_MERGE_NONE);
    descriptor_end(p, m, packet);
    return uuid;
}

uint64_t tct_pf_pool_track(struct tct_pftrace *p, uint32_t source, uint32_t pool, uint32_t index)
{
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_POOL, index);
    /* Pools are numbered as they first come: a new index is a new track. */
    if (index < p->pools_described)
        return uuid;
    p->pools_described = (size_t)index + 1;
    const struct tct_names *names = &tct_trace_source(p->trace, source)->names;
    const char *pool_name = pool ? names->pool(names->ctx, pool) : NULL;
    char name[512];
    if (pool_name && pool_name[0])
        snprintf(name, sizeof name, "memory: %s", pool_name);
    else if (pool)
        snprintf(name, sizeof name, "memory: pool %" PRIu32, pool);
    else
        snprintf(name, sizeof name, "memory");
    size_t packet, m = child_begin(p, source, uuid, name, &packet);
    counter(p, PF_UNIT_SIZE_BYTES, NULL);
    descriptor_end(p, m, packet);
    return uuid;
}

uint64_t tct_pf_lock_track(struct tct_pftrace *p, uint32_t source, uint32_t thread, uint32_t holder, const char *lock)
{
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_LOCK, holder);
    if (holder < p->holders_described)
        return uuid;
    p->holders_described = (size_t)holder + 1;
    /* Beside its thread's track: a track whose parent is a thread's belongs to that thread. */
    uint64_t parent = tct_pf_thread_track_of(p, source, thread);
    char name[512];
    snprintf(name, sizeof name, "lock: %s", lock);
    size_t packet, m = descriptor_begin(p, source, uuid, &packet);
    tct_pb_varint(&p->pb, PF_TRACK_PARENT, parent);
    tct_pb_string(&p->pb, PF_TRACK_NAME, name);
    tct_pb_varint(&p->pb, PF_TRACK_MERGE, PF_MERGE_NONE);
    descriptor_end(p, m, packet);
    return uuid;
}

/* Sections as Tracy's server shows them: a track of each id, under its process; one id is
 * entered once at a time, so its sections never overlap. */
uint64_t tct_pf_section_track(struct tct_pftrace *p, uint32_t source, uint32_t id)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *known = tcu_map_get(&p->section_track, key);
    if (known)
        return tct_pf_track_uuid(PF_TRACK_KIND_SECTION, *known);
    size_t index = tcu_map_count(&p->section_track);
    if (tcu_map_put(&p->section_track, key, index) < 0) {
        p->failed = 1;
        return 0;
    }
    uint64_t uuid = tct_pf_track_uuid(PF_TRACK_KIND_SECTION, index);
    char name[64];
    snprintf(name, sizeof name, "section %" PRIu32, id);
    size_t packet, m = descriptor_begin(p, source, uuid, &packet);
    tct_pb_varint(&p->pb, PF_TRACK_PARENT, tct_pf_track_uuid(PF_TRACK_KIND_PROCESS, source));
    tct_pb_string(&p->pb, PF_TRACK_NAME, name);
    descriptor_end(p, m, packet);
    return uuid;
}

void tct_pf_tracks_free(struct tct_pftrace *p)
{
    tcu_map_free(&p->section_track);
    free(p->described_thread);
    free(p->described_plot);
    free(p->described_frames);
    tcu_map_free(&p->other_thread);
    tcu_map_free(&p->gpu_track);
}
