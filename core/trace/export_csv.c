/* export_csv.c - zone statistics as upstream's tracy-csvexport (Tracy 0.14.0) prints them.
 *
 * Same columns, same rows, same numbers, same formatting (std::to_string: integers as
 * such, doubles as "%f"), so our CSV can be diffed against tracy-csvexport's for the same
 * program. That includes its quirks, kept on purpose and marked below. Rows come in
 * source-location order (upstream's order is that of a hash map).
 *
 * Made of: the zone statistics (zone_stats.h) for the statistics; for --unwrap, a spill
 * of the counted zones read back grouped by source location, each group's zones thread by
 * thread in the order they began, as upstream lists them; for --messages, a spill of the
 * messages read back by time.
 */
#include "trace/export.h"
#include "trace/names.h"
#include "trace/writer.h"
#include "trace/zone_stats.h"
#include "util/spill.h"

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

static const struct tct_names *names_of(const struct tct_trace *tr, uint32_t source)
{
    return &tct_trace_source(tr, source)->names;
}

static int selected(const struct tct_trace *tr, const struct tct_export_options *o, const struct tct_srcloc_stats *e)
{
    if (e->rule[TCT_STATS_UPSTREAM].total == 0)
        return 0;
    if (!o->filter || !o->filter[0])
        return 1;
    return contains(tct_srcloc_label(names_of(tr, e->source), e->srcloc), o->filter, o->case_sensitive);
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

/* The statistics of a source location's zones (its name, file and line from `names`),
 * and the process they are of when per process (NULL: no such column). */
static void stats_row(struct tct_writer *w, const char *sep, const struct tct_names *names, uint32_t srcloc,
                      const struct tct_span_stats *e, int self, int64_t last_time, const char *process)
{
    int64_t time = self ? e->self_total : e->total;
    uint64_t count = e->count;
    /* Upstream divides an int64 by a size_t: unsigned. */
    uint64_t avg = (uint64_t)time / count;
    /* Upstream's std_ns is the deviation about the integer mean_ns, sum((x - avg)^2) / (n - 1),
     * computed as sumSq - 2 total avg + avg*avg*count: the uint64 avg*avg*count overflows
     * past ~4.3 s of mean (or a large count), the difference cancels to a negative number
     * (-nan) for spread-out spans, and self times use the total-time sums. Here the same
     * quantity comes from exact sums (spread.h), of the self times for self. */
    double std = tct_spread_std_about(self ? &e->self_spread : &e->spread, avg);
    location(w, sep, names, srcloc);
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
    tct_write_fmt(w, "%f", std);
    if (process) {
        tct_write_str(w, sep);
        tct_write_str(w, process);
    }
    tct_write_char(w, '\n');
}

/* ---- the sinks ----------------------------------------------------------------------------- */

/* A zone for --unwrap, or a message for --messages. */
struct row {
    uint32_t source, srcloc; /* a message: srcloc 0 */
    uint32_t thread;         /* a zone: its thread's index in the trace */
    uint32_t string;         /* a message: its string handle */
    uint64_t seq;
    int64_t time; /* a zone: its begin */
    int64_t span, self;
    uint64_t text; /* blob */
    uint32_t text_len;
    uint32_t has_text; /* a zone that had a text, even an empty one */
};

struct rows {
    struct tct_sink sink;
    struct tcu_spill *spill;
};

static int zone_order(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    if (a->srcloc != b->srcloc)
        return a->srcloc < b->srcloc ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int message_order(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void keep_row(struct rows *rows, struct row *r, const char *text, size_t len)
{
    r->has_text = text != NULL;
    if (!text)
        text = "";
    r->text_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    if (tcu_spill_put_blob(rows->spill, text, r->text_len, &r->text) == 0)
        tcu_spill_add(rows->spill, r); /* an error sticks: the output reports it */
}

static void on_zone(struct tct_sink *sink, const struct tct_record *rec)
{
    const struct tct_zone_record *z = &rec->u.zone;
    if (!tct_zone_counts(z, TCT_STATS_UPSTREAM))
        return;
    struct row r = {.source = rec->source->index,
                    .srcloc = z->srcloc,
                    .thread = rec->thread->index,
                    .seq = z->seq,
                    .time = z->begin,
                    .span = z->end - z->begin,
                    .self = z->self};
    keep_row((struct rows *)sink, &r, z->text, z->text ? z->text_len : 0);
}

static void on_message(struct tct_sink *sink, const struct tct_record *rec)
{
    const struct tct_message_record *m = &rec->u.message;
    struct row r = {.source = rec->source->index, .string = m->string, .seq = m->seq, .time = m->time};
    keep_row((struct rows *)sink, &r, m->text, m->text_len);
}

static void rows_free(struct tct_sink *sink)
{
    tcu_spill_free(((struct rows *)sink)->spill);
    free(sink);
}

static size_t rows_memory(const struct tct_sink *sink)
{
    return sizeof(struct rows) + tcu_spill_memory(((const struct rows *)sink)->spill);
}

static const struct tct_sink_ops zone_rows_ops = {"CSV zone rows", TCT_REC_BIT(TCT_REC_ZONE), on_zone, rows_free,
                                                  rows_memory};
static const struct tct_sink_ops message_rows_ops = {"CSV message rows", TCT_REC_BIT(TCT_REC_MESSAGE), on_message,
                                                     rows_free, rows_memory};

/* ---- the output ---------------------------------------------------------------------------- */

struct csv {
    struct tct_zone_stats *stats;
    struct rows *rows; /* --unwrap, --messages */
};

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    struct csv *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    *state = c;
    if (!o->messages && !(c->stats = tct_zone_stats_of(tr)))
        return -1;
    if (!o->messages && !o->unwrap)
        return 0;
    struct rows *rows = calloc(1, sizeof *rows);
    if (rows)
        rows->spill =
            tcu_spill_new(sizeof(struct row), o->messages ? message_order : zone_order, tct_trace_spill_memory(tr));
    if (!rows || !rows->spill) {
        free(rows);
        return -1;
    }
    rows->sink.ops = o->messages ? &message_rows_ops : &zone_rows_ops;
    if (tct_trace_add_sink(tr, &rows->sink) != 0)
        return -1;
    c->rows = rows;
    return 0;
}

/* The text a row kept ("" when it cannot be read: the spill then has an error). */
static const char *row_text(struct tcu_spill *spill, const struct row *r, size_t *len)
{
    const char *text = r->text_len ? tcu_spill_get_blob(spill, r->text, r->text_len) : "";
    *len = text ? r->text_len : 0;
    return text ? text : "";
}

static int unwrap_rows(struct tct_writer *w, const char *sep, struct tct_trace *tr, const struct tct_export_options *o,
                       struct csv *c)
{
    size_t n;
    const struct tct_srcloc_stats **entries = tct_zone_stats_sorted(c->stats, &n);
    if (!entries && n)
        return -1;
    struct tcu_spill *spill = c->rows->spill;
    int rc = tcu_spill_sort(spill);
    const struct row *r = rc == 0 ? tcu_spill_next(spill) : NULL;
    /* Upstream reuses its row between zones of one source location and sets the value
     * column only for zones with text, so a zone without text repeats the text of the
     * previous one. Kept for agreement; the text is copied, as the spill's blobs move. */
    char *value = NULL;
    size_t value_len = 0, value_cap = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct tct_srcloc_stats *e = entries[i];
        int shown = selected(tr, o, e);
        const struct tct_names *names = names_of(tr, e->source);
        value_len = 0;
        for (; r && r->source == e->source && r->srcloc == e->srcloc; r = tcu_spill_next(spill)) {
            if (!shown)
                continue;
            size_t len;
            const char *text = row_text(spill, r, &len);
            if (r->has_text) {
                if (len > value_cap) {
                    char *grown = realloc(value, len);
                    if (!grown) {
                        rc = -1;
                        break;
                    }
                    value = grown;
                    value_cap = len;
                }
                memcpy(value, text, len);
                value_len = len;
            }
            location(w, sep, names, e->srcloc);
            tct_write_i64(w, r->time);
            tct_write_str(w, sep);
            tct_write_i64(w, o->self_time ? r->self : r->span);
            tct_write_str(w, sep);
            tct_write_u64(w, tct_trace_thread_at(tr, r->thread)->server_index);
            tct_write_str(w, sep);
            tct_write_text(w, value, value_len);
            if (o->per_process) {
                char label[TCT_SOURCE_LABEL];
                tct_write_str(w, sep);
                tct_write_str(w, tct_source_label(tct_trace_source(tr, e->source), label));
            }
            tct_write_char(w, '\n');
        }
    }
    free(value);
    free(entries);
    if (rc == 0 && tcu_spill_error(spill)) {
        errno = tcu_spill_error(spill);
        return -2;
    }
    return rc;
}

static int message_rows(struct tct_writer *w, const char *sep, struct tct_trace *tr, const struct tct_export_options *o,
                        struct csv *c)
{
    struct tcu_spill *spill = c->rows->spill;
    if (!tcu_spill_count(spill) && !tcu_spill_error(spill)) {
        tct_write_str(w, "There are currently no messages!\n");
        return 0;
    }
    static const char *const columns[] = {"MessageName", "total_ns", "process"};
    header(w, sep, columns, o->per_process ? 3 : 2);
    if (tcu_spill_sort(spill) == 0) {
        for (const struct row *r; (r = tcu_spill_next(spill));) {
            size_t kept, len;
            const char *text = row_text(spill, r, &kept);
            text = tct_text_or_string(names_of(tr, r->source), text, kept, r->string, &len);
            tct_write_text(w, text, len);
            tct_write_str(w, sep);
            tct_write_i64(w, r->time);
            if (o->per_process) {
                char label[TCT_SOURCE_LABEL];
                tct_write_str(w, sep);
                tct_write_str(w, tct_source_label(tct_trace_source(tr, r->source), label));
            }
            tct_write_char(w, '\n');
        }
    }
    if (tcu_spill_error(spill)) {
        errno = tcu_spill_error(spill);
        return -2;
    }
    return 0;
}

static int zone_rows(struct tct_writer *w, const char *sep, struct tct_trace *tr, const struct tct_export_options *o,
                     struct csv *c)
{
    static const char *const stats_columns[] = {
        "name",    "src_file", "src_line", "total_ns", "total_perc", "counts",
        "mean_ns", "min_ns",   "max_ns",   "std_ns",   "process",
    };
    static const char *const unwrap_columns[] = {
        "name", "src_file", "src_line", "ns_since_start", "exec_time_ns", "thread", "value", "process",
    };
    if (o->unwrap) {
        header(w, sep, unwrap_columns, o->per_process ? 8 : 7);
        return unwrap_rows(w, sep, tr, o, c);
    }
    size_t n;
    const struct tct_srcloc_stats **entries = tct_zone_stats_sorted(c->stats, &n);
    if (!entries && n)
        return -1;
    header(w, sep, stats_columns, o->per_process ? 11 : 10);
    int64_t last_time = tct_trace_end(tr);
    if (o->per_process || tct_trace_source_count(tr) < 2) {
        for (size_t i = 0; i < n; i++) {
            const struct tct_srcloc_stats *e = entries[i];
            char label[TCT_SOURCE_LABEL];
            if (selected(tr, o, e))
                stats_row(w, sep, names_of(tr, e->source), e->srcloc, &e->rule[TCT_STATS_UPSTREAM], o->self_time,
                          last_time, o->per_process ? tct_source_label(tct_trace_source(tr, e->source), label) : NULL);
        }
        free(entries);
        return 0;
    }
    /* Several processes: csvexport's rows, each summed over the processes that have it. */
    size_t rows;
    struct tct_place_stats *places = tct_zone_stats_by_place(tr, entries, n, TCT_STATS_UPSTREAM, &rows);
    for (size_t i = 0; places && i < rows; i++) {
        struct tct_srcloc_stats sum = *places[i].first;
        sum.rule[TCT_STATS_UPSTREAM] = places[i].sum;
        if (selected(tr, o, &sum))
            stats_row(w, sep, names_of(tr, sum.source), sum.srcloc, &places[i].sum, o->self_time, last_time, NULL);
    }
    free(places);
    free(entries);
    return places ? 0 : -1;
}

static int write_csv(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    const char *sep = o->separator ? o->separator : ",";
    struct tct_writer w;
    if (tct_writer_init(&w, out) != 0)
        return -1;
    int rc = o->messages ? message_rows(&w, sep, tr, o, state) : zone_rows(&w, sep, tr, o, state);
    int saved = errno;
    if (tct_writer_finish(&w))
        return -1;
    if (rc != 0)
        errno = rc == -2 ? saved : ENOMEM;
    return rc ? -1 : 0;
}

const struct tct_format_ops tct_format_csv = {prepare, write_csv, free, 0};
