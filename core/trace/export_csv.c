/* export_csv.c - zone statistics as upstream's tracy-csvexport (Tracy 0.14.0) prints them.
 *
 * Same columns, same rows, same numbers, same formatting (std::to_string: integers as
 * such, doubles as "%f"), so our CSV can be diffed against tracy-csvexport's for the same
 * program. That includes its quirks, kept on purpose and marked below. Rows come in
 * source-location order (upstream's order is that of a hash map).
 */
#include "trace/export.h"
#include "trace/writer.h"
#include "trace/zone_stats.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int contains(const char *haystack, const char *needle, int case_sensitive)
{
    if (case_sensitive)
        return strstr(haystack, needle) != NULL;
    size_t n = strlen(needle);
    for (const char *h = haystack;; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
        if (!*h)
            return 0;
    }
}

static int selected(const struct tct_names *names, const struct tct_export_options *o, const struct tct_srcloc_stats *e)
{
    if (e->total == 0)
        return 0;
    if (!o->filter || !o->filter[0])
        return 1;
    return contains(tct_srcloc_label(names, e->srcloc), o->filter, o->case_sensitive);
}

static void header(struct tct_writer *w, const char *sep, const char *const *columns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            tct_write_str(w, sep);
        tct_write_str(w, columns[i]);
    }
    tct_write_char(w, '\n');
}

/* The name, file and line columns, each followed by the separator. */
static void location(struct tct_writer *w, const char *sep, const struct tct_names *names, uint32_t srcloc)
{
    const struct tcd_srcloc *sl = names->srcloc(names->ctx, srcloc);
    tct_write_str(w, tct_srcloc_label(names, srcloc));
    tct_write_str(w, sep);
    tct_write_str(w, sl && sl->file ? sl->file : "");
    tct_write_str(w, sep);
    tct_write_u64(w, sl ? sl->line : 0);
    tct_write_str(w, sep);
}

static void stats_row(struct tct_writer *w, const char *sep, const struct tct_names *names,
                      const struct tct_srcloc_stats *e, int self, int64_t last_time)
{
    int64_t time = self ? e->self_total : e->total;
    uint64_t count = e->count;
    /* Upstream divides an int64 by a size_t: unsigned. */
    uint64_t avg = (uint64_t)time / count;
    /* Upstream's std_ns is the deviation about the integer mean_ns, sum((x - avg)^2) / (n - 1),
     * computed as sumSq - 2 total avg + avg*avg*count: the uint64 avg*avg*count overflows
     * past ~4.3 s of mean (or a large count), the difference cancels to a negative number
     * (-nan) for spread-out spans, and self times use the total-time sums. Here the same
     * quantity comes from running deviations (zone_stats.h), of the self times for self. */
    double std = tct_spread_std_about(self ? &e->self_spread : &e->spread, (double)avg);
    location(w, sep, names, e->srcloc);
    tct_write_i64(w, time);
    tct_write_str(w, sep);
    tct_write_fmt(w, "%f", 100. * (double)time / (double)last_time);
    tct_write_str(w, sep);
    tct_write_u64(w, count);
    tct_write_str(w, sep);
    tct_write_u64(w, avg);
    tct_write_str(w, sep);
    tct_write_i64(w, self ? e->self_min : e->min);
    tct_write_str(w, sep);
    tct_write_i64(w, self ? e->self_max : e->max);
    tct_write_str(w, sep);
    tct_write_fmt(w, "%f\n", std);
}

/* Zone references grouped by source location: thread slot in the top 24 bits, zone
 * index in the low 40. Within a group, threads in order and each thread's zones in
 * pre-order, which is how upstream lists a source location's zones. */
#define REF_ZONE_BITS 40
#define REF_ZONE_MASK (((uint64_t)1 << REF_ZONE_BITS) - 1)

static uint64_t *group_zones(const struct tct_trace *tr, const struct tct_zone_stats *s)
{
    uint64_t total = 0;
    for (size_t i = 0; i < s->count; i++)
        total += s->entries[i].count;
    if (tr->thread_count >= ((size_t)1 << (64 - REF_ZONE_BITS)))
        return NULL;
    uint64_t *refs = malloc((total ? total : 1) * sizeof *refs);
    uint64_t *next = malloc((s->count ? s->count : 1) * sizeof *next);
    if (!refs || !next) {
        free(refs);
        free(next);
        return NULL;
    }
    for (size_t i = 0, at = 0; i < s->count; at += s->entries[i].count, i++)
        next[i] = at;
    for (size_t t = 0; t < tr->thread_count; t++) {
        const struct tct_thread *th = tr->threads[t];
        for (size_t z = 0; z < th->zones.count; z++) {
            const struct tct_zone *zone = tct_thread_zone(th, z);
            if (!tct_zone_counts(zone, TCT_STATS_UPSTREAM))
                continue;
            uint64_t e = *tcu_map_get(&s->by_srcloc, zone->srcloc);
            refs[next[e]++] = (uint64_t)t << REF_ZONE_BITS | z;
        }
    }
    free(next);
    return refs;
}

static int unwrap_rows(struct tct_writer *w, const char *sep, const struct tct_trace *tr, const struct tct_names *names,
                       const struct tct_export_options *o, const struct tct_zone_stats *s)
{
    uint64_t *refs = group_zones(tr, s);
    int64_t **self = o->self_time ? calloc(tr->thread_count ? tr->thread_count : 1, sizeof *self) : NULL;
    int rc = refs && (!o->self_time || self) ? 0 : -1;
    for (size_t t = 0; rc == 0 && self && t < tr->thread_count; t++)
        if (tr->threads[t]->zones.count && !(self[t] = tct_thread_self_times(tr->threads[t])))
            rc = -1;
    for (size_t i = 0, at = 0; rc == 0 && i < s->count; at += s->entries[i].count, i++) {
        const struct tct_srcloc_stats *e = &s->entries[i];
        if (!selected(names, o, e))
            continue;
        /* Upstream reuses its row between zones of one source location and sets the value
         * column only for zones with text, so a zone without text repeats the text of the
         * previous one. Kept for agreement. */
        const char *value = "";
        size_t value_len = 0;
        for (uint64_t k = 0; k < e->count; k++) {
            size_t t = (size_t)(refs[at + k] >> REF_ZONE_BITS);
            size_t z = (size_t)(refs[at + k] & REF_ZONE_MASK);
            const struct tct_thread *th = tr->threads[t];
            const struct tct_zone *zone = tct_thread_zone(th, z);
            int64_t span = self ? self[t][z] : zone->end - zone->begin;
            const struct tct_zone_extra *x = tct_thread_zone_extra(th, z);
            if (x && x->text) {
                value = x->text;
                value_len = x->text_len;
            }
            location(w, sep, names, e->srcloc);
            tct_write_i64(w, zone->begin);
            tct_write_str(w, sep);
            tct_write_i64(w, span);
            tct_write_str(w, sep);
            tct_write_u64(w, th->server_index);
            tct_write_str(w, sep);
            tct_write_text(w, value, value_len);
            tct_write_char(w, '\n');
        }
    }
    if (self)
        for (size_t t = 0; t < tr->thread_count; t++)
            free(self[t]);
    free(self);
    free(refs);
    return rc;
}

static int message_rows(struct tct_writer *w, const char *sep, const struct tct_trace *tr,
                        const struct tct_names *names)
{
    if (!tr->messages.count) {
        tct_write_str(w, "There are currently no messages!\n");
        return 0;
    }
    size_t *order = tct_trace_messages_by_time(tr);
    if (!order)
        return -1;
    static const char *const columns[] = {"MessageName", "total_ns"};
    header(w, sep, columns, 2);
    for (size_t i = 0; i < tr->messages.count; i++) {
        const struct tct_message *m = tct_trace_message(tr, order[i]);
        size_t len;
        const char *text = tct_message_text(names, m, &len);
        tct_write_text(w, text, len);
        tct_write_str(w, sep);
        tct_write_i64(w, m->time);
        tct_write_char(w, '\n');
    }
    free(order);
    return 0;
}

static int zone_rows(struct tct_writer *w, const char *sep, const struct tct_trace *tr, const struct tct_names *names,
                     const struct tct_export_options *o)
{
    static const char *const stats_columns[] = {
        "name", "src_file", "src_line", "total_ns", "total_perc", "counts", "mean_ns", "min_ns", "max_ns", "std_ns",
    };
    static const char *const unwrap_columns[] = {
        "name", "src_file", "src_line", "ns_since_start", "exec_time_ns", "thread", "value",
    };
    struct tct_zone_stats s;
    if (tct_zone_stats_compute(&s, tr, TCT_STATS_UPSTREAM) != 0)
        return -1;
    int rc = 0;
    if (o->unwrap) {
        header(w, sep, unwrap_columns, 7);
        rc = unwrap_rows(w, sep, tr, names, o, &s);
    } else {
        header(w, sep, stats_columns, 10);
        int64_t last_time = tct_export_last_time(tr, names);
        for (size_t i = 0; i < s.count; i++)
            if (selected(names, o, &s.entries[i]))
                stats_row(w, sep, names, &s.entries[i], o->self_time, last_time);
    }
    tct_zone_stats_free(&s);
    return rc;
}

int tct_export_csv(FILE *out, const struct tct_trace *tr, const struct tct_names *names,
                   const struct tct_export_options *o)
{
    const char *sep = o->separator ? o->separator : ",";
    struct tct_writer w;
    tct_writer_init(&w, out);
    int rc = o->messages ? message_rows(&w, sep, tr, names) : zone_rows(&w, sep, tr, names, o);
    if (tct_writer_flush(&w))
        return -1;
    if (rc != 0)
        errno = ENOMEM;
    return rc;
}
