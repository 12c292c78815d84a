/* stacks.h - callstacks as the exporters show them: a callstack expanded into source
 * frames (inlined functions included), each named as people read it, the CPU samples
 * counted per distinct callstack, and a tree of call paths (root first) with the samples
 * each path collected - what the folded-stacks, flame graph, Chrome profile and summary
 * outputs are made of.
 *
 * Names come through struct tct_names (record.h); names without callstack tables expand
 * every callstack to nothing.
 */
#ifndef TRACYC_TRACE_STACKS_H
#define TRACYC_TRACE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"
#include "trace/sample_stats.h"
#include "util/arena.h"
#include "util/map.h"

/* One source frame. */
struct tct_stack_frame {
    const char *function; /* NULL when the frame is unresolved: label it by address */
    size_t function_len;  /* without the " + <offset>" a client adds to names from a symbol table */
    const char *file;     /* "" unknown */
    uint32_t line;
    uint64_t symbol;   /* 0 unknown */
    uint64_t address;  /* the return address the frame came from (0 for custom frames) */
    const char *image; /* "" unknown */
    uint8_t inlined;   /* inlined into the next frame: symbol is that function's, not its own */
};

/* The frames of callstack id, innermost first (inlined frames expanded), at most cap of
 * them into out; returns how many. */
size_t tct_stack_expand(const struct tct_names *names, uint32_t id, struct tct_stack_frame *out, size_t cap);
/* The source frames of one frame of a callstack (an index for names.callstack_frame): the
 * functions inlined at its address, innermost first, then the one containing it; one
 * unresolved frame (function NULL) while it has no answer. At most cap; returns how many. */
size_t tct_stack_expand_frame(const struct tct_names *names, uint32_t frame, struct tct_stack_frame *out, size_t cap);
#define TCT_STACK_MAX 4096 /* frames an exporter expands a callstack to, at most */

/* Whether a client's name says something: clients call what they do not know "",
 * "[unknown]" (Tracy) or "?" (tracyc). */
int tct_known_name(const char *s);

/* The frame's name: its function, or "[0x<address>]" (into buf) when unresolved.
 * *len receives the name's length (it is not NUL-terminated when it is a function). */
#define TCT_FRAME_LABEL_BUF 24
const char *tct_frame_label(const struct tct_stack_frame *f, char buf[TCT_FRAME_LABEL_BUF], size_t *len);

/* A tree of call paths: node 0 is the root; every other node is one frame (or a thread,
 * for the per-thread roots) below its parent, children in the order they were made. */
struct tct_stack_node {
    const char *label; /* NUL-terminated, kept by the tree */
    const char *file;  /* of the frame that made the node ("" for thread nodes); the names' */
    const char *image; /* likewise */
    uint32_t parent;
    uint32_t first_child, next_sibling; /* 0 = none */
    uint32_t depth;                     /* 0 for the root */
    uint32_t same_hash;                 /* internal: index of an older node with the same key hash, 0 = none */
    uint64_t self, total;               /* samples ending here, passing through here */
};

struct tct_stack_tree {
    struct tct_stack_node *nodes;
    size_t count, cap;
    uint32_t max_depth;
    /* internal */
    uint32_t *last_child; /* per node, for appending children in order */
    size_t last_child_cap;
    struct tcu_map by_key; /* hash of (parent, label) -> newest node with it */
    struct tcu_arena labels;
    struct tct_stack_frame *frames; /* TCT_STACK_MAX of them, for expanding a callstack */
    int with_location;              /* label frames "function file:line" (set after init) */
};

/* 0, or -1 when memory ran out (for every function returning int here). */
int tct_stack_tree_init(struct tct_stack_tree *tree, const char *root_label);
void tct_stack_tree_free(struct tct_stack_tree *tree);
/* The child of parent named label (made when missing); UINT32_MAX when memory ran out. */
uint32_t tct_stack_tree_child(struct tct_stack_tree *tree, uint32_t parent, const char *label, size_t len);
/* Descends from node `from` along callstack id, outermost frame first; returns the node
 * of its innermost frame (`from` for an empty callstack), UINT32_MAX when out of memory. */
uint32_t tct_stack_tree_path(struct tct_stack_tree *tree, uint32_t from, const struct tct_names *names, uint32_t id);
/* Adds count samples ending at node (self) and to every node up to the root (total). */
void tct_stack_tree_count(struct tct_stack_tree *tree, uint32_t node, uint64_t count);
/* The tree of every CPU sample: root "all", then (per_thread) one node per process when
 * the trace has several ("program[pid]") and one per thread (its name), then the call
 * paths. */
int tct_stack_tree_of_samples(struct tct_stack_tree *tree, const struct tct_trace *trace,
                              const struct tct_sample_stats *samples, int per_thread);

/* The CPU samples per function, as perf report counts them: a sample counts as self for
 * the function it was taken in (the innermost frame, an inlined function included) and
 * as total (inclusive) for every function on its stack, once however often it recurses.
 * A function is a name and a file; unresolved frames count per address. */
struct tct_function_stats {
    struct tct_stack_frame frame; /* where the function was first seen */
    uint32_t source;              /* ... and in which source */
    uint64_t self, total;
    uint32_t stamp, same_hash; /* internal */
};

struct tct_function_table {
    struct tct_function_stats *entries; /* in order of first appearance */
    size_t count;
    uint64_t samples; /* all CPU samples */
    /* internal */
    size_t cap;
    struct tcu_map by_key;
};

int tct_function_table_of_samples(struct tct_function_table *table, const struct tct_trace *trace,
                                  const struct tct_sample_stats *samples);
void tct_function_table_free(struct tct_function_table *table);

#endif
