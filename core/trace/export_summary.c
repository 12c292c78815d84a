/* export_summary.c - the trace as a text report, 100 columns wide, in the spirit of
 * cProfile's: what ran, how often, for how long, and what is missing from the capture.
 *
 * Made of aggregators only (sink.h): zone, sample, message, frame, plot, memory, lock and
 * GPU statistics, and the scheduling log for the CPU time of each thread. */
#include "trace/cpu_time.h"
#include "trace/export.h"
#include "trace/frame_stats.h"
#include "trace/gpu_stats.h"
#include "trace/lock_stats.h"
#include "trace/memory_stats.h"
#include "trace/message_stats.h"
#include "trace/names.h"
#include "trace/plot_stats.h"
#include "trace/sched_log.h"
#include "trace/section_stats.h"
#include "trace/stacks.h"
#include "trace/units.h"
#include "trace/zone_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 100
#define DEFAULT_TOP 20
#define CLOCK_COLUMN_MAX_NS 1000000000000LL /* 1000 s: the widest clock error its column holds */

/* The sinks the summary reads. */
struct parts {
    struct tct_zone_stats *zones;
    struct tct_sample_stats *samples;
    struct tct_message_stats *messages;
    struct tct_frame_stats *frames;
    struct tct_plot_stats *plots;
    struct tct_memory_stats *memory;
    struct tct_lock_stats *locks;
    struct tct_gpu_stats *gpu;
    struct tct_sched_log *sched;
    struct tct_section_stats *sections;
};

struct summary {
    FILE *out;
    struct tct_trace *tr;
    const struct parts *p;
    const struct tct_source *src;  /* the first source */
    const struct tct_names *names; /* its names */
    int64_t span;                  /* the capture's length, for percentages */
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
static size_t stack_line(const struct tct_names *names, uint32_t callstack, size_t frames, char *out, size_t len)
{
    struct tct_stack_frame f[16];
    size_t n = tct_stack_expand(names, callstack, f, frames < 16 ? frames : 16), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        char buf[TCT_FRAME_LABEL_BUF];
        size_t flen;
        const char *label = tct_frame_label(&f[i], buf, &flen);
        int w = snprintf(out + used, len - used, "%s%.*s", i ? " < " : "", (int)flen, label);
        used = w < 0 ? used : used + (size_t)w < len ? used + (size_t)w : len - 1;
    }
    if (used + 1 == len && len > 4) /* it did not fit: the cut is marked */
        memcpy(out + len - 4, "...", 4);
    return n;
}

static void heading(struct summary *s, const char *title)
{
    fprintf(s->out, "\n%s\n", title);
}

static void header(struct summary *s)
{
    const struct tcd_welcome *w = s->names ? s->names->welcome : NULL;
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], c[TCT_UNITS_BUF], d[TCT_UNITS_BUF], e[TCT_UNITS_BUF];
    uint32_t sources = (uint32_t)tct_trace_source_count(s->tr);
    if (sources > 1) {
        enum { LISTED = 8 };
        fprintf(s->out, "tracyc capture of %" PRIu32 " processes:", sources);
        for (uint32_t i = 0; i < sources && i < LISTED; i++) {
            char label[TCT_SOURCE_LABEL];
            fprintf(s->out, "%s %s", i ? "," : "", tct_source_label(tct_trace_source(s->tr, i), label));
        }
        fputs(sources > LISTED ? ", ...\n" : "\n", s->out);
    } else if (w)
        fprintf(s->out, "tracyc capture of %.*s (pid %" PRIu64 ")\n", (int)sizeof w->program_name, w->program_name,
                w->pid);
    else
        fputs("tracyc capture (no client connected)\n", s->out);
    uint64_t zones = 0, messages = 0, points = 0, events = 0;
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++) {
        const struct tct_source *src = tct_trace_source(s->tr, i);
        zones += src->zones;
        messages += src->messages;
        points += src->plot_points;
        events += src->events;
    }
    size_t threads = tct_trace_thread_count(s->tr);
    fprintf(s->out, "Captured %s: %s zone%s on %zu thread%s, %s message%s, %s plot point%s, %s events\n",
            tct_format_duration(a, s->span), tct_format_count(b, zones), plural(zones), threads, plural(threads),
            tct_format_count(c, messages), plural(messages), tct_format_count(d, points), plural(points),
            tct_format_count(e, events));
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++) {
        const struct tct_source *src = tct_trace_source(s->tr, i);
        for (size_t k = 0; k < src->app_info_count; k++)
            fprintf(s->out, "App info: %s\n", src->app_info[k]);
    }
}

/* What is missing from one source's capture. */
static void source_warnings(struct summary *s, const struct tct_source *src, uint64_t lost, int *any)
{
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], label[TCT_SOURCE_LABEL], who[TCT_SOURCE_LABEL + 2] = "";
    const struct tct_names *names = &src->names;
    if (tct_trace_source_count(s->tr) > 1) /* which process it is about */
        snprintf(who, sizeof who, "%s: ", tct_source_label(src, label));
    if (src->dropped) {
        fprintf(s->out,
                "%s!! %s%s events were DROPPED by the client (its buffer limit was reached): "
                "this profile is missing them.\n",
                (*any)++ ? "" : "\n", who, tct_format_count(a, src->dropped));
    }
    if (src->plot_skipped)
        fprintf(s->out,
                "%s!! %s%s plot values were SKIPPED by the client: NaN or infinity, which Tracy plots cannot hold.\n",
                (*any)++ ? "" : "\n", who, tct_format_count(a, src->plot_skipped));
    if (src->crash.happened) {
        size_t len;
        const char *text = tct_text_or_string(names, src->crash.text, strlen(src->crash.text), src->crash.string, &len);
        fprintf(s->out, "%s!! %sThe program CRASHED (thread %" PRIu32 ", at %s): %.*s\n", (*any)++ ? "" : "\n", who,
                src->crash.thread, tct_format_duration(a, src->crash.time), (int)len, text);
        char stack[4096];
        if (stack_line(names, src->crash.callstack, 8, stack, sizeof stack))
            fprintf(s->out, "   at %s\n", stack);
    }
    if (src->untimed_switches)
        fprintf(s->out,
                "%s!! %s%s context switches came without a time (the client could not read its perf clock): "
                "no CPU time is shown for them.\n",
                (*any)++ ? "" : "\n", who, tct_format_count(a, src->untimed_switches));
    if (src->samples_lost)
        fprintf(s->out,
                "%s!! %s%s samples were LOST by the client (the kernel's buffer overflowed): the sample "
                "counts are short.\n",
                (*any)++ ? "" : "\n", who, tct_format_count(a, src->samples_lost));
    if (src->incomplete || src->unfinished_zones) {
        fprintf(s->out, "%s!! %sCapture incomplete", (*any)++ ? "" : "\n", who);
        if (src->incomplete)
            fprintf(s->out, " (%s)", src->incomplete);
        if (src->unfinished_zones)
            fprintf(s->out, ": %s zones were still open, closed at %s", tct_format_count(a, src->unfinished_zones),
                    tct_format_duration(b, src->last_time));
        fputs(".\n", s->out);
    }
    if (src->lost_events + lost)
        fprintf(s->out, "%s!! %s%s events were lost: the capture ran out of memory.\n", (*any)++ ? "" : "\n", who,
                tct_format_count(a, src->lost_events + lost));
}

static void warnings(struct summary *s)
{
    int any = 0;
    /* What the statistics themselves could not keep counts against the first source. */
    uint64_t lost = tct_memory_stats_lost(s->p->memory) + tct_lock_stats_lost(s->p->locks);
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++, lost = 0)
        source_warnings(s, tct_trace_source(s->tr, i), lost, &any);
}

struct rank {
    int64_t key;
    size_t entry;
};

static int rank_cmp(const void *pa, const void *pb)
{
    const struct rank *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static const struct tct_names *names_of(const struct summary *s, uint32_t source)
{
    return &tct_trace_source(s->tr, source)->names;
}

/* A table of zones: rows (places, summed over processes; ties broken by their order). */
static void zone_table(struct summary *s, const struct tct_place_stats *rows, size_t count, struct rank *order,
                       size_t top, int by_self, const char *title)
{
    for (size_t i = 0; i < count; i++)
        order[i] = (struct rank){by_self ? rows[i].sum.self_total : rows[i].sum.total, i};
    qsort(order, count, sizeof *order, rank_cmp);
    size_t shown = count < top ? count : top;
    char heading_text[256];
    snprintf(heading_text, sizeof heading_text, title, shown, by_self ? "self" : "total", count);
    heading(s, heading_text);
    fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  %s\n", "count", "total", "self", "mean", "min", "max", "%cap",
            "zone");
    for (size_t r = 0; r < shown; r++) {
        const struct tct_place_stats *row = &rows[order[r].entry];
        const struct tct_span_stats *e = &row->sum;
        const struct tct_names *names = names_of(s, row->first->source);
        char n[TCT_UNITS_BUF], t[TCT_UNITS_BUF], self[TCT_UNITS_BUF], mean[TCT_UNITS_BUF], mn[TCT_UNITS_BUF],
            mx[TCT_UNITS_BUF], pc[16];
        fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  ", tct_format_count(n, e->count),
                tct_format_duration(t, e->total), tct_format_duration(self, e->self_total),
                tct_format_duration(mean, e->total / (int64_t)e->count), tct_format_duration(mn, e->min),
                tct_format_duration(mx, e->max), percent(pc, by_self ? e->self_total : e->total, s->span));
        /* The zone's name and place in full, whatever their length: nothing is cut. */
        const struct tcd_srcloc *sl = names->srcloc(names->ctx, row->first->srcloc);
        fputs(tct_srcloc_label(names, row->first->srcloc), s->out);
        if (sl && sl->file && sl->file[0])
            fprintf(s->out, "  %s:%" PRIu32, basename_of(sl->file), sl->line);
        if (row->processes > 1)
            fprintf(s->out, "  (%" PRIu32 " processes)", row->processes);
        fputc('\n', s->out);
    }
}

/* Where a function is: its symbol's definition when the client told ("file:line"), else
 * where the first sample in it was ("file:line"), else its image ("[image]"). An inlined
 * function has no symbol of its own (the one it carries is its caller's): where the
 * sample was, in its own file. */
static void function_location(const struct tct_names *names, const struct tct_stack_frame *f, char *out, size_t len)
{
    const char *file = NULL;
    uint32_t line = 0;
    if (!f->inlined && f->symbol && names->symbol && names->symbol(names->ctx, f->symbol, &file, &line) &&
        tct_known_name(file))
        snprintf(out, len, line ? "%s:%" PRIu32 : "%s", basename_of(file), line);
    else if (tct_known_name(f->file))
        snprintf(out, len, f->line ? "%s:%" PRIu32 : "%s", basename_of(f->file), f->line);
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
    /* The function column as wide as its longest name, up to NAME_MAX (longer ones are cut,
     * marked "..."); the location last and in full. */
    enum { NAME_MIN = 8, NAME_MAX = 60 };
    size_t width = NAME_MIN;
    for (size_t r = 0; r < rows; r++) {
        char buf[TCT_FRAME_LABEL_BUF];
        size_t len;
        tct_frame_label(&ft->entries[order[r].entry].frame, buf, &len);
        width = len > width ? len : width;
    }
    width = width < NAME_MAX ? width : NAME_MAX;
    fprintf(s->out, "%10s %7s %10s %7s  %-*s %s\n", "self", "self%", "total", "total%", (int)width, "function",
            "location");
    for (size_t r = 0; r < rows; r++) {
        const struct tct_function_stats *e = &ft->entries[order[r].entry];
        char self[TCT_UNITS_BUF], total[TCT_UNITS_BUF], sp[16], tp[16], buf[TCT_FRAME_LABEL_BUF], name[NAME_MAX + 4],
            where[4096];
        size_t len;
        const char *label = tct_frame_label(&e->frame, buf, &len);
        snprintf(name, sizeof name, "%.*s", (int)len, label); /* past NAME_MAX column() marks the cut */
        function_location(names_of(s, e->source), &e->frame, where, sizeof where);
        fprintf(s->out, "%10s %7s %10s %7s  ", tct_format_count(self, e->self),
                percent(sp, (int64_t)e->self, (int64_t)ft->samples), tct_format_count(total, e->total),
                percent(tp, (int64_t)e->total, (int64_t)ft->samples));
        column(s->out, name, width);
        fprintf(s->out, " %s\n", where);
    }
}

/* perf report's view of the samples: self and total per function. */
static int sample_tables(struct summary *s, size_t top)
{
    uint64_t samples = 0, lost_samples = 0;
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++) {
        samples += tct_trace_source(s->tr, i)->samples;
        lost_samples += tct_trace_source(s->tr, i)->samples_lost;
    }
    if (!samples)
        return 0;
    struct tct_function_table ft;
    struct function_rank *order = NULL;
    if (tct_function_table_of_samples(&ft, s->tr, s->p->samples) != 0 ||
        !(order = malloc((ft.count ? ft.count : 1) * sizeof *order))) {
        tct_function_table_free(&ft);
        return -1;
    }
    size_t threads = 0;
    for (size_t i = 0; i < tct_trace_thread_count(s->tr); i++)
        threads += tct_trace_thread_at(s->tr, i)->cpu_samples != 0;
    char n[TCT_UNITS_BUF], lost[TCT_UNITS_BUF];
    fprintf(s->out, "\nSampling: %s CPU sample%s on %zu thread%s", tct_format_count(n, samples), plural(samples),
            threads, plural(threads));
    if (lost_samples)
        fprintf(s->out, ", %s lost", tct_format_count(lost, lost_samples));
    fputs("\n", s->out);
    function_table(s, &ft, order, top, 1);
    function_table(s, &ft, order, top, 0);
    free(order);
    tct_function_table_free(&ft);
    return 0;
}

/* A name of a process's (a frame set, plot, pool, lock, GPU context); in a capture of
 * several processes, after the process's. */
static const char *of_process(const struct summary *s, uint32_t source, const char *name, char *buf, size_t size)
{
    if (tct_trace_source_count(s->tr) < 2)
        return name;
    char label[TCT_SOURCE_LABEL];
    snprintf(buf, size, "%s %s", tct_source_label(tct_trace_source(s->tr, source), label), name);
    return buf;
}

/* A thread's name; in a capture of several processes, after its process's. */
static const char *thread_name(const struct summary *s, const struct tct_thread *t, char *buf, size_t size)
{
    const struct tct_names *names = names_of(s, t->source);
    const char *name = names->thread(names->ctx, t->id);
    name = name && name[0] ? name : "(unnamed)";
    if (tct_trace_source_count(s->tr) < 2)
        return name;
    char label[TCT_SOURCE_LABEL];
    snprintf(buf, size, "%s %s", tct_source_label(tct_trace_source(s->tr, t->source), label), name);
    return buf;
}

/* Samples and on-CPU time of each thread that has either. */
static int cpu_table(struct summary *s)
{
    size_t n;
    struct tct_cpu_time *times = tct_cpu_times(s->tr, s->p->sched, s->span, &n);
    if (!times && n)
        return -1;
    uint64_t samples = 0;
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++)
        samples += tct_trace_source(s->tr, i)->samples;
    if (!samples && !n)
        return 0;
    heading(s, n ? "CPU per thread (samples; running and waiting time from the context switches)"
                 : "CPU per thread (samples)");
    fprintf(s->out, "  %-36s %12s %12s %12s %12s %7s %8s\n", "thread", "id", "samples", "on-CPU", "off-CPU", "%on",
            "switches");
    size_t k = 0;
    for (size_t i = 0; i < tct_trace_thread_count(s->tr); i++) {
        const struct tct_thread *t = tct_trace_thread_at(s->tr, i);
        const struct tct_cpu_time *c = k < n && times[k].thread == t ? &times[k++] : NULL;
        if (!t->cpu_samples && !c)
            continue;
        char sm[TCT_UNITS_BUF], on[TCT_UNITS_BUF], off[TCT_UNITS_BUF], pc[16], sw[TCT_UNITS_BUF];
        fputs("  ", s->out);
        char named[512];
        column(s->out, thread_name(s, t, named, sizeof named), 36);
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
    heading(s, "Threads");
    fprintf(s->out, "  %-36s %12s %12s %12s %8s %12s\n", "thread", "id", "zones", "busy", "%cap", "messages");
    for (size_t i = 0; i < tct_trace_thread_count(s->tr); i++) {
        const struct tct_thread *t = tct_trace_thread_at(s->tr, i);
        if (!t->zones && !t->messages)
            continue;
        char n[TCT_UNITS_BUF], b[TCT_UNITS_BUF], pc[16], m[TCT_UNITS_BUF];
        fputs("  ", s->out);
        char named[512];
        column(s->out, thread_name(s, t, named, sizeof named), 36);
        fprintf(s->out, " %12" PRIu32 " %12s %12s %8s %12s\n", t->id, tct_format_count(n, t->zones),
                tct_format_duration(b, t->busy), percent(pc, t->busy, s->span), tct_format_count(m, t->messages));
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
    static const char *const severities[] = {"trace", "debug", "info", "warning", "error", "fatal"};
    const struct tct_message_stats *ms = s->p->messages;
    uint64_t all = 0;
    for (int i = 0; i < 6; i++)
        all += ms->by_severity[i];
    char n[TCT_UNITS_BUF];
    fprintf(s->out, "\nMessages: %s", tct_format_count(n, all));
    const char *sep = " (";
    for (int i = 3; i < 6; i++) {
        if (!ms->by_severity[i])
            continue;
        fprintf(s->out, "%s%s %s", sep, tct_format_count(n, ms->by_severity[i]), severities[i]);
        sep = ", ";
    }
    fputs(sep[0] == ',' ? ")\n" : "\n", s->out);
    /* Warnings and errors often concern the profile itself (a budget reached, the program
     * stopped by a signal): their first lines are shown. */
    enum { TEXT_WIDTH = WIDTH - 13 }; /* "  warning " before, "..." after */
    for (size_t i = 0; i < ms->shown_count; i++) {
        const struct tct_shown_message *m = &ms->shown[i];
        size_t len;
        const char *text =
            tct_text_or_string(names_of(s, m->source), m->text ? m->text : "", m->text_len, m->string, &len);
        fprintf(s->out, "  %-7s ", severities[m->severity]);
        first_line(s->out, text, len, TEXT_WIDTH);
    }
    if (ms->warnings > TCT_MESSAGES_SHOWN)
        fprintf(s->out, "  ... and %s more\n", tct_format_count(n, ms->warnings - TCT_MESSAGES_SHOWN));
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

static int group_cmp(const void *pa, const void *pb)
{
    const struct tct_section_group *a = *(const struct tct_section_group *const *)pa;
    const struct tct_section_group *b = *(const struct tct_section_group *const *)pb;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    if (a->category != b->category)
        return a->category < b->category ? -1 : 1;
    if (a->name_len != b->name_len)
        return a->name_len < b->name_len ? -1 : 1;
    return memcmp(a->name, b->name, a->name_len);
}

/* Sections grouped by category and name, the longest in total first. */
static int section_table(struct summary *s, size_t top)
{
    size_t groups = tct_section_group_count(s->p->sections);
    if (!groups)
        return 0;
    const struct tct_section_group **g = malloc(groups * sizeof *g);
    if (!g)
        return -1;
    for (size_t i = 0; i < groups; i++)
        g[i] = tct_section_group_at(s->p->sections, i);
    qsort(g, groups, sizeof *g, group_cmp);
    uint64_t unfinished = 0;
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++)
        unfinished += tct_trace_source(s->tr, i)->unfinished_sections;
    char a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], c[TCT_UNITS_BUF], d[TCT_UNITS_BUF];
    char title[96];
    snprintf(title, sizeof title, "Sections (%s entered, %" PRIu64 " still open at the end)",
             tct_format_count(a, tct_section_stats_entered(s->p->sections)), unfinished);
    heading(s, unfinished ? title : "Sections");
    fprintf(s->out, "  %-32s %-12s %8s %12s %12s %12s\n", "section", "category", "count", "total", "mean", "max");
    for (size_t i = 0; i < groups && i < top; i++) {
        char name[256], category[80], shown[64];
        size_t len;
        const char *described = tct_trace_section_category(s->tr, g[i]->source, g[i]->category, &len);
        snprintf(category, sizeof category, "%u%s%s", (unsigned)g[i]->category, described ? " " : "",
                 described ? shown_text(described, len, shown, sizeof shown) : "");
        fputs("  ", s->out);
        column(s->out, shown_text(g[i]->name, g[i]->name_len, name, sizeof name), 32);
        fputc(' ', s->out);
        column(s->out, category, 12);
        fprintf(s->out, " %8s %12s %12s %12s\n", tct_format_count(a, g[i]->count), tct_format_duration(b, g[i]->total),
                tct_format_duration(c, g[i]->total / (int64_t)g[i]->count), tct_format_duration(d, g[i]->max));
    }
    if (groups > top)
        fprintf(s->out, "  ... and %s more\n", tct_format_count(a, groups - top));
    free(g);
    return 0;
}

static void frame_table(struct summary *s)
{
    if (!tct_trace_frame_set_count(s->tr))
        return;
    heading(s, "Frames");
    fprintf(s->out, "  %-30s %12s %12s %12s %12s %10s\n", "frame set", "frames", "mean", "min", "max", "fps");
    for (size_t i = 0; i < tct_trace_frame_set_count(s->tr); i++) {
        const struct tct_frame_set *fs = tct_trace_frame_set_at(s->tr, i);
        struct tct_frame_set_stats st = tct_frame_stats_get(s->p->frames, fs->index);
        char n[TCT_UNITS_BUF], mean[TCT_UNITS_BUF], a[TCT_UNITS_BUF], b[TCT_UNITS_BUF], fps[16] = "-";
        if (st.timed && st.total > 0)
            snprintf(fps, sizeof fps, "%.1f", 1e9 * (double)st.timed / (double)st.total);
        fputs("  ", s->out);
        const struct tct_names *names = names_of(s, fs->source);
        const char *name = names->frame(names->ctx, fs->id);
        char named[512];
        column(s->out, of_process(s, fs->source, name ? name : "", named, sizeof named), 30);
        fprintf(s->out, " %12s %12s %12s %12s %10s\n", tct_format_count(n, st.frames),
                st.timed ? tct_format_duration(mean, st.total / (int64_t)st.timed) : "-",
                st.timed ? tct_format_duration(a, st.min) : "-", st.timed ? tct_format_duration(b, st.max) : "-", fps);
    }
}

static void plot_table(struct summary *s)
{
    if (!tct_trace_plot_count(s->tr))
        return;
    heading(s, "Plots");
    fprintf(s->out, "  %-36s %12s %14s %14s %14s\n", "plot", "points", "min", "max", "last");
    for (size_t i = 0; i < tct_trace_plot_count(s->tr); i++) {
        const struct tct_plot *p = tct_trace_plot_at(s->tr, i);
        struct tct_plot_values v = tct_plot_stats_get(s->p->plots, p->index);
        const struct tct_names *names = names_of(s, p->source);
        const char *name = names->plot(names->ctx, p->id);
        char n[TCT_UNITS_BUF];
        char named[512];
        fputs("  ", s->out);
        column(s->out, of_process(s, p->source, name && name[0] ? name : "(unnamed)", named, sizeof named), 36);
        fprintf(s->out, " %12s", tct_format_count(n, v.points));
        if (v.points && v.is_int) /* exactly */
            fprintf(s->out, " %14" PRId64 " %14" PRId64 " %14" PRId64 "\n", v.imin, v.imax, v.ilast);
        else if (v.points)
            fprintf(s->out, " %14.6g %14.6g %14.6g\n", v.min, v.max, v.last);
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
        char bytes[TCT_UNITS_BUF], count[TCT_UNITS_BUF], stack[4096];
        if (!stack_line(names_of(s, p->source), order[i]->callstack, 4, stack, sizeof stack))
            snprintf(stack, sizeof stack, "callstack %" PRIu32, order[i]->callstack);
        fprintf(s->out, "    %12s in %8s allocs from %s\n", tct_format_bytes(bytes, (double)order[i]->bytes),
                tct_format_count(count, order[i]->count), stack);
    }
    free(order);
}

static void memory_table(struct summary *s)
{
    if (!tct_memory_pool_count(s->p->memory))
        return;
    heading(s, "Memory");
    fprintf(s->out, "  %-24s %12s %12s %14s %14s %16s\n", "pool", "allocs", "frees", "live", "peak", "allocated");
    for (size_t i = 0; i < tct_memory_pool_count(s->p->memory); i++) {
        const struct tct_mem_pool *p = tct_memory_pool_at(s->p->memory, i);
        const struct tct_names *names = names_of(s, p->source);
        const char *name = names->pool(names->ctx, p->id);
        char a[TCT_UNITS_BUF], f[TCT_UNITS_BUF], live[TCT_UNITS_BUF], peak[TCT_UNITS_BUF], total[TCT_UNITS_BUF];
        char named[512];
        fputs("  ", s->out);
        column(s->out, of_process(s, p->source, name && name[0] ? name : "(default)", named, sizeof named), 24);
        fprintf(s->out, " %12s %12s %14s %14s %16s\n", tct_format_count(a, p->allocs), tct_format_count(f, p->frees),
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
    if (!tct_lock_count(s->p->locks))
        return;
    heading(s, "Locks");
    fprintf(s->out, "  %-32s %12s %12s %12s %12s %12s\n", "lock", "obtains", "contended", "waited", "max wait", "%cap");
    for (size_t i = 0; i < tct_lock_count(s->p->locks); i++) {
        const struct tct_lock *l = tct_lock_at(s->p->locks, i);
        char fallback[48];
        const char *name = tct_lock_label(s->tr, l, fallback, sizeof fallback);
        char o[TCT_UNITS_BUF], c[TCT_UNITS_BUF], w[TCT_UNITS_BUF], mx[TCT_UNITS_BUF], pc[16];
        char named[512];
        fputs("  ", s->out);
        column(s->out, of_process(s, l->source, name, named, sizeof named), 32);
        fprintf(s->out, " %12s %12s %12s %12s %12s\n", tct_format_count(o, l->obtains),
                tct_format_count(c, l->contended), tct_format_duration(w, l->wait_total),
                tct_format_duration(mx, l->wait_max), percent(pc, l->wait_total, s->span));
    }
}

static void gpu_table(struct summary *s)
{
    if (!tct_trace_gpu_context_count(s->tr))
        return;
    heading(s, "GPU");
    fprintf(s->out, "  %-40s %12s %12s %12s\n", "context", "zones", "timed", "GPU time");
    for (size_t i = 0; i < tct_trace_gpu_context_count(s->tr); i++) {
        const struct tct_gpu_context *c = tct_trace_gpu_context_at(s->tr, i);
        struct tct_gpu_context_stats st = tct_gpu_stats_get(s->p->gpu, c->index);
        char name[512], z[TCT_UNITS_BUF], t[TCT_UNITS_BUF], b[TCT_UNITS_BUF];
        snprintf(name, sizeof name, "%" PRIu32 "%s%s", c->id, c->name ? " " : "", c->name ? c->name : "");
        char named[600];
        fputs("  ", s->out);
        column(s->out, of_process(s, c->source, name, named, sizeof named), 40);
        fprintf(s->out, " %12s %12s %12s\n", tct_format_count(z, st.zones), tct_format_count(t, st.timed),
                tct_format_duration(b, st.busy));
    }
}

/* A process's clock error, in the 12 characters of its column: "+-1000.000 s" at most, then
 * "> 1000 s" (the welcome's bounds of a client replayed days after it was recorded). */
static const char *clock_error_text(char *buf, size_t size, int64_t error)
{
    char d[TCT_UNITS_BUF];
    if (error < 0)
        snprintf(buf, size, "unknown");
    else if (error == 0)
        snprintf(buf, size, "exact");
    else if (error >= CLOCK_COLUMN_MAX_NS)
        snprintf(buf, size, "> 1000 s");
    else
        snprintf(buf, size, "+-%s", tct_format_duration(d, error));
    return buf;
}

/* Each process of a capture of several: what it sent, how its clock was put on the
 * capture's, whether its capture is complete; then its own top zones. */
static void process_tables(struct summary *s, const struct tct_srcloc_stats **entries, size_t count, struct rank *order)
{
    heading(s, "Processes");
    fprintf(s->out, "  %-32s %8s %12s %12s %10s %12s  %s\n", "process", "threads", "zones", "samples", "messages",
            "clock", "capture");
    for (uint32_t i = 0; i < tct_trace_source_count(s->tr); i++) {
        const struct tct_source *src = tct_trace_source(s->tr, i);
        char label[TCT_SOURCE_LABEL], z[TCT_UNITS_BUF], sm[TCT_UNITS_BUF], m[TCT_UNITS_BUF], err[TCT_UNITS_BUF + 4];
        fputs("  ", s->out);
        column(s->out, tct_source_label(src, label), 32);
        fprintf(s->out, " %8" PRIu32 " %12s %12s %10s %12s  %s\n", src->thread_count, tct_format_count(z, src->zones),
                tct_format_count(sm, src->samples), tct_format_count(m, src->messages),
                clock_error_text(err, sizeof err, src->clock_error),
                src->incomplete         ? src->incomplete
                : src->unfinished_zones ? "zones left open"
                                        : "complete");
    }
    /* Each process's own top zones: its entries come together, by source. */
    enum { TOP = 5 };
    for (size_t first = 0; first < count;) {
        size_t end = first;
        while (end < count && entries[end]->source == entries[first]->source)
            end++;
        struct tct_place_stats *rows = malloc((end - first) * sizeof *rows);
        if (!rows)
            return;
        for (size_t i = first; i < end; i++)
            rows[i - first] =
                (struct tct_place_stats){.first = entries[i], .sum = entries[i]->rule[TCT_STATS_ALL], .processes = 1};
        char label[TCT_SOURCE_LABEL], title[256];
        snprintf(title, sizeof title, "%s: top %%zu zones by %%s time (of %%zu source locations)",
                 tct_source_label(tct_trace_source(s->tr, entries[first]->source), label));
        zone_table(s, rows, end - first, order, TOP, 0, title);
        free(rows);
        first = end;
    }
}

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    struct parts *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *state = p;
    p->zones = tct_zone_stats_of(tr);
    p->samples = tct_sample_stats_of(tr);
    p->messages = tct_message_stats_of(tr);
    p->frames = tct_frame_stats_of(tr);
    p->plots = tct_plot_stats_of(tr);
    p->memory = tct_memory_stats_of(tr);
    p->locks = tct_lock_stats_of(tr);
    p->gpu = tct_gpu_stats_of(tr);
    p->sched = tct_sched_log_of(tr);
    p->sections = tct_section_stats_of(tr);
    return p->zones && p->samples && p->messages && p->frames && p->plots && p->memory && p->locks && p->gpu &&
                   p->sched && p->sections
               ? 0
               : -1;
}

static int write_summary(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    const struct tct_source *first = tct_trace_source(tr, 0);
    struct summary s = {out, tr, state, first, first ? &first->names : NULL, tct_trace_end(tr)};
    size_t count;
    const struct tct_srcloc_stats **entries = tct_zone_stats_sorted(s.p->zones, &count);
    struct rank *order = malloc((count ? count : 1) * sizeof *order);
    if ((!entries && count) || !order) {
        free(entries);
        free(order);
        errno = ENOMEM;
        return -1;
    }
    header(&s);
    warnings(&s);
    size_t top = o->top ? o->top : DEFAULT_TOP;
    /* The zones of all processes, summed by place (each source location is its own place
     * when the capture has one process). */
    size_t places = 0;
    struct tct_place_stats *rows = tct_zone_stats_by_place(tr, entries, count, TCT_STATS_ALL, &places);
    if (!rows) {
        free(entries);
        free(order);
        errno = ENOMEM;
        return -1;
    }
    if (places) {
        const char *title = tct_trace_source_count(tr) > 1 ? "Top %zu zones by %s time, all processes (of %zu places)"
                                                           : "Top %zu zones by %s time (of %zu source locations)";
        zone_table(&s, rows, places, order, top, 0, title);
        zone_table(&s, rows, places, order, top, 1, title);
    } else {
        fputs("\nNo zones were recorded.\n", out);
    }
    free(rows);
    if (tct_trace_source_count(tr) > 1)
        process_tables(&s, entries, count, order);
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
    free(entries);
    if (rc != 0) {
        errno = ENOMEM;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}

const struct tct_format_ops tct_format_summary = {prepare, write_summary, free, 0};
