/* export_folded.c - the CPU samples as folded stacks, the input of flame graph tools
 * (flamegraph.pl, inferno, speedscope):
 *
 *   thread;outermost;...;innermost count
 *
 * one line per distinct call path that samples ended in, root first, with the number of
 * samples. The first frame of every line is the thread's name, so a flame graph has one
 * tower per thread. Inlined functions are frames of their own; an unresolved frame is
 * "[0x<address>]". Samples taken when a thread was switched out are not CPU samples and
 * are left out; with no sample, the file is empty.
 */
#include "trace/export.h"
#include "trace/stacks.h"
#include "trace/writer.h"

#include <errno.h>
#include <stdlib.h>

/* A frame's name in a folded line: ';' separates frames and a line ends at a newline, so
 * both (and other control characters) become '_'. */
static void folded_label(struct tct_writer *w, const char *s)
{
    for (; *s; s++)
        tct_write_char(w, *s == ';' || (unsigned char)*s < 0x20 ? '_' : *s);
}

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    return (*state = tct_sample_stats_of(tr)) ? 0 : -1;
}

static int write_folded(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    (void)o;
    struct tct_stack_tree tree;
    if (tct_stack_tree_of_samples(&tree, tr, state, 1) != 0) {
        tct_stack_tree_free(&tree);
        errno = ENOMEM;
        return -1;
    }
    uint32_t *path = malloc(((size_t)tree.max_depth + 1) * sizeof *path);
    if (!path) {
        tct_stack_tree_free(&tree);
        errno = ENOMEM;
        return -1;
    }
    struct tct_writer w;
    tct_writer_init(&w, out);
    for (uint32_t i = 1; i < tree.count; i++) {
        const struct tct_stack_node *n = &tree.nodes[i];
        if (!n->self)
            continue;
        size_t depth = 0;
        for (uint32_t k = i; k != 0; k = tree.nodes[k].parent)
            path[depth++] = k;
        while (depth--) {
            folded_label(&w, tree.nodes[path[depth]].label);
            tct_write_char(&w, depth ? ';' : ' ');
        }
        tct_write_u64(&w, n->self);
        tct_write_char(&w, '\n');
    }
    free(path);
    tct_stack_tree_free(&tree);
    return tct_writer_flush(&w) ? -1 : 0;
}

const struct tct_format_ops tct_format_folded = {prepare, write_folded, NULL};
