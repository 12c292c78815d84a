/* export_pftrace_stacks.c - callstacks and CPU samples in the Perfetto output.
 *
 * Callstacks are interned on their source's sequence the first time an event uses one
 * (InternedData): a Callstack (iid: the source's callstack id) lists Frames outermost first;
 * each frame of a Tracy callstack (a return address) becomes one Frame per function it
 * expands to (the inlined ones, then the one containing the address), with its function name
 * (function_names), source file (source_paths) and line, the address as rel_pc, and the
 * binary it is in as a Mapping (mapping_paths); a function name's and a source path's iid is
 * its Frame's. Zones, messages and GPU zones refer to theirs by TrackEvent.callstack_iid.
 *
 * CPU samples are PerfSample packets (pid, tid, callstack_iid, at the sample's time), the
 * packets Linux perf profiles are made of: Perfetto's trace processor keeps them as the
 * "linux.perf" samples of each thread, and its UI draws each thread's CPU profile and its flame
 * graph from them. (StreamingProfilePacket, the other form, carries one thread per sequence
 * and times in microseconds.) Samples without a time and those taken at a context switch are
 * left out, as in the other outputs' CPU profiles.
 */
#include "trace/export_pftrace.h"
#include "trace/names.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

#define SUBFRAME_BITS 20 /* a frame's value in frame_of: first Frame iid << 20 | how many (<= TCT_STACK_MAX) */

/* The Mapping iid of a binary, interning it when new. */
static uint64_t mapping(struct tct_pftrace *p, struct tct_pf_source *s, const char *image)
{
    if (!tct_known_name(image))
        image = "[unknown]";
    size_t len = strlen(image);
    uint64_t hash = tcu_hash_bytes(TCU_HASH_INIT, image, len);
    const uint64_t *newest = tcu_map_get(&s->mapping_of, hash);
    uint64_t older = newest ? *newest : 0;
    for (uint64_t iid = older; iid; iid = s->mappings[iid - 1].same)
        if (strcmp(s->mappings[iid - 1].image, image) == 0)
            return iid;
    struct tct_pf_mapping *grown = tcu_grow(NULL, s->mappings, &s->mapping_cap, s->mapping_count + 1, sizeof *grown);
    if (grown)
        s->mappings = grown;
    uint64_t iid = s->mapping_count + 1;
    if (!grown || tcu_map_put(&s->mapping_of, hash, iid) < 0) {
        p->failed = 1;
        return 0;
    }
    s->mappings[s->mapping_count++] = (struct tct_pf_mapping){image, older};
    tct_pf_interned_string(p, PF_INTERNED_MAPPING_PATHS, iid, image, len);
    size_t m = tct_pb_begin(&p->pb, PF_INTERNED_MAPPINGS);
    tct_pb_varint(&p->pb, PF_IID, iid);
    tct_pb_varint(&p->pb, PF_MAPPING_PATHS, iid);
    tct_pb_end(&p->pb, m);
    return iid;
}

/* The Frames of a callstack frame: the iid of the first (its innermost function), and how
 * many there are in *count, interning them when new; 0 when memory ran out. */
static uint64_t frames_of(struct tct_pftrace *p, struct tct_pf_source *s, const struct tct_names *names, uint32_t index,
                          size_t *count)
{
    const uint64_t *known = tcu_map_get(&s->frame_of, index);
    if (known) {
        *count = (size_t)(*known & ((1u << SUBFRAME_BITS) - 1));
        return *known >> SUBFRAME_BITS;
    }
    size_t n = tct_stack_expand_frame(names, index, p->expanded, TCT_STACK_MAX);
    uint64_t first = s->frames + 1;
    if (tcu_map_put(&s->frame_of, index, first << SUBFRAME_BITS | n) < 0) {
        p->failed = 1;
        return 0;
    }
    s->frames += n;
    for (size_t k = 0; k < n; k++) {
        const struct tct_stack_frame *f = &p->expanded[k];
        uint64_t iid = first + k;
        char buf[TCT_FRAME_LABEL_BUF];
        size_t len;
        const char *function = tct_frame_label(f, buf, &len);
        tct_pf_interned_string(p, PF_INTERNED_FUNCTION_NAMES, iid, function, len);
        int has_file = tct_known_name(f->file);
        if (has_file)
            tct_pf_interned_string(p, PF_INTERNED_SOURCE_PATHS, iid, f->file, strlen(f->file));
        uint64_t map = mapping(p, s, f->image);
        size_t m = tct_pb_begin(&p->pb, PF_INTERNED_FRAMES);
        tct_pb_varint(&p->pb, PF_IID, iid);
        tct_pb_varint(&p->pb, PF_FRAME_FUNCTION, iid);
        if (map) {
            tct_pb_varint(&p->pb, PF_FRAME_MAPPING, map);
            tct_pb_varint(&p->pb, PF_FRAME_REL_PC, f->address);
        }
        if (has_file)
            tct_pb_varint(&p->pb, PF_FRAME_SOURCE_PATH, iid);
        if (f->line)
            tct_pb_varint(&p->pb, PF_FRAME_LINE, f->line);
        tct_pb_end(&p->pb, m);
    }
    *count = n;
    return first;
}

/* Marks of the callstacks interned: 1 interned, 2 empty (no frames: no iid). */
uint64_t tct_pf_callstack(struct tct_pftrace *p, uint32_t source, const struct tct_names *names, uint32_t callstack)
{
    struct tct_pf_source *s = &p->sources[source];
    if (!callstack || !names->callstack || !names->callstack_frame)
        return 0;
    if (callstack < s->callstack_cap && s->callstacks[callstack])
        return s->callstacks[callstack] == 1 ? callstack : 0;
    if (callstack >= s->callstack_cap) {
        size_t old = s->callstack_cap;
        uint8_t *grown = tcu_grow(NULL, s->callstacks, &s->callstack_cap, (size_t)callstack + 1, 1);
        if (!grown) {
            p->failed = 1;
            return 0;
        }
        memset(grown + old, 0, s->callstack_cap - old);
        s->callstacks = grown;
    }
    uint32_t depth = 0;
    const uint32_t *frames = names->callstack(names->ctx, callstack, &depth);
    size_t n = 0;
    for (uint32_t i = 0; frames && i < depth && n < TCT_STACK_MAX; i++) {
        size_t count;
        uint64_t first = frames_of(p, s, names, frames[i], &count);
        for (size_t k = 0; first && k < count && n < TCT_STACK_MAX; k++)
            p->stack[n++] = first + k;
    }
    s->callstacks[callstack] = n ? 1 : 2;
    if (!n)
        return 0;
    tct_pf_interned(p);
    size_t m = tct_pb_begin(&p->pb, PF_INTERNED_CALLSTACKS);
    tct_pb_varint(&p->pb, PF_IID, callstack);
    for (size_t k = n; k-- > 0;) /* outermost first */
        tct_pb_varint(&p->pb, PF_CALLSTACK_FRAMES, p->stack[k]);
    tct_pb_end(&p->pb, m);
    return callstack;
}

void tct_pf_sample(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_sample_record *sample = &rec->u.sample;
    if (sample->switched_out || sample->time == 0)
        return;
    uint32_t source = rec->source->index;
    tct_pf_thread_track(p, rec->thread); /* the thread's name */
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), sample->time, 1);
    uint64_t stack = tct_pf_callstack(p, source, &rec->source->names, sample->callstack);
    tct_pf_packet_body(p);
    size_t e = tct_pb_begin(&p->pb, PF_PACKET_PERF_SAMPLE);
    tct_pb_varint(&p->pb, PF_SAMPLE_PID, (uint32_t)tct_source_pid(p->trace, source));
    tct_pb_varint(&p->pb, PF_SAMPLE_TID, rec->thread->id);
    if (stack)
        tct_pb_varint(&p->pb, PF_SAMPLE_CALLSTACK, stack);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

void tct_pf_stacks_free(struct tct_pftrace *p)
{
    for (size_t i = 0; i < p->source_count; i++) {
        struct tct_pf_source *s = &p->sources[i];
        free(s->callstacks);
        tcu_map_free(&s->frame_of);
        tcu_map_free(&s->mapping_of);
        free(s->mappings);
    }
}
