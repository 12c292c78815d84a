/* export_chrome_stacks.c - callstacks in Chrome Trace Event JSON.
 *
 * Zone, message and GPU zone callstacks: the Trace Event Format's root-level "stackFrames"
 * dictionary ({"<id>": {"name", "category", "parent"}}, one entry per frame of a call path,
 * named "function file:line", category the binary's name) and the event's "sf" field, its
 * innermost frame. chrome://tracing shows them; Perfetto's JSON importer does not read
 * either (it skips unknown keys).
 *
 * CPU samples: Perfetto's JSON importer reads samples only in the form of Chrome's V8 CPU
 * profiler (perfetto src/trace_processor/importers/json/json_trace_tokenizer.cc, "P" events;
 * importers/common/v8_profile_parser.cc and legacy_v8_cpu_profile_tracker.cc): per profile
 * id and pid, a "Profile" event whose args.data.startTime (integer microseconds) starts
 * the clock, then "ProfileChunk" events whose args.data.cpuProfile has "nodes" (id,
 * parent, callFrame {functionName, url}) and "samples" (node ids), with
 * args.data.timeDeltas (integer microseconds) placing each sample; a chunk's tid is its
 * samples' thread. Each thread is one profile here (id = its thread id), its nodes the call
 * paths of its samples (functions, inlined ones included, url the source file), written
 * in chunks of CHUNK samples that carry the nodes they introduce. Samples without a time
 * and those taken at a context switch are left out.
 */
#include "trace/export_chrome.h"
#include "trace/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1000

/* ---- "stackFrames" ------------------------------------------------------------------------ */

int tct_chrome_stacks_init(struct tct_chrome *c)
{
    tcu_map_init(&c->frame_of, 0, NULL);
    if (tct_stack_tree_init(&c->frames, "") != 0)
        return -1;
    c->frames.with_location = 1;
    return 0;
}

void tct_chrome_stacks_free(struct tct_chrome *c)
{
    tct_stack_tree_free(&c->frames);
    tcu_map_free(&c->frame_of);
}

uint32_t tct_chrome_stack_frame(struct tct_chrome *c, uint32_t callstack)
{
    const uint64_t *known = tcu_map_get(&c->frame_of, callstack);
    if (known)
        return (uint32_t)*known;
    uint32_t node = tct_stack_tree_path(&c->frames, 0, c->names, callstack);
    if (node == UINT32_MAX || tcu_map_put(&c->frame_of, callstack, node) < 0) {
        c->failed = 1;
        return 0;
    }
    return node;
}

/* The last path component of an image ("" when none). */
static const char *image_of(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

void tct_chrome_write_stack_frames(struct tct_chrome *c)
{
    const struct tct_stack_tree *t = &c->frames;
    if (t->count <= 1)
        return;
    struct tct_writer *w = c->w;
    tct_write_str(w, ",\n\"stackFrames\":{");
    for (uint32_t i = 1; i < t->count; i++) {
        const struct tct_stack_node *n = &t->nodes[i];
        tct_write_str(w, i > 1 ? ",\n\"" : "\n\"");
        tct_write_u64(w, i);
        tct_write_str(w, "\":{\"name\":");
        tct_json_string(w, n->label);
        tct_write_str(w, ",\"category\":");
        tct_json_string(w, tct_known_name(n->image) ? image_of(n->image) : "unknown");
        if (n->parent) {
            tct_write_str(w, ",\"parent\":\"");
            tct_write_u64(w, n->parent);
            tct_write_char(w, '"');
        }
        tct_write_char(w, '}');
    }
    tct_write_str(w, "\n}");
}

/* ---- CPU samples as V8 CPU profiles ------------------------------------------------------------ */

/* Integer microseconds, rounded, as the profile's fields must be. */
static int64_t us_of(int64_t ns)
{
    return ns >= 0 ? (ns + 500) / 1000 : -((-ns + 500) / 1000);
}

static void profile_head(struct tct_chrome *c, const char *name, uint32_t tid, int64_t ts)
{
    tct_chrome_begin_event(c, "P", name);
    tct_write_str(c->w, ",\"id\":\"0x");
    tct_write_fmt(c->w, "%" PRIx32, tid);
    tct_write_str(c->w, "\",\"tid\":");
    tct_write_u64(c->w, tid);
    tct_write_str(c->w, ",\"ts\":");
    tct_json_us(c->w, ts);
}

struct profile {
    struct tct_chrome *c;
    const struct tct_thread *t;
    struct tct_stack_tree tree;
    struct tcu_map leaf_of; /* callstack id -> node */
    uint32_t written;       /* nodes written so far (node 0, the tree's root, is never written) */
    int64_t last_us;        /* the time of the previous sample */
};

/* One chunk: the samples [from, to) of the thread that have a time. */
static void profile_chunk(struct profile *p, size_t from, size_t to, const uint32_t *leaves)
{
    struct tct_writer *w = p->c->w;
    size_t first = from;
    while (first < to && !leaves[first - from])
        first++;
    if (first == to)
        return;
    profile_head(p->c, "ProfileChunk", p->t->id, tct_thread_sample(p->t, first)->time);
    tct_write_str(w, ",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
    for (uint32_t i = p->written + 1; i < p->tree.count; i++) {
        const struct tct_stack_node *n = &p->tree.nodes[i];
        tct_write_str(w, i > p->written + 1 ? ",{\"id\":" : "{\"id\":");
        tct_write_u64(w, i);
        if (n->parent) {
            tct_write_str(w, ",\"parent\":");
            tct_write_u64(w, n->parent);
        }
        tct_write_str(w, ",\"callFrame\":{\"functionName\":");
        tct_json_string(w, n->label);
        tct_write_str(w, ",\"url\":");
        tct_json_string(w, tct_known_name(n->file) ? n->file : "");
        tct_write_str(w, "}}");
    }
    p->written = (uint32_t)p->tree.count - 1;
    tct_write_str(w, "],\"samples\":[");
    int any = 0;
    for (size_t k = first; k < to; k++) {
        if (!leaves[k - from])
            continue;
        if (any++)
            tct_write_char(w, ',');
        tct_write_u64(w, leaves[k - from]);
    }
    tct_write_str(w, "]},\"timeDeltas\":[");
    any = 0;
    for (size_t k = first; k < to; k++) {
        if (!leaves[k - from])
            continue;
        int64_t us = us_of(tct_thread_sample(p->t, k)->time);
        if (any++)
            tct_write_char(w, ',');
        tct_write_i64(w, us - p->last_us);
        p->last_us = us;
    }
    tct_write_str(w, "]}}}");
}

/* The node of a sample's callstack, 0 when it is left out. */
static uint32_t sample_leaf(struct profile *p, const struct tct_sample *s)
{
    if (s->switched_out || s->time == 0)
        return 0;
    const uint64_t *known = tcu_map_get(&p->leaf_of, s->callstack);
    if (known)
        return (uint32_t)*known;
    uint32_t node = tct_stack_tree_path(&p->tree, 0, p->c->names, s->callstack);
    if (node == UINT32_MAX || tcu_map_put(&p->leaf_of, s->callstack, node) < 0) {
        p->c->failed = 1;
        return 0;
    }
    return node;
}

static void thread_profile(struct tct_chrome *c, const struct tct_thread *t)
{
    struct profile p = {.c = c, .t = t};
    tcu_map_init(&p.leaf_of, 0, NULL);
    uint32_t leaves[CHUNK];
    int started = 0;
    if (tct_stack_tree_init(&p.tree, "") != 0)
        c->failed = 1;
    for (size_t from = 0; from < t->samples.count && !c->failed; from += CHUNK) {
        size_t to = t->samples.count - from < CHUNK ? t->samples.count : from + CHUNK;
        for (size_t k = from; k < to; k++)
            leaves[k - from] = sample_leaf(&p, tct_thread_sample(t, k));
        for (size_t k = from; k < to && !started; k++) {
            if (!leaves[k - from])
                continue;
            int64_t t0 = tct_thread_sample(t, k)->time;
            p.last_us = us_of(t0);
            profile_head(c, "Profile", t->id, t0);
            tct_write_str(c->w, ",\"args\":{\"data\":{\"startTime\":");
            tct_write_i64(c->w, p.last_us);
            tct_write_str(c->w, "}}}");
            started = 1;
        }
        profile_chunk(&p, from, to, leaves);
    }
    tct_stack_tree_free(&p.tree);
    tcu_map_free(&p.leaf_of);
}

void tct_chrome_samples(struct tct_chrome *c)
{
    for (size_t i = 0; i < c->trace->thread_count && !c->failed; i++)
        if (c->trace->threads[i]->cpu_samples)
            thread_profile(c, c->trace->threads[i]);
}
