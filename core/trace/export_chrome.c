/* export_chrome.c - the trace as Chrome Trace Event JSON.
 *
 * Opens in Perfetto UI and chrome://tracing, and goes back into Tracy through upstream's
 * tracy-import-chrome, which reads (import-chrome.cpp, Tracy 0.14.0): "ph"; "ts" and "dur"
 * as microseconds, multiplied by 1000 and truncated to integer nanoseconds; "tid" (on
 * every X and i event) and "pid" as unsigned 32-bit integers; "name"; every "args" entry
 * (as zone text "key: value"); the root-level "loc" field as "file:line" (split at the
 * last ':'); "C" args as numbers; "M" thread_name metadata; and it turns instant events
 * whose name contains "frame" into frame marks.
 *
 *   zones       "X" complete events, args {file, line, text, value}, root "loc"
 *   messages    "i" instant events, thread scope
 *   frames      "i" instant events, global scope, named after their frame set
 *   plots       "C" counter events
 *   GPU zones   "X" events on one pseudo-thread per GPU context, in GPU time
 *   names       "M" process_name and thread_name metadata
 */
#include "trace/export.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/* GPU contexts get pseudo thread ids no real thread id reaches. */
#define GPU_TID_BASE 0xffffff00u

struct chrome {
    FILE *out;
    const struct tct_names *names;
    uint64_t pid;
    int first; /* no event written yet */
};

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not valid. */
static size_t utf8_sequence(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, invalid UTF-8
 * replaced by U+FFFD. */
static void json_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            fwrite(run, 1, (size_t)(p - run), out);
        if (!*p)
            break;
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            p++;
        } else {
            size_t n = utf8_sequence(p);
            if (n) {
                fwrite(p, 1, n, out);
                p += n;
            } else {
                fputs("\xef\xbf\xbd", out);
                p++;
            }
        }
    }
    fputc('"', out);
}

/* Nanoseconds as microseconds with every nanosecond digit. The trailing "01" (a hundredth
 * of a nanosecond) makes tracy-import-chrome's uint64(us * 1000.) land on the exact
 * nanosecond: without it, about 1% of values parse a hair below and truncate to ns - 1. */
static void json_us(FILE *out, int64_t ns)
{
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    fprintf(out, "%s%" PRIu64 ".%03u01", ns < 0 ? "-" : "", mag / 1000, (unsigned)(mag % 1000));
}

static void begin_event(struct chrome *c, const char *ph, const char *name)
{
    fputs(c->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"", c->out);
    c->first = 0;
    fputs(ph, c->out);
    fputs("\",\"name\":", c->out);
    json_string(c->out, name);
    fprintf(c->out, ",\"pid\":%" PRIu64, c->pid);
}

static void metadata(struct chrome *c, const char *what, uint32_t tid, const char *name)
{
    begin_event(c, "M", what);
    fprintf(c->out, ",\"tid\":%" PRIu32 ",\"args\":{\"name\":", tid);
    json_string(c->out, name);
    fputs("}}", c->out);
}

static const char *zone_name(const struct chrome *c, const struct tct_zone *z,
                             const struct tct_zone_extra *x)
{
    return x && x->name ? x->name : tct_srcloc_label(c->names, z->srcloc);
}

static void zone_event(struct chrome *c, uint32_t tid, const struct tct_zone *z,
                       const struct tct_zone_extra *x)
{
    const struct tcd_srcloc *sl = c->names->srcloc(c->names->ctx, z->srcloc);
    const char *file = sl && sl->file ? sl->file : "";
    uint32_t line = sl ? sl->line : 0;
    begin_event(c, "X", zone_name(c, z, x));
    fprintf(c->out, ",\"tid\":%" PRIu32 ",\"ts\":", tid);
    json_us(c->out, z->begin);
    fputs(",\"dur\":", c->out);
    json_us(c->out, z->end - z->begin);
    fputs(",\"loc\":", c->out);
    /* "file:line" built in place: json_string needs one string. */
    char loc[4096];
    snprintf(loc, sizeof loc, "%s:%" PRIu32, file, line);
    json_string(c->out, loc);
    fputs(",\"args\":{\"file\":", c->out);
    json_string(c->out, file);
    fprintf(c->out, ",\"line\":%" PRIu32, line);
    if (x && x->text) {
        fputs(",\"text\":", c->out);
        json_string(c->out, x->text);
    }
    if (x && x->has_value)
        fprintf(c->out, ",\"value\":%" PRIu64, x->value);
    if (z->flags & TCT_ZONE_UNFINISHED)
        fputs(",\"unfinished\":true", c->out);
    fputs("}}", c->out);
}

static void instant(struct chrome *c, const char *name, char scope, uint32_t tid, int64_t time)
{
    begin_event(c, "i", name);
    fprintf(c->out, ",\"s\":\"%c\",\"tid\":%" PRIu32 ",\"ts\":", scope, tid);
    json_us(c->out, time);
    fputc('}', c->out);
}

static void threads(struct chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        const char *name = c->names->thread(c->names->ctx, t->id);
        if ((t->zones.count || t->messages) && name && name[0])
            metadata(c, "thread_name", t->id, name);
        for (size_t z = 0; z < t->zones.count; z++)
            zone_event(c, t->id, tct_thread_zone(t, z), tct_thread_zone_extra(t, z));
    }
    for (size_t i = 0; i < tr->messages.count; i++) {
        const struct tct_message *m = tct_trace_message(tr, i);
        instant(c, m->text, 't', m->thread, m->time);
    }
    if (tr->crash.happened) {
        char name[4096];
        snprintf(name, sizeof name, "crash: %s", tr->crash.text);
        instant(c, name, 't', tr->crash.thread, tr->crash.time);
    }
}

static int contains_frame(const char *s)
{
    for (; *s; s++)
        if (strncasecmp(s, "frame", 5) == 0)
            return 1;
    return 0;
}

static void frames(struct chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->frame_set_count; i++) {
        const struct tct_frame_set *fs = &tr->frame_sets[i];
        const char *set = c->names->frame(c->names->ctx, fs->id);
        char name[512];
        /* tracy-import-chrome takes only instants named "...frame..." as frame marks. */
        snprintf(name, sizeof name, contains_frame(set) ? "%s" : "%s frame", set);
        for (size_t f = 0; f < fs->frames.count; f++)
            instant(c, name, 'g', 0, tct_frame_at(fs, f)->start);
    }
}

static void plots(struct chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->plot_count; i++) {
        const struct tct_plot *p = &tr->plots[i];
        const char *plot = c->names->plot(c->names->ctx, p->id);
        char fallback[32];
        if (!plot || !plot[0]) {
            snprintf(fallback, sizeof fallback, "plot %" PRIu32, p->id);
            plot = fallback;
        }
        for (size_t k = 0; k < p->points.count; k++) {
            const struct tct_plot_point *pt = tct_plot_point(p, k);
            if (!isfinite(pt->value))
                continue; /* JSON has no NaN or infinity */
            begin_event(c, "C", plot);
            fputs(",\"ts\":", c->out);
            json_us(c->out, pt->time);
            fputs(",\"args\":{", c->out);
            json_string(c->out, plot);
            if (p->is_int)
                fprintf(c->out, ":%" PRId64 "}}", (int64_t)pt->value);
            else
                fprintf(c->out, ":%.17g}}", pt->value);
        }
    }
}

static void gpu(struct chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        const struct tct_gpu_context *ctx = &tr->gpu_contexts[i];
        uint32_t tid = GPU_TID_BASE | (ctx->id & 0xff);
        char name[512];
        snprintf(name, sizeof name, "GPU context %" PRIu32 "%s%s", ctx->id,
                 ctx->name ? ": " : "", ctx->name ? ctx->name : "");
        metadata(c, "thread_name", tid, name);
        for (size_t k = 0; k < ctx->zones.count; k++) {
            const struct tct_gpu_zone *g = tct_gpu_zone_at(ctx, k);
            if (g->gpu_begin == TCT_TIME_NONE || g->gpu_end == TCT_TIME_NONE
                || g->gpu_end < g->gpu_begin)
                continue; /* the GPU never reported when it ran */
            struct tct_zone z = {.begin = g->gpu_begin, .end = g->gpu_end, .srcloc = g->srcloc};
            zone_event(c, tid, &z, NULL);
        }
    }
}

static void other_data(struct chrome *c, const struct tct_trace *tr,
                       const struct tct_export_options *o, const char *program)
{
    FILE *out = c->out;
    fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"tracyc\",\"program\":",
          out);
    json_string(out, program);
    fprintf(out, ",\"pid\":%" PRIu64 ",\"dropped_events\":%" PRIu64 ",\"unfinished_zones\":%" PRIu64,
            c->pid, tr->dropped, tr->unfinished_zones);
    if (o->incomplete) {
        fputs(",\"incomplete\":", out);
        json_string(out, o->incomplete);
    }
    if (tr->app_info_count) {
        fputs(",\"app_info\":[", out);
        for (size_t i = 0; i < tr->app_info_count; i++) {
            if (i)
                fputc(',', out);
            json_string(out, tr->app_info[i]);
        }
        fputc(']', out);
    }
    fputs("}}\n", out);
}

int tct_export_chrome(FILE *out, const struct tct_trace *tr, const struct tct_names *names,
                      const struct tct_export_options *o)
{
    const struct tcd_welcome *w = names->welcome;
    char program[sizeof w->program_name + 1] = "";
    if (w)
        snprintf(program, sizeof program, "%.*s", (int)sizeof w->program_name, w->program_name);
    struct chrome c = {out, names, w ? w->pid : 0, 1};
    fputs("{\"traceEvents\":[", out);
    metadata(&c, "process_name", 0, program[0] ? program : "tracyc capture");
    threads(&c, tr);
    frames(&c, tr);
    plots(&c, tr);
    gpu(&c, tr);
    other_data(&c, tr, o, program);
    return ferror(out) ? -1 : 0;
}
