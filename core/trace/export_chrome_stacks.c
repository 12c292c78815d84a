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
 * in chunks of CHUNK samples that carry the nodes they introduce (a thread's chunk goes out
 * when it is full, so memory holds one chunk per thread). Samples without a time and those
 * taken at a context switch are left out.
 */
#include "trace/export_chrome.h"
#include "trace/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1000

struct tct_chrome_profile {
    const struct tct_thread *thread;
    uint64_t pid;
    struct tct_stack_tree tree;
    struct tcu_map leaf_of; /* callstack id -> node */
    uint32_t written;       /* nodes written so far (node 0, the tree's root, is never written) */
    int64_t last_us;        /* the time of the previous sample */
    int started;            /* its "Profile" event is out */
    /* the samples of the chunk being gathered: their leaf (0: left out) and time */
    uint32_t leaves[CHUNK];
    int64_t times[CHUNK];
    size_t count;
};

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
    for (size_t i = 0; i < c->profile_count; i++) {
        if (!c->profiles[i])
            continue;
        tct_stack_tree_free(&c->profiles[i]->tree);
        tcu_map_free(&c->profiles[i]->leaf_of);
        free(c->profiles[i]);
    }
    free(c->profiles);
    c->profiles = NULL;
    c->profile_count = 0;
}

uint32_t tct_chrome_stack_frame(struct tct_chrome *c, uint32_t source, uint32_t callstack)
{
    uint64_t key = (uint64_t)source << 32 | callstack;
    const uint64_t *known = tcu_map_get(&c->frame_of, key);
    if (known)
        return (uint32_t)*known;
    uint32_t node = tct_stack_tree_path(&c->frames, 0, &tct_trace_source(c->trace, source)->names, callstack);
    if (node == UINT32_MAX || tcu_map_put(&c->frame_of, key, node) < 0) {
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

static void profile_head(struct tct_chrome *c, const char *name, uint64_t pid, uint32_t tid, int64_t ts)
{
    tct_chrome_begin_event(c, "P", name, strlen(name), pid);
    tct_write_str(c->w, ",\"id\":\"0x");
    tct_write_fmt(c->w, "%" PRIx32, tid);
    tct_write_str(c->w, "\",\"tid\":");
    tct_write_u64(c->w, tid);
    tct_write_str(c->w, ",\"ts\":");
    tct_json_us(c->w, ts);
}

/* One chunk: the gathered samples whose leaf is not 0. */
static void profile_chunk(struct tct_chrome *c, struct tct_chrome_profile *p)
{
    struct tct_writer *w = c->w;
    size_t first = 0, n = p->count;
    p->count = 0;
    while (first < n && !p->leaves[first])
        first++;
    if (first == n)
        return;
    if (!p->started) {
        p->last_us = us_of(p->times[first]);
        profile_head(c, "Profile", p->pid, p->thread->id, p->times[first]);
        tct_write_str(w, ",\"args\":{\"data\":{\"startTime\":");
        tct_write_i64(w, p->last_us);
        tct_write_str(w, "}}}");
        p->started = 1;
    }
    profile_head(c, "ProfileChunk", p->pid, p->thread->id, p->times[first]);
    tct_write_str(w, ",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
    for (uint32_t i = p->written + 1; i < p->tree.count; i++) {
        const struct tct_stack_node *node = &p->tree.nodes[i];
        tct_write_str(w, i > p->written + 1 ? ",{\"id\":" : "{\"id\":");
        tct_write_u64(w, i);
        if (node->parent) {
            tct_write_str(w, ",\"parent\":");
            tct_write_u64(w, node->parent);
        }
        tct_write_str(w, ",\"callFrame\":{\"functionName\":");
        tct_json_string(w, node->label);
        tct_write_str(w, ",\"url\":");
        tct_json_string(w, tct_known_name(node->file) ? node->file : "");
        tct_write_str(w, "}}");
    }
    p->written = (uint32_t)p->tree.count - 1;
    tct_write_str(w, "],\"samples\":[");
    int any = 0;
    for (size_t k = first; k < n; k++) {
        if (!p->leaves[k])
            continue;
        if (any++)
            tct_write_char(w, ',');
        tct_write_u64(w, p->leaves[k]);
    }
    tct_write_str(w, "]},\"timeDeltas\":[");
    any = 0;
    for (size_t k = first; k < n; k++) {
        if (!p->leaves[k])
            continue;
        int64_t us = us_of(p->times[k]);
        if (any++)
            tct_write_char(w, ',');
        tct_write_i64(w, us - p->last_us);
        p->last_us = us;
    }
    tct_write_str(w, "]}}}");
}

/* The node of a sample's callstack, 0 when it is left out. */
static uint32_t sample_leaf(struct tct_chrome *c, struct tct_chrome_profile *p, const struct tct_sample_record *s)
{
    if (s->switched_out || s->time == 0)
        return 0;
    const uint64_t *known = tcu_map_get(&p->leaf_of, s->callstack);
    if (known)
        return (uint32_t)*known;
    const struct tct_names *names = &tct_trace_source(c->trace, p->thread->source)->names;
    uint32_t node = tct_stack_tree_path(&p->tree, 0, names, s->callstack);
    if (node == UINT32_MAX || tcu_map_put(&p->leaf_of, s->callstack, node) < 0) {
        c->failed = 1;
        return 0;
    }
    return node;
}

static struct tct_chrome_profile *profile_of(struct tct_chrome *c, const struct tct_thread *t)
{
    if (t->index >= c->profile_count) {
        size_t count = t->index + 1 > 2 * c->profile_count ? t->index + 1 : 2 * c->profile_count;
        struct tct_chrome_profile **grown = realloc(c->profiles, count * sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + c->profile_count, 0, (count - c->profile_count) * sizeof *grown);
        c->profiles = grown;
        c->profile_count = count;
    }
    struct tct_chrome_profile *p = c->profiles[t->index];
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p || tct_stack_tree_init(&p->tree, "") != 0) {
        if (p)
            tct_stack_tree_free(&p->tree);
        free(p);
        return NULL;
    }
    p->thread = t;
    p->pid = tct_chrome_pid(c, t->source);
    tcu_map_init(&p->leaf_of, 0, NULL);
    return c->profiles[t->index] = p;
}

void tct_chrome_sample(struct tct_chrome *c, const struct tct_thread *t, const struct tct_sample_record *s)
{
    struct tct_chrome_profile *p = c->failed ? NULL : profile_of(c, t);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->leaves[p->count] = sample_leaf(c, p, s);
    p->times[p->count] = s->time;
    if (++p->count == CHUNK)
        profile_chunk(c, p);
}

void tct_chrome_samples_end(struct tct_chrome *c)
{
    for (size_t i = 0; i < c->profile_count; i++)
        if (c->profiles[i] && c->profiles[i]->count && !c->failed)
            profile_chunk(c, c->profiles[i]);
}
