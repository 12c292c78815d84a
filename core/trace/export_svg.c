/* export_svg.c - the CPU samples drawn as a flame graph: a self-contained SVG (no script,
 * no outside font or style) that any browser or image viewer shows.
 *
 * The same call paths as the folded output (export_folded.c): the root "all" at the
 * bottom, one tower per thread above it, then the frames, outermost first. A box is as
 * wide as the samples that passed through that frame; its tooltip gives the count and the
 * share of all samples. Colours come from a hash of the name, so a function keeps its
 * colour from one graph to the next.
 */
#include "trace/export.h"
#include "trace/json.h"
#include "trace/stacks.h"
#include "trace/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200
#define PAD 10
#define ROW 16
#define TOP 44
#define BOTTOM 10
#define CHAR_PX 7.0 /* width of a character of the 12 px font, about */

/* s[0..len) as XML text: markup characters escaped, control characters and invalid UTF-8
 * replaced. */
static void xml_text(struct tct_writer *w, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        unsigned c = *p;
        if (c == '&')
            tct_write_str(w, "&amp;");
        else if (c == '<')
            tct_write_str(w, "&lt;");
        else if (c == '>')
            tct_write_str(w, "&gt;");
        else if (c == '"')
            tct_write_str(w, "&quot;");
        else if (c < 0x20)
            tct_write_char(w, ' ');
        else if (c < 0x80)
            tct_write_char(w, (char)c);
        else {
            size_t n = tct_utf8_sequence(p, (size_t)(end - p));
            if (n) {
                tct_write(w, (const char *)p, n);
                p += n;
                continue;
            }
            tct_write_str(w, "\xef\xbf\xbd");
        }
        p++;
    }
}

/* The "hot" palette of flamegraph.pl: reds, oranges and yellows. */
static void colour(struct tct_writer *w, const char *label, uint32_t depth)
{
    if (depth == 0) {
        tct_write_str(w, "rgb(200,200,200)");
        return;
    }
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, label, strlen(label));
    tct_write_fmt(w, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 50), (unsigned)((h >> 8) % 230), (unsigned)((h >> 16) % 55));
}

static void box(struct tct_writer *w, const struct tct_stack_node *n, double x, double width, double y, uint64_t all)
{
    tct_write_str(w, "<g><title>");
    xml_text(w, n->label, strlen(n->label));
    tct_write_fmt(w, " (%llu samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"",
                  (unsigned long long)n->total, 100.0 * (double)n->total / (double)all, x, y, width, ROW - 1);
    colour(w, n->label, n->depth);
    tct_write_str(w, "\" rx=\"2\"/>");
    size_t fit = (size_t)((width - 6) / CHAR_PX), len = strlen(n->label);
    if (fit >= 3) {
        tct_write_fmt(w, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + ROW - 4.5);
        if (len <= fit) {
            xml_text(w, n->label, len);
        } else { /* cut at a character boundary */
            size_t cut = fit - 2;
            while (cut > 0 && ((unsigned char)n->label[cut] & 0xc0) == 0x80)
                cut--;
            xml_text(w, n->label, cut);
            tct_write_str(w, "..");
        }
        tct_write_str(w, "</text>");
    }
    tct_write_str(w, "</g>\n");
}

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    return (*state = tct_sample_stats_of(tr)) ? 0 : -1;
}

static int write_svg(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    (void)o;
    struct tct_stack_tree tree;
    double *xs = NULL;
    if (tct_stack_tree_of_samples(&tree, tr, state, 1) != 0 || !(xs = calloc(tree.count, sizeof *xs))) {
        tct_stack_tree_free(&tree);
        errno = ENOMEM;
        return -1;
    }
    /* A node's x in samples: its parent's, plus the samples of the siblings before it
     * (a parent always comes before its children). */
    for (uint32_t i = 0; i < tree.count; i++) {
        double at = xs[i];
        for (uint32_t c = tree.nodes[i].first_child; c; c = tree.nodes[c].next_sibling) {
            xs[c] = at;
            at += (double)tree.nodes[c].total;
        }
    }
    uint64_t all = tree.nodes[0].total;
    int height = TOP + ((int)tree.max_depth + 1) * ROW + BOTTOM;
    struct tct_writer w;
    if (tct_writer_init(&w, out) != 0) {
        free(xs);
        tct_stack_tree_free(&tree);
        errno = ENOMEM;
        return -1;
    }
    tct_write_fmt(&w,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "font-family=\"Verdana, sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
                  "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">",
                  WIDTH, height, WIDTH, height, WIDTH / 2);
    const struct tct_source *first = tct_trace_source(tr, 0);
    const struct tcd_welcome *wel = first ? first->names.welcome : NULL;
    if (wel && wel->program_name[0]) {
        xml_text(&w, wel->program_name, strnlen(wel->program_name, sizeof wel->program_name));
        tct_write_str(&w, ": ");
    }
    if (all)
        tct_write_fmt(&w, "%llu CPU samples</text>\n", (unsigned long long)all);
    else
        tct_write_str(&w, "no CPU samples were recorded</text>\n");
    double scale = all ? (WIDTH - 2.0 * PAD) / (double)all : 0;
    for (uint32_t i = 0; i < tree.count && all; i++) {
        const struct tct_stack_node *n = &tree.nodes[i];
        double width = (double)n->total * scale;
        if (width < 0.1)
            continue;
        double y = height - BOTTOM - ((double)n->depth + 1) * ROW;
        box(&w, n, PAD + xs[i] * scale, width, y, all);
    }
    tct_write_str(&w, "</svg>\n");
    free(xs);
    tct_stack_tree_free(&tree);
    return tct_writer_finish(&w) ? -1 : 0;
}

const struct tct_format_ops tct_format_svg = {prepare, write_svg, NULL, 0};
