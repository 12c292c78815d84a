/* export_summary.c - the trace as a text report, 100 columns wide, in the spirit of
 * cProfile's: what ran, how often, for how long, and what is missing from the capture. */
#include "trace/export.h"
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

/* 1234 ns, 12.35 us, 1.23 ms, 1.235 s */
static const char *duration(char buf[24], int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    double v = ns < 0 ? -(double)ns : (double)ns;
    if (v < 1e3)
        snprintf(buf, 24, "%s%.0f ns", sign, v);
    else if (v < 1e6)
        snprintf(buf, 24, "%s%.2f us", sign, v / 1e3);
    else if (v < 1e9)
        snprintf(buf, 24, "%s%.2f ms", sign, v / 1e6);
    else
        snprintf(buf, 24, "%s%.3f s", sign, v / 1e9);
    return buf;
}

/* 12,345,678 */
static const char *count(char buf[32], uint64_t n)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    char *o = buf;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            *o++ = ',';
        *o++ = digits[i];
    }
    *o = '\0';
    return buf;
}

/* 512 B, 1.50 KiB, 12.00 MiB */
static const char *bytes(char buf[24], uint64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, 24, "%" PRIu64 " B", n);
    else
        snprintf(buf, 24, "%.2f %s", v, units[u]);
    return buf;
}

static const char *percent(char buf[16], int64_t part, int64_t whole)
{
    if (whole <= 0)
        snprintf(buf, 16, "-");
    else
        snprintf(buf, 16, "%.1f%%", 100.0 * (double)part / (double)whole);
    return buf;
}

/* The last path component, so locations fit the line. */
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

static void heading(struct summary *s, const char *title)
{
    fprintf(s->out, "\n%s\n", title);
}

static void header(struct summary *s)
{
    const struct tcd_welcome *w = s->names->welcome;
    const struct tct_trace *tr = s->tr;
    char a[32], b[32], c[32], d[32], e[32];
    if (w)
        fprintf(s->out, "tracyc capture of %.*s (pid %" PRIu64 ")\n",
                (int)sizeof w->program_name, w->program_name, w->pid);
    else
        fputs("tracyc capture (no client connected)\n", s->out);
    size_t points = 0;
    for (size_t i = 0; i < tr->plot_count; i++)
        points += tr->plots[i].points.count;
    fprintf(s->out, "Captured %s: %s zones on %zu threads, %s messages, %s plot points, %s events\n",
            duration(a, s->span), count(b, tr->zones), tr->thread_count,
            count(c, tr->messages.count), count(d, points), count(e, tr->events));
    for (size_t i = 0; i < tr->app_info_count; i++)
        fprintf(s->out, "App info: %s\n", tr->app_info[i]);
}

static void warnings(struct summary *s, const struct tct_export_options *o)
{
    const struct tct_trace *tr = s->tr;
    char a[32], b[32];
    int any = 0;
    if (tr->dropped) {
        fprintf(s->out, "%s!! %s events were DROPPED by the client (its buffer limit was reached): "
                        "this profile is missing them.\n", any++ ? "" : "\n", count(a, tr->dropped));
    }
    if (tr->crash.happened)
        fprintf(s->out, "%s!! The program CRASHED (thread %" PRIu32 ", at %s): %s\n",
                any++ ? "" : "\n", tr->crash.thread, duration(a, tr->crash.time), tr->crash.text);
    if (o->incomplete || tr->unfinished_zones) {
        fprintf(s->out, "%s!! Capture incomplete", any++ ? "" : "\n");
        if (o->incomplete)
            fprintf(s->out, " (%s)", o->incomplete);
        if (tr->unfinished_zones)
            fprintf(s->out, ": %s zones were still open, closed at %s", count(a, tr->unfinished_zones),
                    duration(b, tr->last_time));
        fputs(".\n", s->out);
    }
    if (tr->lost_events)
        fprintf(s->out, "%s!! %s events were lost: the capture ran out of memory.\n",
                any++ ? "" : "\n", count(a, tr->lost_events));
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

static void zone_table(struct summary *s, const struct tct_zone_stats *st, struct rank *order,
                       size_t top, int by_self)
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
    fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  %s\n", "count", "total", "self", "mean",
            "min", "max", "%cap", "zone");
    for (size_t r = 0; r < rows; r++) {
        const struct tct_srcloc_stats *e = &st->entries[order[r].entry];
        char n[32], t[24], self[24], mean[24], mn[24], mx[24], pc[16];
        fprintf(s->out, "%10s %10s %10s %10s %10s %10s %6s  ", count(n, e->count),
                duration(t, e->total), duration(self, e->self_total),
                duration(mean, e->total / (int64_t)e->count), duration(mn, e->min),
                duration(mx, e->max), percent(pc, by_self ? e->self_total : e->total, s->span));
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

static void thread_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    heading(s, "Threads");
    fprintf(s->out, "  %-36s %12s %12s %12s %8s %12s\n", "thread", "id", "zones", "busy", "%cap",
            "messages");
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        if (!t->zones.count && !t->messages)
            continue;
        int64_t busy = 0;
        for (size_t z = 0; z < t->zones.count; z++) {
            const struct tct_zone *zone = tct_thread_zone(t, z);
            if (zone->depth == 0)
                busy += zone->end - zone->begin;
        }
        const char *name = s->names->thread(s->names->ctx, t->id);
        char n[32], b[24], pc[16], m[32];
        fputs("  ", s->out);
        column(s->out, name && name[0] ? name : "(unnamed)", 36);
        fprintf(s->out, " %12" PRIu32 " %12s %12s %8s %12s\n", t->id, count(n, t->zones.count),
                duration(b, busy), percent(pc, busy, s->span), count(m, t->messages));
    }
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
    char n[32];
    fprintf(s->out, "\nMessages: %s", count(n, tr->messages.count));
    const char *sep = " (";
    for (int i = 3; i < 6; i++) {
        if (!by_severity[i])
            continue;
        fprintf(s->out, "%s%s %s", sep, count(n, by_severity[i]), severities[i]);
        sep = ", ";
    }
    fputs(sep[0] == ',' ? ")\n" : "\n", s->out);
}

static void frame_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->frame_set_count)
        return;
    heading(s, "Frames");
    fprintf(s->out, "  %-30s %12s %12s %12s %12s %10s\n", "frame set", "frames", "mean", "min",
            "max", "fps");
    for (size_t i = 0; i < tr->frame_set_count; i++) {
        const struct tct_frame_set *fs = &tr->frame_sets[i];
        int64_t total = 0, mn = INT64_MAX, mx = 0;
        uint64_t timed = 0;
        for (size_t f = 0; f < fs->frames.count; f++) {
            const struct tct_frame *fr = tct_frame_at(fs, f);
            if (fr->end == TCT_TIME_NONE)
                continue;
            int64_t len = fr->end - fr->start;
            total += len;
            timed++;
            if (len < mn)
                mn = len;
            if (len > mx)
                mx = len;
        }
        char n[32], mean[24], a[24], b[24], fps[16] = "-";
        if (timed && total > 0)
            snprintf(fps, sizeof fps, "%.1f", 1e9 * (double)timed / (double)total);
        fputs("  ", s->out);
        const char *name = s->names->frame(s->names->ctx, fs->id);
        fprintf(s->out, "%-30.30s %12s %12s %12s %12s %10s\n", name ? name : "",
                count(n, fs->frames.count), timed ? duration(mean, total / (int64_t)timed) : "-",
                timed ? duration(a, mn) : "-", timed ? duration(b, mx) : "-", fps);
    }
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
        char n[32];
        fprintf(s->out, "  %-36.36s %12s", name && name[0] ? name : "(unnamed)",
                count(n, p->points.count));
        if (p->points.count)
            fprintf(s->out, " %14.6g %14.6g %14.6g\n", p->min, p->max,
                    tct_plot_point(p, p->points.count - 1)->value);
        else
            fprintf(s->out, " %14s %14s %14s\n", "-", "-", "-");
    }
}

static void memory_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->pool_count)
        return;
    heading(s, "Memory");
    fprintf(s->out, "  %-24s %12s %12s %14s %14s %16s\n", "pool", "allocs", "frees", "live",
            "peak", "allocated");
    for (size_t i = 0; i < tr->pool_count; i++) {
        const struct tct_mem_pool *p = &tr->pools[i];
        const char *name = s->names->pool(s->names->ctx, p->id);
        char a[32], f[32], live[24], peak[24], total[24];
        fprintf(s->out, "  %-24.24s %12s %12s %14s %14s %16s\n",
                name && name[0] ? name : "(default)", count(a, p->allocs), count(f, p->frees),
                bytes(live, p->live_bytes), bytes(peak, p->peak_bytes),
                bytes(total, p->total_bytes));
        if (p->unmatched_frees || p->discards)
            fprintf(s->out, "  %-24s %s frees of unknown addresses, %" PRIu64 " discards\n", "",
                    count(a, p->unmatched_frees), p->discards);
    }
}

static void lock_table(struct summary *s)
{
    const struct tct_trace *tr = s->tr;
    if (!tr->lock_count)
        return;
    heading(s, "Locks");
    fprintf(s->out, "  %-32s %12s %12s %12s %12s %12s\n", "lock", "obtains", "contended",
            "waited", "max wait", "%cap");
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
        char o[32], c[32], w[24], mx[24], pc[16];
        fprintf(s->out, "  %-32.32s %12s %12s %12s %12s %12s\n", name, count(o, l->obtains),
                count(c, l->contended), duration(w, l->wait_total), duration(mx, l->wait_max),
                percent(pc, l->wait_total, s->span));
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
                busy += g->gpu_end - g->gpu_begin;
        }
        char name[64], z[32], t[32], b[24];
        snprintf(name, sizeof name, "%" PRIu32 "%s%s", c->id, c->name ? " " : "",
                 c->name ? c->name : "");
        fprintf(s->out, "  %-40.40s %12s %12s %12s\n", name, count(z, c->zones.count),
                count(t, timed), duration(b, busy));
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
    if (st.count) {
        size_t top = o->top ? o->top : DEFAULT_TOP;
        zone_table(&s, &st, order, top, 0);
        zone_table(&s, &st, order, top, 1);
    } else {
        fputs("\nNo zones were recorded.\n", out);
    }
    thread_table(&s);
    message_line(&s);
    frame_table(&s);
    plot_table(&s);
    memory_table(&s);
    lock_table(&s);
    gpu_table(&s);
    free(order);
    tct_zone_stats_free(&st);
    return ferror(out) ? -1 : 0;
}
