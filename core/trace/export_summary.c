/* export_summary.c - the trace as a text report, 100 columns wide, in the spirit of
 * cProfile's: what ran, how often, for how long, and what is missing from the capture. */
#include "trace/cpu_time.h"
#include "trace/export.h"
#include "trace/stacks.h"
#include "trace/units.h"
#include "trace/zone_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 100
#define DEFAULT_TOP 20

struct summary {
    FILE *out;
    const struct tct_trace *tr;
    const struct tct_names *names;
    int64_t span; /* the capture's length, for percentages */
};

static const char *percent(char buf[16], int64_t part, int64_t whole)
{
    if (whole <= 0)
        snprintf(buf, 16, "-");
    else
        snprintf(buf, 16, "%.1f%%", 100.0 * (double)part / (double)whole);
    return buf;
}

/* The last path component, so locations fit the line. */
static const char *plural(uint64_t count)
{
    return count == 1 ? "" : "s";
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *bslash = strrchr(path, '\\');
    if (bslash > slash)
        slash = bslash;
    return slash ? slash + 1 : path;
}

/* Prints s in exactly `width` columns: padded, or cut with "..." (byte-wise; a cut
 * multi-byte character is only cosmetic). */
static void column(FILE *out, const char *s, size_t width)
{
    size_t len = strlen(s);
    if (len <= width)
        fprintf(out, "%s%*s", s, (int)(width - len), "");
    else if (width > 3)
        fprintf(out, "%.*s...", (int)(width - 3), s);
    else
        fprintf(out, "%.*s", (int)width, s);
}

/* The first `frames` frames of a callstack, innermost first: "f < g < h ...". 0 when the
 * callstack is empty or unknown. */
static size_t stack_line(struct summary *s, uint32_t callstack, size_t frames, char *out, size_t len)
{
    struct tct_stack_frame f[16];
    size_t n = tct_stack_expand(s->names, callstack, f, frames < 16 ? frames : 16), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        char buf[TCT_FRAME_LABEL_BUF];
        size_t flen;
        const char *label = tct_frame_label(&f[i], buf, &flen);
        int w = snprintf(out + used, len - used, "%s%.*s", i ? " < " : "", (int)flen, label);
        used = w < 0 ? used : used + (size_t)w < len ? used + (size_t)w : len - 1;
    }
    return n;
}

static void heading(struct summary *s, const char *title)
{
    fprintf(s->out, "\n%s\n", title);
}

static void header(struct summary *s)
{
    const struct tcd_welcome *w = s->names->welcome;
    const struct tct_trace *tr = s->tr;
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], c[TCT_UNITS_BUF], d[TCT_UNITS_BUF], e[TCT_UNITS_BUF];
    if (w)
        fprintf(s->out, "tracyc capture of %.*s (pid %" PRIu64 ")\n", (int)sizeof w->program_name, w->program_name,
                w->pid);
    else
        fputs("tracyc capture (no client connected)\n", s->out);
    size_t points = 0;
    for (size_t i = 0; i < tr->plot_count; i++)
        points += tr->plots[i].points.count;
    fprintf(s->out, "Captured %s: %s zone%s on %zu thread%s, %s message%s, %s plot point%s, %s events\n",
            tct_format_duration(a, s->span), tct_format_count(b, tr->zones), plural(tr->zones), tr->thread_count,
            plural(tr->thread_count), tct_format_count(c, tr->messages.count), plural(tr->messages.count),
            tct_format_count(d, points), plural(points), tct_format_count(e, tr->events));
    for (size_t i = 0; i < tr->app_info_count; i++)
        fprintf(s->out, "App info: %s\n", tr->app_info[i]);
}

static void warnings(struct summary *s, const struct tct_export_options *o)
{
    const struct tct_trace *tr = s->tr;
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF];
    int any = 0;
    if (tr->dropped) {
        fprintf(s->out,
                "%s!! %s events were DROPPED by the client (its buffer limit was reached): "
                "this profile is missing them.\n",
                any++ ? "" : "\n", tct_format_count(a, tr->dropped));
    }
    if (tr->plot_skipped)
        fprintf(s->out,
                "%s!! %s plot values were SKIPPED by the client: NaN or infinity, which Tracy plots cannot hold.\n",
                any++ ? "" : "\n", tct_format_count(a, tr->plot_skipped));
    if (tr->crash.happened) {
        fprintf(s->out, "%s!! The program CRASHED (thread %" PRIu32 ", at %s): %s\n", any++ ? "" : "\n",
                tr->crash.thread, tct_format_duration(a, tr->crash.time), tct_crash_text(s->names, &tr->crash));
        char stack[WIDTH];
        if (stack_line(s, tr->crash.callstack, 8, stack, sizeof stack))
            fprintf(s->out, "   at %s\n", stack);
    }
    if (tr->untimed_switches)
        fprintf(s->out,
                "%s!! %s context switches came without a time (the client could not read its perf clock): "
                "no CPU time is shown for them.\n",
                any++ ? "" : "\n", tct_format_count(a, tr->untimed_switches));
    if (tr->samples_lost)
        fprintf(s->out,
                "%s!! %s samples were LOST by the client (the kernel's buffer overflowed): the sample "
                "counts are short.\n",
                any++ ? "" : "\n", tct_format_count(a, tr->samples_lost));
    if (o->incomplete || tr->unfinished_zones) {
        fprintf(s->out, "%s!! Capture incomplete", any++ ? "" : "\n");
        if (o->incomplete)
            fprintf(s->out, " (%s)", o->incomplete);
        if (tr->unfinished_zones)
            fprintf(s->out, ": %s zones were still open, closed at %s", tct_format_count(a, tr->unfinished_zones),
                    tct_format_duration(b, tr->last_time));
        fputs(".\n", s->out);
    }
    if (tr->lost_events)
        fprintf(s->out, "%s!! %s events were lost: the capture ran out of memory.\n", any++ ? "" : "\n",
                tct_format_count(a, tr->lost_events));
}

struct rank {
    int64_t key;
    uint32_t srcloc;
    size_t entry;
};

static int rank_cmp(const void *pa, const void *pb)
{
    const struct rank *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->srcloc < b->srcloc ? -1 : a->srcloc > b->srcloc;
}

static void zone_table(struct summary *s, const struct tct_zone_stats *st, struct rank *order, size_t top, int by_self)
{
    for (size_t i = 0; i < st->count; i++) {
        const struct tct_srcloc_stats *e = &st->entries[i];
        order[i] = (struct rank){by_self ? e->self_total : e->total, e->srcloc, i};
    }
    qsort(order, st->count, sizeof *order, rank_cmp);
    size_t rows = st->count < top ? st->count : top;
    char title[96];
    snprintf(title, sizeof title, "Top %zu zones by %s time (of %zu source locations)", rows,
             by_self ? "self" : "total", st->count);
    heading(s, title);
    fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  %s\n", "count", "total", "self", "mean", "min", "max", "%cap",
            "zone");
    for (size_t r = 0; r < rows; r++) {
        const struct tct_srcloc_stats *e = &st->entries[order[r].entry];
        char n[TCT_UNITS_BUF], t[TCT_UNITS_BUF], self[TCT_UNITS_BUF], mean[TCT_UNITS_BUF], mn[TCT_UNITS_BUF],
            mx[TCT_UNITS_BUF], pc[16];
        fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  ", tct_format_count(n, e->count),
                tct_format_duration(t, e->total), tct_format_duration(self, e->self_total),
                tct_format_duration(mean, e->total / (int64_t)e->count), tct_format_duration(mn, e->min),
                tct_format_duration(mx, e->max), percent(pc, by_self ? e->self_total : e->total, s->span));
        const struct tcd_srcloc *sl = s->names->srcloc(s->names->ctx, e->srcloc);
        char label[1024];
        if (sl && sl->file && sl->file[0])
            snprintf(label, sizeof label, "%s  %s:%" PRIu32, tct_srcloc_label(s->names, e->srcloc),
                     basename_of(sl->file), sl->line);
        else
            snprintf(label, sizeof label, "%s", tct_srcloc_label(s->names, e->srcloc));
        fprintf(s->out, "%.*s\n", WIDTH - 74, label);
    }
}

/* Where a function is: its symbol's definition when the client told ("file:line"), else
 * its file, else its image ("[image]"). */
static void function_location(struct summary *s, const struct tct_stack_frame *f, char *out, size_t len)
{
    const char *file = NULL;
    uint32_t line = 0;
    if (f->symbol && s->names->symbol && s->names->symbol(s->names->ctx, f->symbol, &file, &line) &&
        tct_known_name(file))
        snprintf(out, len, line ? "%s:%" PRIu32 : "%s", basename_of(file), line);
    else if (tct_known_name(f->file))
        snprintf(out, len, "%s", basename_of(f->file));
    else if (tct_known_name(f->image))
        snprintf(out, len, f->image[0] == '[' || f->image[0] == '<' ? "%s" : "[%s]", basename_of(f->image));
    else
        snprintf(out, len, "-");
}

struct function_rank {
    uint64_t key;
    size_t entry;
};

static int function_rank_cmp(const void *pa, const void *pb)
{
    const struct function_rank *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static void function_table(struct summary *s, const struct tct_function_table *ft, struct function_rank *order,
                           size_t top, int by_self)
{
    for (size_t i = 0; i < ft->count; i++)
        order[i] = (struct function_rank){by_self ? ft->entries[i].self : ft->entries[i].total, i};
    qsort(order, ft->count, sizeof *order, function_rank_cmp);
    size_t rows = 0;
    while (rows < ft->count && rows < top && order[rows].key)
        rows++;
    char title[96];
    snprintf(title, sizeof title, "Top %zu functions by %s samples (of %zu functions)", rows,
             by_self ? "self" : "total", ft->count);
    heading(s, title);
    fprintf(s->out, "%10s %7s %10s %7s  %-34s %s\n", "self", "self%", "total", "total%", "function", "location");
    for (size_t r = 0; r < rows; r++) {
        const struct tct_function_stats *e = &ft->entries[order[r].entry];
        char self[TCT_UNITS_BUF], total[TCT_UNITS_BUF], sp[16], tp[16], buf[TCT_FRAME_LABEL_BUF], name[256], where[256];
        size_t len;
        const char *label = tct_frame_label(&e->frame, buf, &len);
        snprintf(name, sizeof name, "%.*s", (int)len, label);
        function_location(s, &e->frame, where, sizeof where);
        fprintf(s->out, "%10s %7s %10s %7s  ", tct_format_count(self, e->self),
                percent(sp, (int64_t)e->self, (int64_t)ft->samples), tct_format_count(total, e->total),
                percent(tp, (int64_t)e->total, (int64_t)ft->samples));
        column(s->out, name, 34);
        fprintf(s->out, " %.*s\n", WIDTH - 74, where);
    }
}

/* perf report's view of the samples: self and total per function. */
static int sample_tables(struct summary *s, size_t top)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->samples)
        return 0;
    struct tct_function_table ft;
    struct function_rank *order = NULL;
    if (tct_function_table_of_samples(&ft, tr, s->names) != 0 ||
        !(order = malloc((ft.count ? ft.count : 1) * sizeof *order))) {
        tct_function_table_free(&ft);
        return -1;
    }
    size_t threads = 0;
    for (size_t i = 0; i < tr->thread_count; i++)
        threads += tr->threads[i]->cpu_samples != 0;
    char n[TCT_UNITS_BUF], lost[TCT_UNITS_BUF];
    fprintf(s->out, "\nSampling: %s CPU sample%s on %zu thread%s", tct_format_count(n, tr->samples),
            plural(tr->samples), threads, plural(threads));
    if (tr->samples_lost)
        fprintf(s->out, ", %s lost", tct_format_count(lost, tr->samples_lost));
    fputs("\n", s->out);
    function_table(s, &ft, order, top, 1);
    function_table(s, &ft, order, top, 0);
    free(order);
    tct_function_table_free(&ft);
    return 0;
}

/* Samples and on-CPU time of each thread that has either. */
static int cpu_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    size_t n;
    struct tct_cpu_time *times = tct_cpu_times(tr, s->span, &n);
    if (!times && n)
        return -1;
    if (!tr->samples && !n)
        return 0;
    heading(s, n ? "CPU per thread (samples; running and waiting time from the context switches)"
                 : "CPU per thread (samples)");
    fprintf(s->out, "  %-36s %12s %12s %12s %12s %7s %8s\n", "thread", "id", "samples", "on-CPU", "off-CPU", "%on",
            "switches");
    size_t k = 0;
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        const struct tct_cpu_time *c = k < n && times[k].thread == t->id ? &times[k++] : NULL;
        if (!t->cpu_samples && !c)
            continue;
        const char *name = s->names->thread(s->names->ctx, t->id);
        char sm[TCT_UNITS_BUF], on[TCT_UNITS_BUF], off[TCT_UNITS_BUF], pc[16], sw[TCT_UNITS_BUF];
        fputs("  ", s->out);
        column(s->out, name && name[0] ? name : "(unnamed)", 36);
        fprintf(s->out, " %12" PRIu32 " %12s %12s %12s %7s %8s\n", t->id, tct_format_count(sm, t->cpu_samples),
                c ? tct_format_duration(on, c->on_cpu) : "-", c ? tct_format_duration(off, c->off_cpu) : "-",
                c ? percent(pc, c->on_cpu, c->on_cpu + c->off_cpu) : "-",
                c ? tct_format_count(sw, c->switched_in) : "-");
    }
    free(times);
    return 0;
}

static void thread_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    heading(s, "Threads");
    fprintf(s->out, "  %-36s %12s %12s %12s %8s %12s\n", "thread", "id", "zones", "busy", "%cap", "messages");
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        if (!t->zones.count && !t->messages)
            continue;
        int64_t busy = 0;
        for (size_t z = 0; z < t->zones.count; z++) {
            const struct tct_zone *zone = tct_thread_zone(t, z);
            if (zone->depth == 0)
                busy = tct_time_add(busy, zone->end - zone->begin);
        }
        const char *name = s->names->thread(s->names->ctx, t->id);
        char n[TCT_UNITS_BUF], b[TCT_UNITS_BUF], pc[16], m[TCT_UNITS_BUF];
        fputs("  ", s->out);
        column(s->out, name && name[0] ? name : "(unnamed)", 36);
        fprintf(s->out, " %12" PRIu32 " %12s %12s %8s %12s\n", t->id, tct_format_count(n, t->zones.count),
                tct_format_duration(b, busy), percent(pc, busy, s->span), tct_format_count(m, t->messages));
    }
}

/* The first line of text[0..len) and a newline, a NUL shown as \0, cut with "..." past
 * width columns. */
static void first_line(FILE *out, const char *text, size_t len, size_t width)
{
    size_t used = 0;
    for (size_t i = 0; i < len && text[i] != '\n'; i++) {
        size_t w = text[i] ? 1 : 2;
        if (used + w > width) {
            fputs("...", out);
            break;
        }
        if (text[i])
            fputc(text[i], out);
        else
            fputs("\\0", out);
        used += w;
    }
    fputc('\n', out);
}

static void message_line(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    static const char *const severities[] = {"trace", "debug", "info", "warning", "error", "fatal"};
    uint64_t by_severity[6] = {0};
    for (size_t i = 0; i < tr->messages.count; i++) {
        uint8_t sev = tct_trace_message(tr, i)->severity;
        by_severity[sev < 6 ? sev : 5]++;
    }
    char n[TCT_UNITS_BUF];
    fprintf(s->out, "\nMessages: %s", tct_format_count(n, tr->messages.count));
    const char *sep = " (";
    for (int i = 3; i < 6; i++) {
        if (!by_severity[i])
            continue;
        fprintf(s->out, "%s%s %s", sep, tct_format_count(n, by_severity[i]), severities[i]);
        sep = ", ";
    }
    fputs(sep[0] == ',' ? ")\n" : "\n", s->out);
    /* Warnings and errors often concern the profile itself (a budget reached, the program
     * stopped by a signal): their first lines are shown. */
    enum { SHOWN = 10, TEXT_WIDTH = WIDTH - 13 }; /* "  warning " before, "..." after */
    uint64_t shown = 0;
    for (size_t i = 0; i < tr->messages.count; i++) {
        const struct tct_message *m = tct_trace_message(tr, i);
        if (m->severity < 3)
            continue;
        if (shown++ < SHOWN) {
            size_t len;
            const char *text = tct_message_text(s->names, m, &len);
            fprintf(s->out, "  %-7s ", severities[m->severity < 6 ? m->severity : 5]);
            first_line(s->out, text, len, TEXT_WIDTH);
        }
    }
    if (shown > SHOWN)
        fprintf(s->out, "  ... and %s more\n", tct_format_count(n, shown - SHOWN));
}

static void frame_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->frame_set_count)
        return;
    heading(s, "Frames");
    fprintf(s->out, "  %-30s %12s %12s %12s %12s %10s\n", "frame set", "frames", "mean", "min", "max", "fps");
    for (size_t i = 0; i < tr->frame_set_count; i++) {
        const struct tct_frame_set *fs = &tr->frame_sets[i];
        int64_t total = 0, mn = INT64_MAX, mx = 0;
        uint64_t timed = 0;
        for (size_t f = 0; f < fs->frames.count; f++) {
            const struct tct_frame *fr = tct_frame_at(fs, f);
            if (fr->end == TCT_TIME_NONE)
                continue;
            int64_t len = fr->end - fr->start;
            total = tct_time_add(total, len);
            timed++;
            if (len < mn)
                mn = len;
            if (len > mx)
                mx = len;
        }
        char n[TCT_UNITS_BUF], mean[TCT_UNITS_BUF], a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], fps[16] = "-";
        if (timed && total > 0)
            snprintf(fps, sizeof fps, "%.1f", 1e9 * (double)timed / (double)total);
        fputs("  ", s->out);
        const char *name = s->names->frame(s->names->ctx, fs->id);
        fprintf(s->out, "%-30.30s %12s %12s %12s %12s %10s\n", name ? name : "", tct_format_count(n, fs->frames.count),
                timed ? tct_format_duration(mean, total / (int64_t)timed) : "-",
                timed ? tct_format_duration(a, mn) : "-", timed ? tct_format_duration(b, mx) : "-", fps);
    }
}

/* text[0..len) for a column: a NUL shown as \0, cut to what buf holds. */
static const char *shown_text(const char *text, size_t len, char *buf, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < len && used + 2 < size; i++) {
        if (text[i]) {
            buf[used++] = text[i];
        } else {
            buf[used++] = '\\';
            buf[used++] = '0';
        }
    }
    buf[used] = '\0';
    return buf;
}

struct section_group {
    const struct tct_section *first;
    uint64_t count;
    int64_t total, max;
};

static int section_cmp(const void *pa, const void *pb)
{
    const struct tct_section *a = *(const struct tct_section *const *)pa, *b = *(const struct tct_section *const *)pb;
    if (a->category != b->category)
        return a->category < b->category ? -1 : 1;
    if (a->text_len != b->text_len)
        return a->text_len < b->text_len ? -1 : 1;
    int c = memcmp(a->text, b->text, a->text_len);
    return c ? c : a < b ? -1 : a > b;
}

static int group_cmp(const void *pa, const void *pb)
{
    const struct section_group *a = pa, *b = pb;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return section_cmp(&a->first, &b->first);
}

/* Sections grouped by category and name, the longest in total first. */
static int section_table(struct summary *s, size_t top)
{
    const struct tct_trace *tr = s->tr;
    size_t n = tr->sections.count, groups = 0;
    if (!n)
        return 0;
    const struct tct_section **v = malloc(n * sizeof *v);
    struct section_group *g = malloc(n * sizeof *g);
    if (!v || !g) {
        free(v), free(g);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = tct_trace_section(tr, i);
    qsort(v, n, sizeof *v, section_cmp);
    for (size_t i = 0; i < n; i++) {
        const struct tct_section *x = v[i];
        int64_t len = x->end - x->begin;
        if (!groups || x->category != g[groups - 1].first->category || x->text_len != g[groups - 1].first->text_len ||
            memcmp(x->text, g[groups - 1].first->text, x->text_len))
            g[groups++] = (struct section_group){x, 0, 0, 0};
        struct section_group *cur = &g[groups - 1];
        cur->count++;
        cur->total = tct_time_add(cur->total, len);
        cur->max = len > cur->max ? len : cur->max;
    }
    qsort(g, groups, sizeof *g, group_cmp);
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], c[TCT_UNITS_BUF], d[TCT_UNITS_BUF];
    char title[96];
    snprintf(title, sizeof title, "Sections (%s entered, %" PRIu64 " still open at the end)", tct_format_count(a, n),
             tr->unfinished_sections);
    heading(s, tr->unfinished_sections ? title : "Sections");
    fprintf(s->out, "  %-32s %-12s %8s %12s %12s %12s\n", "section", "category", "count", "total", "mean", "max");
    for (size_t i = 0; i < groups && i < top; i++) {
        char name[256], category[80];
        size_t len;
        const char *described = tct_section_category_text(tr, g[i].first->category, &len);
        char shown[64];
        snprintf(category, sizeof category, "%u%s%s", (unsigned)g[i].first->category, described ? " " : "",
                 described ? shown_text(described, len, shown, sizeof shown) : "");
        fputs("  ", s->out);
        column(s->out, shown_text(g[i].first->text, g[i].first->text_len, name, sizeof name), 32);
        fputc(' ', s->out);
        column(s->out, category, 12);
        fprintf(s->out, " %8s %12s %12s %12s\n", tct_format_count(a, g[i].count), tct_format_duration(b, g[i].total),
                tct_format_duration(c, g[i].total / (int64_t)g[i].count), tct_format_duration(d, g[i].max));
    }
    if (groups > top)
        fprintf(s->out, "  ... and %s more\n", tct_format_count(a, groups - top));
    free(v);
    free(g);
    return 0;
}

/* Min, max and last of a plot whose every point is an integer, exactly. */
static void int_plot_row(struct summary *s, const struct tct_plot *p)
{
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t k = 0; k < p->points.count; k++) {
        int64_t v = tct_plot_point(p, k)->ivalue;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    fprintf(s->out, " %14" PRId64 " %14" PRId64 " %14" PRId64 "\n", mn, mx,
            tct_plot_point(p, p->points.count - 1)->ivalue);
}

static void plot_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->plot_count)
        return;
    heading(s, "Plots");
    fprintf(s->out, "  %-36s %12s %14s %14s %14s\n", "plot", "points", "min", "max", "last");
    for (size_t i = 0; i < tr->plot_count; i++) {
        const struct tct_plot *p = &tr->plots[i];
        const char *name = s->names->plot(s->names->ctx, p->id);
        char n[TCT_UNITS_BUF];
        fprintf(s->out, "  %-36.36s %12s", name && name[0] ? name : "(unnamed)", tct_format_count(n, p->points.count));
        if (p->points.count && p->is_int)
            int_plot_row(s, p);
        else if (p->points.count)
            fprintf(s->out, " %14.6g %14.6g %14.6g\n", p->min, p->max, tct_plot_point(p, p->points.count - 1)->value);
        else
            fprintf(s->out, " %14s %14s %14s\n", "-", "-", "-");
    }
}

static int site_cmp(const void *pa, const void *pb)
{
    const struct tct_alloc_site *a = *(const struct tct_alloc_site *const *)pa,
                                *b = *(const struct tct_alloc_site *const *)pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return a->callstack < b->callstack ? -1 : a->callstack > b->callstack;
}

/* The callstacks that allocated the most bytes in a pool (MemAllocCallstack). */
static void alloc_sites(struct summary *s, const struct tct_mem_pool *p)
{
    enum { SITES = 5 };
    const struct tct_alloc_site **order = p->site_count ? malloc(p->site_count * sizeof *order) : NULL;
    if (!order)
        return;
    for (size_t i = 0; i < p->site_count; i++)
        order[i] = &p->sites[i];
    qsort(order, p->site_count, sizeof *order, site_cmp);
    for (size_t i = 0; i < p->site_count && i < SITES; i++) {
        char bytes[TCT_UNITS_BUF], count[TCT_UNITS_BUF], stack[WIDTH];
        if (!stack_line(s, order[i]->callstack, 4, stack, sizeof stack))
            snprintf(stack, sizeof stack, "callstack %" PRIu32, order[i]->callstack);
        fprintf(s->out, "    %12s in %8s allocs from %.*s\n", tct_format_bytes(bytes, (double)order[i]->bytes),
                tct_format_count(count, order[i]->count), WIDTH - 40, stack);
    }
    free(order);
}

static void memory_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->pool_count)
        return;
    heading(s, "Memory");
    fprintf(s->out, "  %-24s %12s %12s %14s %14s %16s\n", "pool", "allocs", "frees", "live", "peak", "allocated");
    for (size_t i = 0; i < tr->pool_count; i++) {
        const struct tct_mem_pool *p = &tr->pools[i];
        const char *name = s->names->pool(s->names->ctx, p->id);
        char a[TCT_UNITS_BUF], f[TCT_UNITS_BUF], live[TCT_UNITS_BUF], peak[TCT_UNITS_BUF], total[TCT_UNITS_BUF];
        fprintf(s->out, "  %-24.24s %12s %12s %14s %14s %16s\n", name && name[0] ? name : "(default)",
                tct_format_count(a, p->allocs), tct_format_count(f, p->frees),
                tct_format_bytes(live, (double)p->live_bytes), tct_format_bytes(peak, (double)p->peak_bytes),
                tct_format_bytes(total, (double)p->total_bytes));
        if (p->unmatched_frees || p->discards)
            fprintf(s->out, "  %-24s %s frees of unknown addresses, %" PRIu64 " discards\n", "",
                    tct_format_count(a, p->unmatched_frees), p->discards);
        alloc_sites(s, p);
    }
}

static void lock_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->lock_count)
        return;
    heading(s, "Locks");
    fprintf(s->out, "  %-32s %12s %12s %12s %12s %12s\n", "lock", "obtains", "contended", "waited", "max wait", "%cap");
    for (size_t i = 0; i < tr->lock_count; i++) {
        const struct tct_lock *l = &tr->locks[i];
        const char *name = l->name;
        char fallback[48];
        if (!name) {
            const struct tcd_srcloc *sl = s->names->srcloc(s->names->ctx, l->srcloc);
            name = sl ? tct_srcloc_label(s->names, l->srcloc) : "";
            if (!name[0]) {
                snprintf(fallback, sizeof fallback, "lock %" PRIu32, l->id);
                name = fallback;
            }
        }
        char o[TCT_UNITS_BUF], c[TCT_UNITS_BUF], w[TCT_UNITS_BUF], mx[TCT_UNITS_BUF], pc[16];
        fprintf(s->out, "  %-32.32s %12s %12s %12s %12s %12s\n", name, tct_format_count(o, l->obtains),
                tct_format_count(c, l->contended), tct_format_duration(w, l->wait_total),
                tct_format_duration(mx, l->wait_max), percent(pc, l->wait_total, s->span));
    }
}

static void gpu_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->gpu_context_count)
        return;
    heading(s, "GPU");
    fprintf(s->out, "  %-40s %12s %12s %12s\n", "context", "zones", "timed", "GPU time");
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        const struct tct_gpu_context *c = &tr->gpu_contexts[i];
        int64_t busy = 0;
        uint64_t timed = 0;
        for (size_t k = 0; k < c->zones.count; k++) {
            const struct tct_gpu_zone *g = tct_gpu_zone_at(c, k);
            if (g->gpu_begin == TCT_TIME_NONE || g->gpu_end == TCT_TIME_NONE)
                continue;
            timed++;
            if (g->depth == 0)
                busy = tct_time_add(busy, g->gpu_end - g->gpu_begin);
        }
        char name[64], z[TCT_UNITS_BUF], t[TCT_UNITS_BUF], b[TCT_UNITS_BUF];
        snprintf(name, sizeof name, "%" PRIu32 "%s%s", c->id, c->name ? " " : "", c->name ? c->name : "");
        fprintf(s->out, "  %-40.40s %12s %12s %12s\n", name, tct_format_count(z, c->zones.count),
                tct_format_count(t, timed), tct_format_duration(b, busy));
    }
}

int tct_export_summary(FILE *out, const struct tct_trace *tr, const struct tct_names *names,
                       const struct tct_export_options *o)
{
    struct summary s = {out, tr, names, tct_export_last_time(tr, names)};
    struct tct_zone_stats st;
    if (tct_zone_stats_compute(&st, tr, TCT_STATS_ALL) != 0) {
        errno = ENOMEM;
        return -1;
    }
    struct rank *order = malloc((st.count ? st.count : 1) * sizeof *order);
    if (!order) {
        tct_zone_stats_free(&st);
        errno = ENOMEM;
        return -1;
    }
    header(&s);
    warnings(&s, o);
    size_t top = o->top ? o->top : DEFAULT_TOP;
    if (st.count) {
        zone_table(&s, &st, order, top, 0);
        zone_table(&s, &st, order, top, 1);
    } else {
        fputs("\nNo zones were recorded.\n", out);
    }
    int rc = sample_tables(&s, top);
    thread_table(&s);
    if (rc == 0)
        rc = cpu_table(&s);
    message_line(&s);
    if (rc == 0)
        rc = section_table(&s, top);
    frame_table(&s);
    plot_table(&s);
    memory_table(&s);
    lock_table(&s);
    gpu_table(&s);
    free(order);
    tct_zone_stats_free(&st);
    if (rc != 0) {
        errno = ENOMEM;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}
