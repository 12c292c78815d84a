/* export_chrome.c - the trace as Chrome Trace Event JSON.
 *
 * Opens in Perfetto UI and chrome://tracing, and goes back into Tracy through upstream's
 * tracy-import-chrome, which reads (import-chrome.cpp, Tracy 0.14.0): "ph"; "ts" and "dur"
 * as microseconds, multiplied by 1000 and truncated to integer nanoseconds; "tid" (on
 * every X and i event) and "pid" as unsigned 32-bit integers; "name"; every "args" entry
 * (as zone text "key: value"); the root-level "loc" field as "file:line" (split at the
 * last ':'); "C" args as numbers; "M" thread_name metadata; and it turns instant events
 * whose name contains "frame" into frame marks. It skips every other "ph" and key.
 *
 *   zones       "X" complete events, args {file, line, text, value}, root "loc", "sf" when
 *               the zone has a callstack (its frames in the root-level "stackFrames")
 *   messages    "i" instant events, thread scope, "sf" likewise
 *   frames      "i" instant events, global scope, named after their frame set
 *   plots       "C" counter events
 *   GPU zones   "X" events on one pseudo-thread per GPU context, in GPU time
 *   sections    "b"/"e" async events, category "section", id the section's, args
 *               {category, description} (tracy-import-chrome skips them)
 *   names       "M" process_name and thread_name metadata
 *   samples     "P" V8 CPU profile events (export_chrome_stacks.c)
 *   context switches  root-level "systemTraceEvents" (export_chrome_sched.c)
 */
#include "trace/export_chrome.h"
#include "trace/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/* GPU contexts get pseudo thread ids no real thread id reaches. */
#define GPU_TID_BASE 0xffffff00u

/* An event named name[0..len), which may hold NULs. */
static void begin_event(struct tct_chrome *c, const char *ph, const char *name, size_t len)
{
    tct_write_str(c->w, c->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
    c->first = 0;
    tct_write_str(c->w, ph);
    tct_write_str(c->w, "\",\"name\":");
    tct_json_text(c->w, name, len);
    tct_write_str(c->w, ",\"pid\":");
    tct_write_u64(c->w, c->pid);
}

void tct_chrome_begin_event(struct tct_chrome *c, const char *ph, const char *name)
{
    begin_event(c, ph, name, strlen(name));
}

static void field_u64(struct tct_chrome *c, const char *key, uint64_t v)
{
    tct_write_str(c->w, key);
    tct_write_u64(c->w, v);
}

static void metadata(struct tct_chrome *c, const char *what, uint32_t tid, const char *name)
{
    tct_chrome_begin_event(c, "M", what);
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(c->w, ",\"args\":{\"name\":");
    tct_json_string(c->w, name);
    tct_write_str(c->w, "}}");
}

static const char *zone_name(const struct tct_chrome *c, const struct tct_zone *z, const struct tct_zone_extra *x,
                             size_t *len)
{
    if (x && x->name) {
        *len = x->name_len;
        return x->name;
    }
    const char *label = tct_srcloc_label(c->names, z->srcloc);
    *len = strlen(label);
    return label;
}

/* ,"sf":<id> for an event with a callstack. */
static void stack_field(struct tct_chrome *c, uint32_t callstack)
{
    uint32_t sf = callstack ? tct_chrome_stack_frame(c, callstack) : 0;
    if (sf)
        field_u64(c, ",\"sf\":", sf);
}

static void zone_event(struct tct_chrome *c, uint32_t tid, const struct tct_zone *z, const struct tct_zone_extra *x,
                       uint32_t callstack)
{
    struct tct_writer *w = c->w;
    const struct tcd_srcloc *sl = c->names->srcloc(c->names->ctx, z->srcloc);
    const char *file = sl && sl->file ? sl->file : "";
    uint32_t line = sl ? sl->line : 0;
    size_t name_len;
    const char *name = zone_name(c, z, x, &name_len);
    begin_event(c, "X", name, name_len);
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(w, ",\"ts\":");
    tct_json_us(w, z->begin);
    tct_write_str(w, ",\"dur\":");
    tct_json_us(w, z->end - z->begin);
    stack_field(c, callstack);
    tct_write_str(w, ",\"loc\":\"");
    tct_json_chars(w, file, strlen(file));
    tct_write_char(w, ':');
    tct_write_u64(w, line);
    tct_write_str(w, "\",\"args\":{\"file\":");
    tct_json_string(w, file);
    field_u64(c, ",\"line\":", line);
    if (x && x->text) {
        tct_write_str(w, ",\"text\":");
        tct_json_text(w, x->text, x->text_len);
    }
    if (x && x->has_value)
        field_u64(c, ",\"value\":", x->value);
    if (z->flags & TCT_ZONE_UNFINISHED)
        tct_write_str(w, ",\"unfinished\":true");
    tct_write_str(w, "}}");
}

static void instant(struct tct_chrome *c, const char *name, size_t len, char scope, uint32_t tid, int64_t time,
                    uint32_t callstack)
{
    begin_event(c, "i", name, len);
    tct_write_str(c->w, scope == 'g' ? ",\"s\":\"g\"" : ",\"s\":\"t\"");
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(c->w, ",\"ts\":");
    tct_json_us(c->w, time);
    stack_field(c, callstack);
    tct_write_char(c->w, '}');
}

static void threads(struct tct_chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        const char *name = c->names->thread(c->names->ctx, t->id);
        if ((t->zones.count || t->messages || t->cpu_samples) && name && name[0])
            metadata(c, "thread_name", t->id, name);
        for (size_t z = 0; z < t->zones.count; z++) {
            const struct tct_zone_extra *x = tct_thread_zone_extra(t, z);
            zone_event(c, t->id, tct_thread_zone(t, z), x, x ? x->callstack : 0);
        }
    }
    for (size_t i = 0; i < tr->messages.count; i++) {
        const struct tct_message *m = tct_trace_message(tr, i);
        size_t len;
        const char *text = tct_message_text(c->names, m, &len);
        instant(c, text, len, 't', m->thread, m->time, m->callstack);
    }
    if (tr->crash.happened) {
        char name[4096];
        snprintf(name, sizeof name, "crash: %s", tct_crash_text(c->names, &tr->crash));
        instant(c, name, strlen(name), 't', tr->crash.thread, tr->crash.time, tr->crash.callstack);
    }
}

static int contains_frame(const char *s)
{
    for (; *s; s++)
        if (strncasecmp(s, "frame", 5) == 0)
            return 1;
    return 0;
}

static void frames(struct tct_chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->frame_set_count; i++) {
        const struct tct_frame_set *fs = &tr->frame_sets[i];
        const char *set = c->names->frame(c->names->ctx, fs->id);
        char name[512];
        /* tracy-import-chrome takes only instants named "...frame..." as frame marks. */
        snprintf(name, sizeof name, contains_frame(set) ? "%s" : "%s frame", set);
        for (size_t f = 0; f < fs->frames.count; f++)
            instant(c, name, strlen(name), 'g', 0, tct_frame_at(fs, f)->start, 0);
    }
}

static void plots(struct tct_chrome *c, const struct tct_trace *tr)
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
            tct_chrome_begin_event(c, "C", plot);
            tct_write_str(c->w, ",\"ts\":");
            tct_json_us(c->w, pt->time);
            tct_write_str(c->w, ",\"args\":{");
            tct_json_string(c->w, plot);
            tct_write_char(c->w, ':');
            if (pt->is_int) /* exactly: a double holds 53 bits */
                tct_write_i64(c->w, pt->ivalue);
            else
                tct_write_fmt(c->w, "%.17g", pt->value);
            tct_write_str(c->w, "}}");
        }
    }
}

static void gpu(struct tct_chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        const struct tct_gpu_context *ctx = &tr->gpu_contexts[i];
        uint32_t tid = GPU_TID_BASE | (ctx->id & 0xff);
        char name[512];
        snprintf(name, sizeof name, "GPU context %" PRIu32 "%s%s", ctx->id, ctx->name ? ": " : "",
                 ctx->name ? ctx->name : "");
        metadata(c, "thread_name", tid, name);
        for (size_t k = 0; k < ctx->zones.count; k++) {
            const struct tct_gpu_zone *g = tct_gpu_zone_at(ctx, k);
            if (g->gpu_begin == TCT_TIME_NONE || g->gpu_end == TCT_TIME_NONE || g->gpu_end < g->gpu_begin)
                continue; /* the GPU never reported when it ran */
            struct tct_zone z = {.begin = g->gpu_begin, .end = g->gpu_end, .srcloc = g->srcloc};
            zone_event(c, tid, &z, NULL, g->callstack);
        }
    }
}

/* Sections as async slices ("b" and "e", category "section", their id): they need not
 * nest with the zones of the thread that entered them, and async slices are drawn on
 * tracks of their own. */
static void sections(struct tct_chrome *c, const struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->sections.count; i++) {
        const struct tct_section *s = tct_trace_section(tr, i);
        for (int end = 0; end < 2; end++) {
            begin_event(c, end ? "e" : "b", s->text, s->text_len);
            tct_write_str(c->w, ",\"cat\":\"section\"");
            field_u64(c, ",\"id\":", s->id);
            field_u64(c, ",\"tid\":", s->thread);
            tct_write_str(c->w, ",\"ts\":");
            tct_json_us(c->w, end ? s->end : s->begin);
            if (!end) {
                size_t len;
                const char *described = tct_section_category_text(tr, s->category, &len);
                field_u64(c, ",\"args\":{\"category\":", s->category);
                if (described) {
                    tct_write_str(c->w, ",\"description\":");
                    tct_json_text(c->w, described, len);
                }
                tct_write_char(c->w, '}');
            } else if (s->unfinished) {
                tct_write_str(c->w, ",\"args\":{\"unfinished\":true}");
            }
            tct_write_char(c->w, '}');
        }
    }
}

static void other_data(struct tct_chrome *c, const struct tct_trace *tr, const struct tct_export_options *o,
                       const char *program)
{
    struct tct_writer *w = c->w;
    tct_write_str(w, "\n],\n\"displayTimeUnit\":\"ns\"");
    tct_chrome_write_stack_frames(c);
    tct_chrome_system_trace(c);
    tct_write_str(w, ",\n\"otherData\":{\"producer\":\"tracyc\","
                     "\"program\":");
    tct_json_string(w, program);
    field_u64(c, ",\"pid\":", c->pid);
    field_u64(c, ",\"dropped_events\":", tr->dropped);
    field_u64(c, ",\"skipped_plot_values\":", tr->plot_skipped);
    field_u64(c, ",\"unfinished_zones\":", tr->unfinished_zones);
    if (tr->unfinished_sections)
        field_u64(c, ",\"unfinished_sections\":", tr->unfinished_sections);
    if (tr->samples_lost)
        field_u64(c, ",\"lost_samples\":", tr->samples_lost);
    if (o->incomplete) {
        tct_write_str(w, ",\"incomplete\":");
        tct_json_string(w, o->incomplete);
    }
    if (tr->app_info_count) {
        tct_write_str(w, ",\"app_info\":[");
        for (size_t i = 0; i < tr->app_info_count; i++) {
            if (i)
                tct_write_char(w, ',');
            tct_json_string(w, tr->app_info[i]);
        }
        tct_write_char(w, ']');
    }
    tct_write_str(w, "}}\n");
}

int tct_export_chrome(FILE *out, const struct tct_trace *tr, const struct tct_names *names,
                      const struct tct_export_options *o)
{
    const struct tcd_welcome *wel = names->welcome;
    char program[sizeof wel->program_name + 1] = "";
    if (wel)
        snprintf(program, sizeof program, "%.*s", (int)sizeof wel->program_name, wel->program_name);
    struct tct_writer w;
    tct_writer_init(&w, out);
    struct tct_chrome c = {.w = &w, .names = names, .trace = tr, .pid = wel ? wel->pid : 0, .first = 1};
    if (tct_chrome_stacks_init(&c) != 0) {
        tct_chrome_stacks_free(&c);
        errno = ENOMEM;
        return -1;
    }
    tct_write_str(&w, "{\"traceEvents\":[");
    metadata(&c, "process_name", 0, program[0] ? program : "tracyc capture");
    threads(&c, tr);
    frames(&c, tr);
    plots(&c, tr);
    gpu(&c, tr);
    sections(&c, tr);
    tct_chrome_samples(&c);
    other_data(&c, tr, o, program);
    int failed = c.failed;
    tct_chrome_stacks_free(&c);
    if (failed) {
        errno = ENOMEM;
        return -1;
    }
    return tct_writer_flush(&w) ? -1 : 0;
}
