/* export_chrome_writer.c - the trace as Chrome Trace Event JSON.
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
 *
 * Written once the capture has ended, from a replay of the trace (trace.h) with every name
 * known, each event as its record comes: zones in the order they ended, messages, frames,
 * plots and samples as they came (viewers sort by time). Names, callstack frames and the
 * context switches (the scheduling log, sched_log.h, read in time order) go after them.
 */
#include "trace/export_chrome.h"
#include "trace/json.h"
#include "trace/names.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* GPU contexts get pseudo thread ids no real thread id reaches. */
#define GPU_TID_BASE 0xffffff00u

static const struct tct_names *names_of(const struct tct_chrome *c, uint32_t source)
{
    return &tct_trace_source(c->trace, source)->names;
}

static void field_u64(struct tct_chrome *c, const char *key, uint64_t v)
{
    tct_write_str(c->w, key);
    tct_write_u64(c->w, v);
}

static void metadata(struct tct_chrome *c, const char *what, uint64_t pid, uint32_t tid, const char *name)
{
    tct_chrome_begin_event(c, "M", what, strlen(what), pid);
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(c->w, ",\"args\":{\"name\":");
    tct_json_string(c->w, name);
    tct_write_str(c->w, "}}");
}

/* ,"sf":<id> for an event with a callstack. */
static void stack_field(struct tct_chrome *c, uint32_t source, uint32_t callstack)
{
    uint32_t sf = callstack ? tct_chrome_stack_frame(c, source, callstack) : 0;
    if (sf)
        field_u64(c, ",\"sf\":", sf);
}

/* A zone ("X"), CPU or GPU (z's begin and end then the GPU's). */
static void zone_event(struct tct_chrome *c, uint32_t source, uint32_t tid, const struct tct_zone_record *z)
{
    struct tct_writer *w = c->w;
    const struct tct_chrome_place *place = tct_chrome_place(c, source, z->srcloc);
    if (!place) {
        c->failed = 1;
        return;
    }
    if (z->name) {
        tct_chrome_begin_event(c, "X", z->name, z->name_len, tct_chrome_pid(c, source));
    } else {
        tct_chrome_separator(c);
        tct_write(w, place->text, place->head_len);
    }
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(w, ",\"ts\":");
    tct_json_us(w, z->begin);
    tct_write_str(w, ",\"dur\":");
    tct_json_us(w, z->end - z->begin);
    stack_field(c, source, z->callstack);
    tct_write(w, place->text + place->head_len, place->tail_len);
    if (z->text) {
        tct_write_str(w, ",\"text\":\"");
        tct_json_chars(w, z->text, z->text_len);
        tct_write_char(w, '"');
    }
    if (z->has_value)
        field_u64(c, ",\"value\":", z->value);
    if (z->flags & TCT_ZONE_UNFINISHED)
        tct_write_str(w, ",\"unfinished\":true");
    tct_write_str(w, "}}");
}

static void instant(struct tct_chrome *c, const char *name, size_t name_len, uint64_t pid, char scope, uint32_t tid,
                    int64_t time, uint32_t source, uint32_t callstack)
{
    tct_chrome_begin_event(c, "i", name, name_len, pid);
    tct_write_str(c->w, scope == 'g' ? ",\"s\":\"g\"" : ",\"s\":\"t\"");
    field_u64(c, ",\"tid\":", tid);
    tct_write_str(c->w, ",\"ts\":");
    tct_json_us(c->w, time);
    stack_field(c, source, callstack);
    tct_write_char(c->w, '}');
}

static int contains_frame(const char *s)
{
    for (; *s; s++)
        if (strncasecmp(s, "frame", 5) == 0)
            return 1;
    return 0;
}

static void frame_event(struct tct_chrome *c, const struct tct_frame_record *f)
{
    const struct tct_names *names = names_of(c, f->set->source);
    const char *set = names->frame(names->ctx, f->set->id);
    char name[512];
    /* tracy-import-chrome takes only instants named "...frame..." as frame marks. */
    snprintf(name, sizeof name, contains_frame(set) ? "%s" : "%s frame", set);
    instant(c, name, strlen(name), tct_chrome_pid(c, f->set->source), 'g', 0, f->start, f->set->source, 0);
}

static void plot_event(struct tct_chrome *c, const struct tct_plot_record *p)
{
    if (!p->is_int && !isfinite(p->value))
        return; /* JSON has no NaN or infinity */
    const struct tct_names *names = names_of(c, p->plot->source);
    const char *plot = names->plot(names->ctx, p->plot->id);
    char fallback[32];
    if (!plot || !plot[0]) {
        snprintf(fallback, sizeof fallback, "plot %" PRIu32, p->plot->id);
        plot = fallback;
    }
    tct_chrome_begin_event(c, "C", plot, strlen(plot), tct_chrome_pid(c, p->plot->source));
    tct_write_str(c->w, ",\"ts\":");
    tct_json_us(c->w, p->time);
    tct_write_str(c->w, ",\"args\":{");
    tct_json_string(c->w, plot);
    tct_write_char(c->w, ':');
    if (p->is_int) /* exactly: a double holds 53 bits */
        tct_write_i64(c->w, p->ivalue);
    else
        tct_write_fmt(c->w, "%.17g", p->value);
    tct_write_str(c->w, "}}");
}

/* A section as an async slice ("b" and "e", category "section", its id): sections need not
 * nest with the zones of the thread that entered them, and async slices are drawn on
 * tracks of their own. */
static void section_event(struct tct_chrome *c, uint32_t source, const struct tct_section_record *s)
{
    for (int end = 0; end < 2; end++) {
        tct_chrome_begin_event(c, end ? "e" : "b", s->text, s->text_len, tct_chrome_pid(c, source));
        tct_write_str(c->w, ",\"cat\":\"section\"");
        field_u64(c, ",\"id\":", s->id);
        field_u64(c, ",\"tid\":", s->thread);
        tct_write_str(c->w, ",\"ts\":");
        tct_json_us(c->w, end ? s->end : s->begin);
        if (!end) {
            size_t len;
            const char *described = tct_trace_section_category(c->trace, source, s->category, &len);
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

static uint32_t gpu_tid(const struct tct_gpu_context *ctx)
{
    return GPU_TID_BASE | (ctx->id & 0xff);
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_chrome *c = (struct tct_chrome *)sink;
    uint32_t source = rec->source->index;
    switch (rec->kind) {
    case TCT_REC_ZONE:
        zone_event(c, source, rec->thread->id, &rec->u.zone);
        break;
    case TCT_REC_MESSAGE: {
        const struct tct_message_record *m = &rec->u.message;
        size_t len;
        const char *text = tct_text_or_string(&rec->source->names, m->text, m->text_len, m->string, &len);
        instant(c, text, len, tct_chrome_pid(c, source), 't', rec->thread->id, m->time, source, m->callstack);
        break;
    }
    case TCT_REC_FRAME:
        frame_event(c, &rec->u.frame);
        break;
    case TCT_REC_PLOT:
        plot_event(c, &rec->u.plot);
        break;
    case TCT_REC_GPU_ZONE: {
        const struct tct_gpu_record *g = &rec->u.gpu;
        if (g->gpu_begin == TCT_TIME_NONE || g->gpu_end == TCT_TIME_NONE || g->gpu_end < g->gpu_begin)
            break; /* the GPU never reported when it ran */
        struct tct_zone_record z = {
            .begin = g->gpu_begin, .end = g->gpu_end, .srcloc = g->srcloc, .callstack = g->callstack};
        zone_event(c, source, gpu_tid(g->context), &z);
        break;
    }
    case TCT_REC_SECTION:
        section_event(c, source, &rec->u.section);
        break;
    default: /* TCT_REC_SAMPLE */
        tct_chrome_sample(c, rec->thread, &rec->u.sample);
        break;
    }
}

static void writer_free(struct tct_sink *sink)
{
    (void)sink; /* the output owns it */
}

static const struct tct_sink_ops writer_ops = {
    "Chrome JSON writer",
    TCT_REC_BIT(TCT_REC_ZONE) | TCT_REC_BIT(TCT_REC_MESSAGE) | TCT_REC_BIT(TCT_REC_FRAME) | TCT_REC_BIT(TCT_REC_PLOT) |
        TCT_REC_BIT(TCT_REC_GPU_ZONE) | TCT_REC_BIT(TCT_REC_SAMPLE) | TCT_REC_BIT(TCT_REC_SECTION),
    on_record,
    writer_free,
    NULL,
};

/* What comes once every record has: the names of threads and GPU contexts, the crashes. */
static void names_and_crashes(struct tct_chrome *c)
{
    for (size_t i = 0; i < tct_trace_thread_count(c->trace); i++) {
        const struct tct_thread *t = tct_trace_thread_at(c->trace, i);
        const struct tct_names *names = names_of(c, t->source);
        const char *name = names->thread(names->ctx, t->id);
        if ((t->zones || t->messages || t->cpu_samples) && name && name[0])
            metadata(c, "thread_name", tct_chrome_pid(c, t->source), t->id, name);
    }
    for (size_t i = 0; i < tct_trace_gpu_context_count(c->trace); i++) {
        const struct tct_gpu_context *ctx = tct_trace_gpu_context_at(c->trace, i);
        char name[512];
        snprintf(name, sizeof name, "GPU context %" PRIu32 "%s%s", ctx->id, ctx->name ? ": " : "",
                 ctx->name ? ctx->name : "");
        metadata(c, "thread_name", tct_chrome_pid(c, ctx->source), gpu_tid(ctx), name);
    }
    for (uint32_t i = 0; i < tct_trace_source_count(c->trace); i++) {
        const struct tct_source *src = tct_trace_source(c->trace, i);
        if (!src->crash.happened)
            continue;
        size_t len;
        const char *text =
            tct_text_or_string(&src->names, src->crash.text, strlen(src->crash.text), src->crash.string, &len);
        char name[4096];
        int n = snprintf(name, sizeof name, "crash: %.*s", (int)len, text);
        instant(c, name,
                n < 0                     ? 0
                : (size_t)n < sizeof name ? (size_t)n
                                          : sizeof name - 1,
                tct_chrome_pid(c, i), 't', src->crash.thread, src->crash.time, i, src->crash.callstack);
    }
}

/* ,"processes":[...]: what each process of the capture was, and what it missed. */
static void processes(struct tct_chrome *c)
{
    struct tct_writer *w = c->w;
    tct_write_str(w, ",\"processes\":[");
    for (uint32_t i = 0; i < tct_trace_source_count(c->trace); i++) {
        const struct tct_source *s = tct_trace_source(c->trace, i);
        char label[TCT_SOURCE_LABEL];
        tct_write_str(w, i ? ",{\"name\":" : "{\"name\":");
        tct_json_string(w, tct_source_label(s, label));
        field_u64(c, ",\"pid\":", tct_chrome_pid(c, i));
        field_u64(c, ",\"dropped_events\":", s->dropped);
        field_u64(c, ",\"unfinished_zones\":", s->unfinished_zones);
        if (s->clock_error >= 0)
            field_u64(c, ",\"clock_error_ns\":", (uint64_t)s->clock_error);
        if (s->incomplete) {
            tct_write_str(w, ",\"incomplete\":");
            tct_json_string(w, s->incomplete);
        }
        tct_write_char(w, '}');
    }
    tct_write_char(w, ']');
}

static void other_data(struct tct_chrome *c, const char *program)
{
    struct tct_writer *w = c->w;
    const struct tct_source *src = tct_trace_source(c->trace, 0);
    tct_write_str(w, "\n],\n\"displayTimeUnit\":\"ns\"");
    tct_chrome_write_stack_frames(c);
    tct_chrome_system_trace(c);
    tct_write_str(w, ",\n\"otherData\":{\"producer\":\"tracyc\","
                     "\"program\":");
    tct_json_string(w, program);
    field_u64(c, ",\"pid\":", src ? tct_chrome_pid(c, 0) : 0);
    field_u64(c, ",\"dropped_events\":", src ? src->dropped : 0);
    field_u64(c, ",\"skipped_plot_values\":", src ? src->plot_skipped : 0);
    field_u64(c, ",\"unfinished_zones\":", src ? src->unfinished_zones : 0);
    if (src && src->unfinished_sections)
        field_u64(c, ",\"unfinished_sections\":", src->unfinished_sections);
    if (src && src->samples_lost)
        field_u64(c, ",\"lost_samples\":", src->samples_lost);
    if (src && src->incomplete) {
        tct_write_str(w, ",\"incomplete\":");
        tct_json_string(w, src->incomplete);
    }
    if (tct_trace_source_count(c->trace) > 1)
        processes(c);
    if (src && src->app_info_count) {
        tct_write_str(w, ",\"app_info\":[");
        for (size_t i = 0; i < src->app_info_count; i++) {
            if (i)
                tct_write_char(w, ',');
            tct_json_string(w, src->app_info[i]);
        }
        tct_write_char(w, ']');
    }
    tct_write_str(w, "}}\n");
}

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    tct_trace_keep_events(tr);
    return (*state = tct_sched_log_of(tr)) ? 0 : -1;
}

static int write_chrome(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    (void)o;
    const struct tct_source *first = tct_trace_source(tr, 0);
    const struct tcd_welcome *wel = first ? first->names.welcome : NULL;
    char program[sizeof wel->program_name + 1] = "";
    if (wel)
        snprintf(program, sizeof program, "%.*s", (int)sizeof wel->program_name, wel->program_name);
    struct tct_writer w;
    if (tct_writer_init(&w, out) != 0)
        return -1;
    struct tct_chrome c = {.sink = {&writer_ops}, .w = &w, .trace = tr, .sched = state, .first = 1};
    if (tct_chrome_stacks_init(&c) != 0) {
        tct_chrome_stacks_free(&c);
        tct_writer_finish(&w);
        errno = ENOMEM;
        return -1;
    }
    tct_write_str(&w, "{\"traceEvents\":[");
    if (!first)
        metadata(&c, "process_name", 0, 0, "tracyc capture");
    for (uint32_t i = 0; i < tct_trace_source_count(tr); i++) {
        char name[TCT_SOURCE_LABEL];
        metadata(&c, "process_name", tct_chrome_pid(&c, i), 0, tct_source_process_name(tr, i, name));
    }
    struct tct_sink *sink = &c.sink;
    struct tct_trace *replay = tct_trace_replay(tr, &sink, 1);
    int saved = errno;
    if (replay) {
        c.trace = replay;
        tct_chrome_samples_end(&c);
        names_and_crashes(&c);
        other_data(&c, program);
        saved = tct_sched_log_error(c.sched);
        tct_trace_free(replay);
    }
    int failed = c.failed;
    tct_chrome_stacks_free(&c);
    tct_chrome_places_free(&c);
    int flush_failed = tct_writer_finish(&w);
    if (!replay || saved) {
        errno = saved ? saved : EIO;
        return -1;
    }
    if (failed) {
        errno = ENOMEM;
        return -1;
    }
    return flush_failed ? -1 : 0;
}

const struct tct_format_ops tct_format_chrome = {prepare, write_chrome, NULL, 1};
