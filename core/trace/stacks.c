/* stacks.c - callstacks as the exporters show them (stacks.h). */
#include "trace/names.h"
#include "trace/stacks.h"
#include "trace/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "util/array.h"

/* ---- frames ----------------------------------------------------------------------------------- */

/* Length of a function name without the " + <decimal offset>" that clients append to names
 * found in a symbol table only (Tracy's does), so that every address in one function
 * counts for that function. */
static size_t without_offset(const char *s)
{
    size_t len = strlen(s), i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i < len && i >= 4 && memcmp(s + i - 3, " + ", 3) == 0)
        return i - 3;
    return len;
}

size_t tct_stack_expand_frame(const struct tct_names *names, uint32_t frame, struct tct_stack_frame *out, size_t cap)
{
    const struct tcd_frame *f = names->callstack_frame ? names->callstack_frame(names->ctx, frame) : NULL;
    if (!f || !cap)
        return 0;
    const char *image = f->image ? f->image : "";
    if (f->count == 0) {
        out[0] = (struct tct_stack_frame){NULL, 0, "", 0, 0, f->address, image, 0};
        return 1;
    }
    size_t n = 0;
    for (uint32_t s = 0; s < f->count && n < cap; s++) {
        const struct tcd_subframe *sub = &f->sub[s];
        const char *function = sub->function ? sub->function : "";
        const char *file = sub->file ? sub->file : "";
        out[n++] = (struct tct_stack_frame){
            function, without_offset(function), file, sub->line, sub->symbol, f->address, image, s + 1 < f->count};
    }
    return n;
}

size_t tct_stack_expand(const struct tct_names *names, uint32_t id, struct tct_stack_frame *out, size_t cap)
{
    if (!names->callstack || !names->callstack_frame || id == 0)
        return 0;
    uint32_t depth = 0;
    const uint32_t *frames = names->callstack(names->ctx, id, &depth);
    size_t n = 0;
    for (uint32_t i = 0; frames && i < depth && n < cap; i++)
        n += tct_stack_expand_frame(names, frames[i], out + n, cap - n);
    return n;
}

int tct_known_name(const char *s)
{
    return s && s[0] && strcmp(s, "[unknown]") != 0 && strcmp(s, "?") != 0;
}

const char *tct_frame_label(const struct tct_stack_frame *f, char buf[TCT_FRAME_LABEL_BUF], size_t *len)
{
    if (f->function && f->function_len) {
        *len = f->function_len;
        return f->function;
    }
    int n = snprintf(buf, TCT_FRAME_LABEL_BUF, "[0x%" PRIx64 "]", f->address);
    *len = n > 0 ? (size_t)n : 0;
    return buf;
}

/* ---- the tree of call paths ------------------------------------------------------------------------- */

int tct_stack_tree_init(struct tct_stack_tree *t, const char *root_label)
{
    memset(t, 0, sizeof *t);
    tcu_map_init(&t->by_key, 0, NULL);
    tcu_arena_init(&t->labels, NULL);
    t->nodes = tcu_grow(NULL, NULL, &t->cap, 1, sizeof *t->nodes);
    t->last_child = tcu_grow(NULL, NULL, &t->last_child_cap, 1, sizeof *t->last_child);
    t->frames = malloc(TCT_STACK_MAX * sizeof *t->frames);
    const char *label = tcu_arena_strdup(&t->labels, root_label, strlen(root_label));
    if (!t->nodes || !t->last_child || !t->frames || !label)
        return -1;
    t->nodes[0] = (struct tct_stack_node){.label = label, .file = "", .image = ""};
    t->last_child[0] = 0;
    t->count = 1;
    return 0;
}

void tct_stack_tree_free(struct tct_stack_tree *t)
{
    free(t->nodes);
    free(t->last_child);
    free(t->frames);
    tcu_map_free(&t->by_key);
    tcu_arena_free(&t->labels);
    memset(t, 0, sizeof *t);
}

uint32_t tct_stack_tree_child(struct tct_stack_tree *t, uint32_t parent, const char *label, size_t len)
{
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT ^ parent, label, len);
    const uint64_t *newest = tcu_map_get(&t->by_key, h);
    uint32_t older = newest ? (uint32_t)*newest : 0;
    for (uint32_t i = older; i; i = t->nodes[i].same_hash) {
        const struct tct_stack_node *n = &t->nodes[i];
        if (n->parent == parent && strncmp(n->label, label, len) == 0 && n->label[len] == '\0')
            return i;
    }
    if (t->count >= UINT32_MAX - 1)
        return UINT32_MAX;
    struct tct_stack_node *nodes = tcu_grow(NULL, t->nodes, &t->cap, t->count + 1, sizeof *nodes);
    if (nodes)
        t->nodes = nodes;
    uint32_t *last = tcu_grow(NULL, t->last_child, &t->last_child_cap, t->count + 1, sizeof *last);
    if (last)
        t->last_child = last;
    const char *copy = nodes && last ? tcu_arena_strdup(&t->labels, label, len) : NULL;
    uint32_t i = (uint32_t)t->count;
    if (!copy || tcu_map_put(&t->by_key, h, i) < 0)
        return UINT32_MAX;
    uint32_t depth = t->nodes[parent].depth + 1;
    t->nodes[i] = (struct tct_stack_node){
        .label = copy, .file = "", .image = "", .parent = parent, .depth = depth, .same_hash = older};
    t->last_child[i] = 0;
    if (t->last_child[parent])
        t->nodes[t->last_child[parent]].next_sibling = i;
    else
        t->nodes[parent].first_child = i;
    t->last_child[parent] = i;
    if (depth > t->max_depth)
        t->max_depth = depth;
    t->count++;
    return i;
}

uint32_t tct_stack_tree_path(struct tct_stack_tree *t, uint32_t from, const struct tct_names *names, uint32_t id)
{
    struct tct_stack_frame *frames = t->frames;
    size_t n = tct_stack_expand(names, id, frames, TCT_STACK_MAX);
    uint32_t node = from;
    for (size_t i = n; i-- > 0 && node != UINT32_MAX;) {
        char buf[TCT_FRAME_LABEL_BUF], located[512];
        size_t len;
        const char *label = tct_frame_label(&frames[i], buf, &len);
        if (t->with_location && tct_known_name(frames[i].file)) {
            const char *slash = strrchr(frames[i].file, '/');
            int w = snprintf(located, sizeof located, frames[i].line ? "%.*s %s:%" PRIu32 : "%.*s %s", (int)len, label,
                             slash ? slash + 1 : frames[i].file, frames[i].line);
            if (w > 0 && (size_t)w < sizeof located) {
                label = located;
                len = (size_t)w;
            }
        }
        node = tct_stack_tree_child(t, node, label, len);
        if (node != UINT32_MAX && !t->nodes[node].file[0])
            t->nodes[node].file = frames[i].file;
        if (node != UINT32_MAX && !t->nodes[node].image[0])
            t->nodes[node].image = frames[i].image;
    }
    return node;
}

void tct_stack_tree_count(struct tct_stack_tree *t, uint32_t node, uint64_t count)
{
    t->nodes[node].self += count;
    for (uint32_t i = node;; i = t->nodes[i].parent) {
        t->nodes[i].total += count;
        if (i == 0)
            break;
    }
}

int tct_stack_tree_of_samples(struct tct_stack_tree *tree, const struct tct_trace *tr,
                              const struct tct_sample_stats *samples, int per_thread)
{
    if (tct_stack_tree_init(tree, "all") != 0)
        return -1;
    size_t n;
    struct tct_stack_count *counts = tct_sample_counts(samples, &n);
    if (!counts && n)
        return -1;
    int rc = 0;
    const struct tct_thread *thread = NULL;
    uint32_t thread_node = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct tct_names *names = &tct_trace_source(tr, counts[i].thread->source)->names;
        if (per_thread && counts[i].thread != thread) {
            thread = counts[i].thread;
            const char *name = names->thread(names->ctx, thread->id);
            char digits[16];
            if (!name || !name[0]) {
                snprintf(digits, sizeof digits, "%" PRIu32, thread->id);
                name = digits;
            }
            uint32_t parent = 0;
            if (tct_trace_source_count(tr) > 1) { /* several processes: each its own tower */
                char label[TCT_SOURCE_LABEL];
                tct_source_label(tct_trace_source(tr, thread->source), label);
                parent = tct_stack_tree_child(tree, 0, label, strlen(label));
            }
            thread_node = parent == UINT32_MAX ? UINT32_MAX : tct_stack_tree_child(tree, parent, name, strlen(name));
        }
        uint32_t leaf =
            thread_node == UINT32_MAX ? UINT32_MAX : tct_stack_tree_path(tree, thread_node, names, counts[i].callstack);
        if (leaf == UINT32_MAX)
            rc = -1;
        else
            tct_stack_tree_count(tree, leaf, counts[i].count);
    }
    free(counts);
    return rc;
}

/* ---- samples per function ------------------------------------------------------------------------- */

static bool same_function(const struct tct_stack_frame *a, const struct tct_stack_frame *b)
{
    if (!a->function || !b->function)
        return !a->function && !b->function && a->address == b->address;
    return a->function_len == b->function_len && !memcmp(a->function, b->function, a->function_len) &&
           !strcmp(a->file, b->file);
}

static struct tct_function_stats *function_entry(struct tct_function_table *t, const struct tct_stack_frame *f,
                                                 uint32_t source)
{
    uint64_t h = f->function ? tcu_hash_bytes(tcu_hash_bytes(TCU_HASH_INIT, f->function, f->function_len), f->file,
                                              strlen(f->file))
                             : tcu_hash_bytes(TCU_HASH_INIT ^ 1, &f->address, sizeof f->address);
    const uint64_t *newest = tcu_map_get(&t->by_key, h);
    uint32_t older = newest ? (uint32_t)*newest : 0;
    for (uint32_t i = older; i; i = t->entries[i - 1].same_hash)
        if (same_function(&t->entries[i - 1].frame, f))
            return &t->entries[i - 1];
    struct tct_function_stats *grown = tcu_grow(NULL, t->entries, &t->cap, t->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    t->entries = grown;
    if (tcu_map_put(&t->by_key, h, t->count + 1) < 0)
        return NULL;
    struct tct_function_stats *e = &t->entries[t->count++];
    *e = (struct tct_function_stats){.frame = *f, .source = source, .same_hash = older};
    return e;
}

int tct_function_table_of_samples(struct tct_function_table *t, const struct tct_trace *tr,
                                  const struct tct_sample_stats *samples)
{
    memset(t, 0, sizeof *t);
    tcu_map_init(&t->by_key, 0, NULL);
    size_t n;
    struct tct_stack_count *counts = tct_sample_counts(samples, &n);
    struct tct_stack_frame *frames = malloc(TCT_STACK_MAX * sizeof *frames);
    int rc = (counts || !n) && frames ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        t->samples += counts[i].count;
        const struct tct_names *names = &tct_trace_source(tr, counts[i].thread->source)->names;
        size_t depth = tct_stack_expand(names, counts[i].callstack, frames, TCT_STACK_MAX);
        for (size_t k = 0; k < depth; k++) {
            struct tct_function_stats *e = function_entry(t, &frames[k], counts[i].thread->source);
            if (!e) {
                rc = -1;
                break;
            }
            if (k == 0)
                e->self += counts[i].count;
            if (e->stamp != (uint32_t)i + 1) { /* once per stack, however often it recurses */
                e->stamp = (uint32_t)i + 1;
                e->total += counts[i].count;
            }
        }
    }
    free(frames);
    free(counts);
    return rc;
}

void tct_function_table_free(struct tct_function_table *t)
{
    free(t->entries);
    tcu_map_free(&t->by_key);
    memset(t, 0, sizeof *t);
}
