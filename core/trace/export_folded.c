/* export_folded.c - the CPU samples as folded stacks, the input of flame graph tools
 * (flamegraph.pl, inferno, speedscope):
 *
 *   thread;outermost;...;innermost count
 *
 * one line per distinct call path that samples ended in, root first, with the number of
 * samples. The first frame of every line is the thread's name, so a flame graph has one
 * tower per thread; a capture of several processes puts the process ("program[pid]")
 * first, so each process has its tower, its threads above it. Inlined functions are frames of their own; an unresolved frame is
 * "[0x<address>]". Samples taken when a thread was switched out are not CPU samples and
 * are left out. With no sample, the file is one line that says why (the client's message
 * when the kernel refused it sampling): "# tracyc: no CPU samples (...)". flamegraph.pl,
 * inferno and speedscope skip a line that does not end in " <count>", as this one ends in
 * ")": they report what they would for an empty file, and a reader of the file sees why.
 */
#include "trace/export.h"
#include "trace/message_stats.h"
#include "trace/names.h"
#include "trace/stacks.h"
#include "trace/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A frame's name in a folded line: ';' separates frames and a line ends at a newline, so
 * both (and other control characters) become '_'. */
static void folded_label(struct tct_writer *w, const char *s)
{
    for (; *s; s++)
        tct_write_char(w, *s == ';' || (unsigned char)*s < 0x20 ? '_' : *s);
}

/* Why a trace has no CPU samples: what the client said (tracyc's own client sends
 * "tracyc: sampling unavailable: <why>", a warning, when the kernel refuses it), else the
 * likely causes. */
static void no_samples(struct tct_writer *w, struct tct_trace *tr)
{
    static const char said[] = "tracyc: sampling unavailable: ";
    const struct tct_message_stats *ms = tct_message_stats_of(tr);
    const char *reason = NULL;
    size_t len = 0;
    for (size_t i = 0; ms && i < ms->shown_count && !reason; i++) {
        const struct tct_shown_message *m = &ms->shown[i];
        const char *text = tct_text_or_string(&tct_trace_source(tr, m->source)->names, m->text ? m->text : "",
                                              m->text_len, m->string, &len);
        if (len >= sizeof said - 1 && strncmp(text, said, sizeof said - 1) == 0) {
            reason = text + 8; /* from "sampling unavailable" */
            len -= 8;
            const char *newline = memchr(reason, '\n', len);
            if (newline)
                len = (size_t)(newline - reason);
        }
    }
    tct_write_str(w, "# tracyc: no CPU samples (");
    if (reason)
        tct_write(w, reason, len);
    else
        tct_write_str(w, "the client sent none: sampling off (TRACY_NO_SAMPLING and the like), refused, or the "
                         "program ended before its first sample");
    tct_write_str(w, ")\n");
}

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    /* the messages too: a folded file without samples says why */
    return (*state = tct_sample_stats_of(tr)) && tct_message_stats_of(tr) ? 0 : -1;
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
    struct tct_writer w;
    if (!path || tct_writer_init(&w, out) != 0) {
        free(path);
        tct_stack_tree_free(&tree);
        errno = ENOMEM;
        return -1;
    }
    int lines = 0;
    for (uint32_t i = 1; i < tree.count; i++) {
        const struct tct_stack_node *n = &tree.nodes[i];
        if (!n->self)
            continue;
        lines++;
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
    if (!lines)
        no_samples(&w, tr);
    free(path);
    tct_stack_tree_free(&tree);
    return tct_writer_finish(&w) ? -1 : 0;
}

const struct tct_format_ops tct_format_folded = {prepare, write_folded, NULL, 0};
