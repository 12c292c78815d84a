/* test_export.c - the trace (trace.h), its aggregators and its outputs, fed synthetic
 * decoder events.
 *
 * Names come from a small fake table through struct tct_names, so no client, decoder
 * or socket is involved. The expected CSV numbers are worked out by hand from the
 * events below following tracy-csvexport's rules (finished zones with a span > 0,
 * std::to_string formatting). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream, mkdtemp, mkstemps */
#endif
#include "test_util.h"
#include "trace/export.h"
#include "trace/frame_stats.h"
#include "trace/gpu_stats.h"
#include "trace/lock_stats.h"
#include "trace/memory_stats.h"
#include "trace/plot_stats.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "trace/writer.h"
#include "trace/zone_stats.h"

#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAIN_TID = 100, WORKER_TID = 200 };
enum { SL_MAIN, SL_WORK, SL_LEAF, SL_LOCK, SL_COUNT };

static const struct tcd_srcloc fake_srclocs[SL_COUNT] = {
    {"", "main", "app.c", 10, 0}, /* unnamed: labelled by its function */
    {"work", "do_work", "/src/work.c", 20, 0},
    {"leaf", "leaf_fn", "work.c", 30, 0},
    {"queue lock", "push", "queue.c", 40, 0},
};

static const struct tcd_srcloc *fake_srcloc(const void *ctx, uint32_t i)
{
    (void)ctx;
    static const struct tcd_srcloc unknown = {"", "", "", 0, 0};
    return i < SL_COUNT ? &fake_srclocs[i] : &unknown;
}
static const char *fake_thread(const void *ctx, uint32_t id)
{
    (void)ctx;
    return id == MAIN_TID ? "Main thread" : id == WORKER_TID ? "Worker \"w1\"" : "";
}
static const char *fake_plot(const void *ctx, uint32_t id)
{
    (void)ctx;
    return id == 1 ? "temperature" : id == 2 ? "queue_bytes" : "";
}
static const char *fake_frame(const void *ctx, uint32_t id)
{
    (void)ctx;
    return id == 0 ? "Frame" : "Render";
}
static const char *fake_pool(const void *ctx, uint32_t id)
{
    (void)ctx;
    return id == 0 ? "" : "arena";
}

static const char *fake_string(const void *ctx, uint32_t handle)
{
    (void)ctx;
    return handle == 9 ? "literal text" : "";
}

static struct tcd_welcome fake_welcome;

static struct tct_names fake_names(void)
{
    memset(&fake_welcome, 0, sizeof fake_welcome);
    fake_welcome.timer_mul = 1.0;
    fake_welcome.pid = 4242;
    strcpy(fake_welcome.program_name, "testprog");
    struct tct_names n = {.srcloc = fake_srcloc,
                          .thread = fake_thread,
                          .plot = fake_plot,
                          .frame = fake_frame,
                          .pool = fake_pool,
                          .string = fake_string,
                          .welcome = &fake_welcome};
    return n;
}

/* ---- synthetic events ---- */

static void ev_zone(struct tct_trace *tr, enum tcd_event_kind kind, uint32_t thread, int64_t t, uint32_t srcloc)
{
    struct tcd_event ev = {.kind = kind, .thread = thread, .time = t, .srcloc = srcloc};
    tct_trace_on_event(tr, 0, &ev);
}
static void begin(struct tct_trace *tr, uint32_t thread, int64_t t, uint32_t srcloc)
{
    ev_zone(tr, TCD_ZONE_BEGIN, thread, t, srcloc);
}
static void end(struct tct_trace *tr, uint32_t thread, int64_t t)
{
    ev_zone(tr, TCD_ZONE_END, thread, t, 0);
}
static void ev_text(struct tct_trace *tr, enum tcd_event_kind kind, uint32_t thread, int64_t t, const char *text)
{
    /* Not NUL-terminated at text_len, as decoder text need not be. */
    char buf[256];
    size_t len = strlen(text);
    memcpy(buf, text, len);
    buf[len] = 'X';
    struct tcd_event ev = {.kind = kind, .thread = thread, .time = t, .text = buf, .text_len = len};
    tct_trace_on_event(tr, 0, &ev);
}
static void ev(struct tct_trace *tr, struct tcd_event e)
{
    tct_trace_on_event(tr, 0, &e);
}

/* The trace every test below uses.
 *
 * Main thread (100):          Worker (200):
 *   main      1000..10000       leaf   1500..2500
 *     work    2000..5000        work  11000..      (open at the end)
 *       leaf  2500..3000  "hello"  leaf 11500..    (open at the end)
 *       leaf  3500..4500  value 42
 *     work    6000..6000  named "dyn" (zero span)
 *     message 7000, literal message 8000
 * last event: 12000 (a worker message) */
static void build_trace(struct tct_trace *tr)
{
    begin(tr, MAIN_TID, 1000, SL_MAIN);
    begin(tr, MAIN_TID, 2000, SL_WORK);
    begin(tr, MAIN_TID, 2500, SL_LEAF);
    ev_text(tr, TCD_ZONE_TEXT, MAIN_TID, 0, "hello");
    end(tr, MAIN_TID, 3000);
    begin(tr, MAIN_TID, 3500, SL_LEAF);
    ev(tr, (struct tcd_event){.kind = TCD_ZONE_VALUE, .thread = MAIN_TID, .value = 42});
    ev(tr, (struct tcd_event){.kind = TCD_ZONE_COLOR, .thread = MAIN_TID, .color = 0xff0000});
    end(tr, MAIN_TID, 4500);
    end(tr, MAIN_TID, 5000);
    begin(tr, MAIN_TID, 6000, SL_WORK);
    ev_text(tr, TCD_ZONE_NAME, MAIN_TID, 0, "dyn");
    end(tr, MAIN_TID, 6000);
    ev_text(tr, TCD_MESSAGE, MAIN_TID, 7000, "hello message");
    /* a literal message whose text the decoder learnt only later */
    ev(tr, (struct tcd_event){.kind = TCD_MESSAGE, .thread = MAIN_TID, .time = 8000, .id = 9, .text = ""});
    end(tr, MAIN_TID, 10000);

    begin(tr, WORKER_TID, 1500, SL_LEAF);
    end(tr, WORKER_TID, 2500);
    begin(tr, WORKER_TID, 11000, SL_WORK);
    begin(tr, WORKER_TID, 11500, SL_LEAF);
    /* invalid UTF-8, a control character and a quote, for the JSON escaping */
    ev_text(tr, TCD_MESSAGE, WORKER_TID, 12000, "bad \xff\xfe utf8\x01 \"q\" \xc3\xa9");
    ev_text(tr, TCD_MESSAGE, WORKER_TID, 1200, "early");

    for (int i = 0; i < 3; i++)
        ev(tr, (struct tcd_event){.kind = TCD_FRAME_MARK, .id = 0, .time = 1000 + 4000 * i});
    ev(tr, (struct tcd_event){.kind = TCD_FRAME_START, .id = 7, .time = 2000});
    ev(tr, (struct tcd_event){.kind = TCD_FRAME_END, .id = 7, .time = 2600});
    ev(tr, (struct tcd_event){.kind = TCD_PLOT, .id = 1, .time = 1000, .dvalue = 1.5});
    ev(tr, (struct tcd_event){.kind = TCD_PLOT, .id = 1, .time = 2000, .dvalue = -2.5});
    ev(tr, (struct tcd_event){.kind = TCD_PLOT, .id = 1, .time = 3000, .dvalue = NAN});
    ev(tr, (struct tcd_event){.kind = TCD_PLOT, .id = 2, .time = 1000, .is_int = 1, .value = (uint64_t)-7});
    ev(tr, (struct tcd_event){.kind = TCD_MEM_ALLOC, .thread = MAIN_TID, .time = 1100, .address = 0x10, .value = 100});
    ev(tr, (struct tcd_event){.kind = TCD_MEM_ALLOC, .thread = MAIN_TID, .time = 1200, .address = 0x20, .value = 50});
    ev(tr, (struct tcd_event){.kind = TCD_MEM_FREE, .thread = MAIN_TID, .time = 1300, .address = 0x10});
    ev(tr, (struct tcd_event){.kind = TCD_MEM_FREE, .thread = MAIN_TID, .time = 1400, .address = 0x99});
    /* the worker holds the lock while main waits 300 ns for it */
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_ANNOUNCE, .id = 3, .time = 500, .srcloc = SL_LOCK});
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_OBTAIN, .id = 3, .thread = WORKER_TID, .time = 900});
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_WAIT, .id = 3, .thread = MAIN_TID, .time = 1000});
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_RELEASE, .id = 3, .thread = WORKER_TID, .time = 1250});
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_OBTAIN, .id = 3, .thread = MAIN_TID, .time = 1300});
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_RELEASE, .id = 3, .thread = MAIN_TID, .time = 1400});
    /* context 0 is bound to the main thread (OpenGL-like: ends carry thread 0); context 1
     * is not (Vulkan-like: zones nest per thread) */
    ev(tr, (struct tcd_event){.kind = TCD_GPU_CONTEXT, .id = 0, .thread = MAIN_TID, .time = 100, .dvalue = 1.0});
    ev(tr, (struct tcd_event){
               .kind = TCD_GPU_ZONE_BEGIN, .id = 0, .query = 1, .thread = MAIN_TID, .time = 1000, .srcloc = SL_WORK});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_ZONE_END, .id = 0, .query = 2, .thread = 0, .time = 2000});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 0, .query = 1, .time2 = 5000});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 0, .query = 2, .time2 = 6000});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_CONTEXT, .id = 1, .thread = 0, .time = 100});
    ev(tr, (struct tcd_event){
               .kind = TCD_GPU_ZONE_BEGIN, .id = 1, .query = 7, .thread = WORKER_TID, .time = 1000, .srcloc = SL_LEAF});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_ZONE_END, .id = 1, .query = 8, .thread = WORKER_TID, .time = 1100});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 1, .query = 8, .time2 = 3000});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 1, .query = 7, .time2 = 2000});
    ev(tr, (struct tcd_event){.kind = TCD_DROPPED, .value = 5});
    ev_text(tr, TCD_APP_INFO, 0, 100, "build 1.2.3");
}

/* ---- helpers ---- */

/* A trace with one source, named by the fake tables. */
static struct tct_trace *new_trace(void)
{
    struct tct_trace *tr = tct_trace_new();
    struct tct_names names = fake_names();
    CHECK(tr && tct_trace_add_source(tr, &names, 0) == 0);
    return tr;
}

static void nothing(struct tct_trace *tr)
{
    (void)tr;
}

/* What out writes, in memory (len: its length). */
static char *write_output(struct tct_output *out, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CHECK(f != NULL);
    CHECK_EQ_INT(tct_output_write_to(out, f), 0);
    fclose(f);
    return buf;
}

/* Plays a scenario into a trace with one output, and returns what the output wrote (the
 * caller frees it). incomplete: why the capture is incomplete, or NULL. */
static char *export_to_string(enum tct_format format, void (*scenario)(struct tct_trace *),
                              const struct tct_export_options *o, const char *incomplete)
{
    struct tct_trace *tr = new_trace();
    struct tct_output *out = tct_output_new(tr, format, o);
    CHECK(out != NULL);
    scenario(tr);
    if (incomplete)
        tct_trace_source_incomplete(tr, 0, incomplete);
    tct_trace_finish(tr);
    size_t len = 0;
    char *buf = write_output(out, &len);
    tct_output_free(out);
    tct_trace_free(tr);
    return buf;
}

/* A sink that keeps a copy of every zone record, for the tests to look at. */
struct kept_zone {
    uint32_t thread;
    struct tct_zone_record z;
    char text[64], name[64];
};

struct zone_keeper {
    struct tct_sink sink;
    struct kept_zone zones[256];
    size_t count;
};

static void keep_zone(struct tct_sink *sink, const struct tct_record *rec)
{
    struct zone_keeper *k = (struct zone_keeper *)sink;
    if (k->count == 256)
        return;
    struct kept_zone *z = &k->zones[k->count++];
    z->thread = rec->thread->id;
    z->z = rec->u.zone;
    snprintf(z->text, sizeof z->text, "%.*s", (int)z->z.text_len, z->z.text ? z->z.text : "");
    snprintf(z->name, sizeof z->name, "%.*s", (int)z->z.name_len, z->z.name ? z->z.name : "");
}

static void keeper_free(struct tct_sink *sink)
{
    free(sink);
}

static const struct tct_sink_ops keeper_ops = {"kept zones", TCT_REC_BIT(TCT_REC_ZONE), keep_zone, keeper_free, NULL};

/* The kept zone of a thread that began seq-th. */
static const struct kept_zone *kept(const struct zone_keeper *k, uint32_t thread, uint64_t seq)
{
    for (size_t i = 0; i < k->count; i++)
        if (k->zones[i].thread == thread && k->zones[i].z.seq == seq)
            return &k->zones[i];
    return NULL;
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

static size_t line_count(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* ---- tests ---- */

static void test_records(void)
{
    struct tct_trace *tr = new_trace();
    struct zone_keeper *k = calloc(1, sizeof *k);
    k->sink.ops = &keeper_ops;
    CHECK_EQ_INT(tct_trace_add_sink(tr, &k->sink), 0);
    struct tct_memory_stats *mem = tct_memory_stats_of(tr);
    struct tct_lock_stats *locks = tct_lock_stats_of(tr);
    struct tct_frame_stats *frames = tct_frame_stats_of(tr);
    struct tct_plot_stats *plots = tct_plot_stats_of(tr);
    struct tct_gpu_stats *gpu = tct_gpu_stats_of(tr);
    build_trace(tr);
    CHECK_EQ_INT(k->count, 6); /* the worker's two zones are still open */
    tct_trace_finish(tr);
    CHECK_EQ_INT(k->count, 8);
    CHECK_EQ_INT(tct_trace_thread_count(tr), 2);
    const struct tct_thread *m = tct_trace_thread_at(tr, 0), *w = tct_trace_thread_at(tr, 1);
    const struct tct_source *src = tct_trace_source(tr, 0);
    CHECK_EQ_INT(m->id, MAIN_TID);
    CHECK_EQ_INT(m->zones, 5);
    CHECK_EQ_INT(w->zones, 3);
    CHECK_EQ_INT(src->zones, 8);
    /* server numbers follow first use: main's first span-ful zone end comes first */
    CHECK_EQ_INT(m->server_index, 1);
    CHECK_EQ_INT(w->server_index, 2);

    static const int depths[] = {0, 1, 2, 2, 1};
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ_INT(kept(k, MAIN_TID, i)->z.depth, depths[i]);
    CHECK_EQ_INT(m->max_depth, 2);
    CHECK_EQ_INT(kept(k, MAIN_TID, 0)->z.end, 10000);
    CHECK_STR(kept(k, MAIN_TID, 2)->text, "hello");
    CHECK(kept(k, MAIN_TID, 0)->z.text == NULL);
    const struct tct_zone_record *x = &kept(k, MAIN_TID, 3)->z;
    CHECK_STR(kept(k, MAIN_TID, 3)->text, "42 [0x2a]");
    CHECK(x->has_value && x->value == 42 && x->has_color && x->color == 0xff0000);
    CHECK_STR(kept(k, MAIN_TID, 4)->name, "dyn");
    /* in the order they ended: children before their parent */
    CHECK(k->zones[0].z.seq == 2 && k->zones[3].z.seq == 4 && k->zones[4].z.seq == 0);

    /* open zones closed at the last event time, flagged */
    CHECK_EQ_INT(src->last_time, 12000);
    CHECK_EQ_INT(src->unfinished_zones, 2);
    CHECK_EQ_INT(kept(k, WORKER_TID, 1)->z.end, 12000);
    CHECK(kept(k, WORKER_TID, 1)->z.flags & TCT_ZONE_UNFINISHED);
    CHECK(!(kept(k, WORKER_TID, 0)->z.flags & TCT_ZONE_UNFINISHED));

    CHECK_EQ_INT(kept(k, MAIN_TID, 0)->z.self, 6000);
    CHECK_EQ_INT(kept(k, MAIN_TID, 1)->z.self, 1500);
    CHECK_EQ_INT(kept(k, MAIN_TID, 2)->z.self, 500);
    CHECK_EQ_INT(kept(k, MAIN_TID, 4)->z.self, 0);
    CHECK_EQ_INT(m->busy, 9000);

    CHECK_EQ_INT(src->messages, 4);
    CHECK_EQ_INT(m->messages, 2);

    CHECK_EQ_INT(tct_trace_frame_set_count(tr), 2);
    struct tct_frame_set_stats fs = tct_frame_stats_get(frames, 0);
    CHECK(fs.frames == 3 && fs.timed == 2 && fs.min == 4000 && fs.max == 4000);
    fs = tct_frame_stats_get(frames, 1);
    CHECK(fs.frames == 1 && fs.timed == 1 && fs.total == 600);
    CHECK(tct_trace_frame_set_at(tr, 0)->continuous && !tct_trace_frame_set_at(tr, 1)->continuous);

    CHECK_EQ_INT(tct_trace_plot_count(tr), 2);
    struct tct_plot_values pv = tct_plot_stats_get(plots, 0);
    CHECK(pv.min == -2.5 && pv.max == 1.5 && !pv.is_int && pv.points == 3);
    pv = tct_plot_stats_get(plots, 1);
    CHECK(pv.is_int && pv.ilast == -7 && pv.last == -7.0);

    CHECK_EQ_INT(tct_memory_pool_count(mem), 1);
    const struct tct_mem_pool *p = tct_memory_pool_at(mem, 0);
    CHECK(p->allocs == 2 && p->frees == 2 && p->unmatched_frees == 1);
    CHECK(p->live_bytes == 50 && p->peak_bytes == 150 && p->total_bytes == 150);

    CHECK_EQ_INT(tct_lock_count(locks), 1);
    const struct tct_lock *l = tct_lock_at(locks, 0);
    CHECK(l->obtains == 2 && l->waits == 1 && l->contended == 1 && l->wait_total == 300);
    CHECK(l->releases == 2 && l->held == 0);
    /* its name: the LockName, else the label of where it was announced, else "lock N" (a
     * source location never answered reads "???": no name for a lock) */
    char label[48];
    CHECK_STR(tct_lock_label(tr, l, label, sizeof label), "queue lock");
    struct tct_lock named = *l, unknown = *l;
    named.name = "the queue's";
    CHECK_STR(tct_lock_label(tr, &named, label, sizeof label), "the queue's");
    unknown.srcloc = 999;
    char expected[48];
    snprintf(expected, sizeof expected, "lock %u", (unsigned)l->id);
    CHECK_STR(tct_lock_label(tr, &unknown, label, sizeof label), expected);

    /* GPU times may come in any order: each answers its own query */
    CHECK_EQ_INT(tct_trace_gpu_context_count(tr), 2);
    struct tct_gpu_context_stats g = tct_gpu_stats_get(gpu, 0);
    CHECK(g.zones == 1 && g.timed == 1 && g.busy == 1000);
    g = tct_gpu_stats_get(gpu, 1);
    CHECK(g.zones == 1 && g.timed == 1 && g.busy == 1000);

    CHECK_EQ_INT(src->dropped, 5);
    CHECK_EQ_INT(src->app_info_count, 1);
    CHECK_EQ_INT(src->ignored_events, 0);
    CHECK(tct_trace_memory(tr) > 0);
    tct_trace_free(tr);
}

static void test_csv(void)
{
    struct tct_export_options o = {0};
    char *csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK_STR(csv, "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns\n"
                   "main,app.c,10,9000,75.000000,1,9000,9000,9000,0.000000\n"
                   "work,/src/work.c,20,3000,25.000000,1,3000,3000,3000,0.000000\n"
                   "leaf,work.c,30,2500,20.833333,3,833,500,1000,288.675423\n");
    free(csv);

    o.self_time = 1;
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK(has_line(csv, "main,app.c,10,6000,50.000000,1,6000,6000,6000,0.000000"));
    CHECK(has_line(csv, "work,/src/work.c,20,1500,12.500000,1,1500,1500,1500,0.000000"));
    /* leaves: self times are the spans */
    CHECK(has_line(csv, "leaf,work.c,30,2500,20.833333,3,833,500,1000,288.675423"));
    free(csv);

    o = (struct tct_export_options){.unwrap = 1};
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK_STR(csv, "name,src_file,src_line,ns_since_start,exec_time_ns,thread,value\n"
                   "main,app.c,10,1000,9000,1,\n"
                   "work,/src/work.c,20,2000,3000,1,\n"
                   "leaf,work.c,30,2500,500,1,hello\n"
                   "leaf,work.c,30,3500,1000,1,42 [0x2a]\n"
                   /* upstream repeats the previous zone's text: kept for agreement */
                   "leaf,work.c,30,1500,1000,2,42 [0x2a]\n");
    free(csv);

    o = (struct tct_export_options){.unwrap = 1, .self_time = 1, .separator = ";"};
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK(has_line(csv, "main;app.c;10;1000;6000;1;"));
    CHECK(has_line(csv, "work;/src/work.c;20;2000;1500;1;"));
    free(csv);

    o = (struct tct_export_options){.filter = "LEA"};
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK_EQ_INT(line_count(csv), 2);
    CHECK(strstr(csv, "\nleaf,") != NULL);
    free(csv);
    o.case_sensitive = 1;
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK_EQ_INT(line_count(csv), 1);
    free(csv);
    o.filter = "ai"; /* the unnamed zone is filtered by its function name */
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    CHECK_EQ_INT(line_count(csv), 2);
    CHECK(strstr(csv, "\nmain,") != NULL);
    free(csv);

    o = (struct tct_export_options){.messages = 1};
    csv = export_to_string(TCT_FORMAT_CSV, build_trace, &o, NULL);
    const char *expected = "MessageName,total_ns\nearly,1200\nhello message,7000\n"
                           "literal text,8000\nbad ";
    CHECK(strncmp(csv, expected, strlen(expected)) == 0);
    free(csv);

    csv = export_to_string(TCT_FORMAT_CSV, nothing, &o, NULL);
    CHECK_STR(csv, "There are currently no messages!\n");
    free(csv);
}

/* The std_ns column of a source location's zones, from its CSV row ("" when none). */
static double csv_std(const char *csv, const char *label)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "\n%s,", label);
    const char *row = strstr(csv, prefix);
    const char *eol = row ? strchr(row + 1, '\n') : NULL;
    if (!eol)
        return -1;
    const char *last = eol;
    while (last > row && last[-1] != ',')
        last--;
    return strtod(last, NULL);
}

/* std_ns where upstream's formula breaks: avg*avg*count overflowing a uint64 (two calls of
 * 3.1 s; a 40,000-deep recursion), and self times (upstream uses the total-time sums). */
enum { STD_DEEP = 40000 };

static void std_scenario(struct tct_trace *tr)
{
    int64_t t = 0;
    begin(tr, MAIN_TID, t, SL_MAIN); /* 3.1 s and 3.1 s + 2 ns: mean 3100000001, std sqrt(2) */
    end(tr, MAIN_TID, t += 3100000000);
    begin(tr, MAIN_TID, t, SL_MAIN);
    end(tr, MAIN_TID, t += 3100000002);
    int64_t start = t;
    for (int i = 0; i < STD_DEEP; i++) /* nested: span of depth i is 2 (STD_DEEP - i) us */
        begin(tr, MAIN_TID, start + (int64_t)i * 1000, SL_LEAF);
    for (int i = STD_DEEP; i-- > 0;)
        end(tr, MAIN_TID, start + (int64_t)(2 * STD_DEEP - i) * 1000);
    t = start + (int64_t)2 * STD_DEEP * 1000 + 1000;
    for (int k = 0; k < 2; k++) { /* work: 1000 then 3000, each with 100 ns of its own */
        int64_t span = k ? 3000 : 1000;
        begin(tr, WORKER_TID, t, SL_WORK);
        begin(tr, WORKER_TID, t + 50, SL_LOCK);
        end(tr, WORKER_TID, t + span - 50);
        end(tr, WORKER_TID, t + span);
        t += span + 10;
    }
}

static void test_csv_std(void)
{
    struct tct_export_options o = {0};
    char *csv = export_to_string(TCT_FORMAT_CSV, std_scenario, &o, NULL);
    CHECK(strstr(csv, "nan") == NULL);
    CHECK(strstr(csv, "\nmain,app.c,10,6200000002,") != NULL);
    CHECK(strstr(csv, ",2,3100000001,3100000000,3100000002,1.414214\n") != NULL);
    /* the deep zones, worked out exactly: sum((x - mean_ns)^2) / (n - 1) */
    long double total = 0, ss = 0;
    for (int i = 0; i < STD_DEEP; i++)
        total += 2000.0L * (STD_DEEP - i);
    long double avg = floorl(total / STD_DEEP);
    for (int i = 0; i < STD_DEEP; i++) {
        long double d = 2000.0L * (STD_DEEP - i) - avg;
        ss += d * d;
    }
    double expected = (double)sqrtl(ss / (STD_DEEP - 1));
    double got = csv_std(csv, "leaf");
    CHECK(fabs(got - expected) <= expected * 1e-9);
    CHECK(fabs(csv_std(csv, "work") - 1414.213562) < 1e-6);
    free(csv);

    o.self_time = 1;
    csv = export_to_string(TCT_FORMAT_CSV, std_scenario, &o, NULL);
    CHECK(strstr(csv, "nan") == NULL);
    CHECK(strstr(csv, "\nwork,/src/work.c,20,200,") != NULL);
    CHECK(csv_std(csv, "work") == 0); /* both self times are 100 */
    CHECK(csv_std(csv, "leaf") == 0); /* every deep zone has 2 us of its own */
    free(csv);
}

/* The JSON is checked by Python's json module: parseable, and with the content below. */
static const char *json_check =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "ev = d['traceEvents']\n"
    "X = [e for e in ev if e['ph'] == 'X' and e['tid'] < 0xffffff00]\n"
    "assert len(X) == 8, len(X)\n"
    "names = sorted(e['name'] for e in X)\n"
    "assert names == ['dyn','leaf','leaf','leaf','leaf','main','work','work'], names\n"
    "main = [e for e in X if e['name'] == 'main'][0]\n"
    "assert main['loc'] == 'app.c:10' and main['args'] == {'file':'app.c','line':10}, main\n"
    "assert int(main['ts'] * 1000.) == 1000 and int(main['dur'] * 1000.) == 9000, main\n"
    "assert main['pid'] == 4242 and main['tid'] == 100\n"
    "v = [e for e in X if e['args'].get('value') == 42][0]\n"
    "assert v['args']['text'] == '42 [0x2a]' and v['loc'] == 'work.c:30'\n"
    "assert sum(1 for e in X if e['args'].get('unfinished')) == 2\n"
    "for t in (100, 200):\n"
    "    Z = sorted((e for e in X if e['tid'] == t), key=lambda e: (e['ts'], -e['dur']))\n"
    "    stack = []\n"
    "    for e in Z:\n"
    "        s, f = int(e['ts'] * 1000.), int(e['ts'] * 1000.) + int(e['dur'] * 1000.)\n"
    "        while stack and stack[-1] <= s: stack.pop()\n"
    "        assert not stack or f <= stack[-1], (e, stack)\n"
    "        stack.append(f)\n"
    "M = {e['tid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == "
    "'thread_name'}\n"
    "assert M[100] == 'Main thread' and M[200] == 'Worker \"w1\"', M\n"
    "P = [e for e in ev if e['ph'] == 'M' and e['name'] == 'process_name']\n"
    "assert P[0]['args']['name'] == 'testprog'\n"
    "I = [e for e in ev if e['ph'] == 'i' and e['s'] == 't']\n"
    "assert sorted(e['name'] for e in I) == sorted(['hello message', 'early', 'literal text',\n"
    "    'bad \\ufffd\\ufffd utf8\\x01 \"q\" \\u00e9']), I\n"
    "F = [e for e in ev if e['ph'] == 'i' and e['s'] == 'g']\n"
    "assert sorted(e['name'] for e in F) == ['Frame'] * 3 + ['Render frame'], F\n"
    "assert all('tid' in e for e in F)\n"
    "C = [e for e in ev if e['ph'] == 'C']\n"
    "assert [(e['name'], e['args']) for e in C] == [('temperature', {'temperature': 1.5}),\n"
    "    ('temperature', {'temperature': -2.5}), ('queue_bytes', {'queue_bytes': -7})], C\n"
    "G = [e for e in ev if e['ph'] == 'X' and e['tid'] >= 0xffffff00]\n"
    "assert [(int(g['ts'] * 1000.), int(g['dur'] * 1000.)) for g in G] == [(5000, 1000), (2000, "
    "1000)]\n"
    "assert d['otherData']['dropped_events'] == 5 and d['otherData']['unfinished_zones'] == 2\n";

static int have_python(void)
{
    return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

static void test_chrome(void)
{
    struct tct_export_options o = {0};
    char *json = export_to_string(TCT_FORMAT_CHROME, build_trace, &o, NULL);
    CHECK(strncmp(json, "{\"traceEvents\":[", 16) == 0);
    /* every nanosecond survives tracy-import-chrome's uint64(ts * 1000.) */
    CHECK(strstr(json, "\"ts\":1.00001,\"dur\":9.00001,") != NULL);
    if (have_python()) {
        char dir[PATH_MAX];
        tt_temp_path(dir, sizeof dir, "tracyc_test_export_XXXXXX");
        CHECK(mkdtemp(dir) != NULL);
        char json_path[PATH_MAX + 16], py_path[PATH_MAX + 16], cmd[2 * PATH_MAX + 64];
        snprintf(json_path, sizeof json_path, "%s/trace.json", dir);
        snprintf(py_path, sizeof py_path, "%s/check.py", dir);
        FILE *f = fopen(json_path, "w");
        fputs(json, f);
        fclose(f);
        f = fopen(py_path, "w");
        fputs(json_check, f);
        fclose(f);
        snprintf(cmd, sizeof cmd, "python3 %s %s", py_path, json_path);
        CHECK_EQ_INT(system(cmd), 0);
        unlink(json_path);
        unlink(py_path);
        rmdir(dir);
    } else {
        fprintf(stderr, "test_export: python3 not found, JSON content checks skipped\n");
    }
    free(json);
}

static void one_zone(struct tct_trace *tr)
{
    begin(tr, MAIN_TID, 0, SL_MAIN);
    end(tr, MAIN_TID, 100);
}

static void warnings_scenario(struct tct_trace *tr)
{
    const char *warning = "tracer: the program was stopped by SIGTERM\nsecond line";
    ev(tr, (struct tcd_event){
               .kind = TCD_MESSAGE, .thread = MAIN_TID, .time = 5, .text = "just info", .text_len = 9, .severity = 2});
    ev(tr, (struct tcd_event){.kind = TCD_MESSAGE,
                              .thread = MAIN_TID,
                              .time = 6,
                              .text = warning,
                              .text_len = strlen(warning),
                              .severity = 3});
    for (int i = 0; i < 12; i++)
        ev(tr,
           (struct tcd_event){
               .kind = TCD_MESSAGE, .thread = MAIN_TID, .time = 7 + i, .text = "bad", .text_len = 3, .severity = 4});
}

static void long_warning(struct tct_trace *tr)
{
    char longtext[300];
    memset(longtext, 'w', sizeof longtext);
    ev(tr, (struct tcd_event){.kind = TCD_MESSAGE,
                              .thread = MAIN_TID,
                              .time = 5,
                              .text = longtext,
                              .text_len = sizeof longtext,
                              .severity = 3});
}

static void test_summary(void)
{
    struct tct_export_options o = {0};
    char *text = export_to_string(TCT_FORMAT_SUMMARY, build_trace, &o, "client vanished");
    CHECK(strstr(text, "tracyc capture of testprog (pid 4242)\n") != NULL);
    CHECK(strstr(text, "Captured 12.00 us: 8 zones on 2 threads, 4 messages") != NULL);
    CHECK(strstr(text, "!! 5 events were DROPPED") != NULL);
    CHECK(strstr(text, "!! Capture incomplete (client vanished): 2 zones were still open") != NULL);
    CHECK(strstr(text, "Top 3 zones by total time") != NULL);
    CHECK(strstr(text, "Top 3 zones by self time") != NULL);
    /* main: 1 zone, total 9 us, self 6 us, 75% of the 12 us capture */
    CHECK(strstr(text, "         1    9.00 us    6.00 us    9.00 us    9.00 us    9.00 us  75.0%  "
                       "main  app.c:10\n") != NULL);
    /* leaf counts the unfinished worker zone too (0.5 + 1 + 1 + 0.5 us) */
    CHECK(strstr(text, "         4    3.00 us    3.00 us     750 ns     500 ns    1.00 us  25.0%  "
                       "leaf  work.c:30\n") != NULL);
    CHECK(strstr(text, "Main thread") != NULL);
    CHECK(strstr(text, "Worker \"w1\"") != NULL);
    CHECK(strstr(text, "Messages: 4\n") != NULL);
    CHECK(strstr(text, "Render") != NULL);
    CHECK(strstr(text, "temperature") != NULL);
    CHECK(strstr(text, "queue lock") != NULL);
    CHECK(strstr(text, "App info: build 1.2.3") != NULL);
    /* readable at 100 columns */
    size_t longest = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > longest)
            longest = len;
        p += len + (nl != NULL);
    }
    CHECK(longest <= 100);
    free(text);

    /* a complete capture says nothing about drops or incompleteness */
    text = export_to_string(TCT_FORMAT_SUMMARY, one_zone, &o, NULL);
    CHECK(strstr(text, "!!") == NULL);
    free(text);

    /* warnings and errors are shown with their first line; plain messages only counted */
    text = export_to_string(TCT_FORMAT_SUMMARY, warnings_scenario, &o, NULL);
    CHECK(strstr(text, "Messages: 14 (1 warning, 12 error)\n"
                       "  warning tracer: the program was stopped by SIGTERM\n"
                       "  error   bad\n") != NULL);
    CHECK(strstr(text, "just info") == NULL && strstr(text, "second line") == NULL);
    CHECK(strstr(text, "  ... and 3 more\n") != NULL);
    free(text);

    /* a long warning is cut to stay within 100 columns */
    text = export_to_string(TCT_FORMAT_SUMMARY, long_warning, &o, NULL);
    const char *row = strstr(text, "  warning www");
    CHECK(row != NULL && strchr(row, '\n') - row == 100 && strstr(row, "w...\n") != NULL);
    free(text);
}

/* A sink that keeps the self time and depth of every zone of the main thread, by seq. */
struct self_keeper {
    struct tct_sink sink;
    int64_t *self;
    uint32_t *depth;
    size_t cap;
};

static void keep_self(struct tct_sink *sink, const struct tct_record *rec)
{
    struct self_keeper *k = (struct self_keeper *)sink;
    if (rec->thread->id == MAIN_TID && rec->u.zone.seq < k->cap) {
        k->self[rec->u.zone.seq] = rec->u.zone.self;
        k->depth[rec->u.zone.seq] = rec->u.zone.depth;
    }
}

static void self_keeper_free(struct tct_sink *sink)
{
    struct self_keeper *k = (struct self_keeper *)sink;
    free(k->self);
    free(k->depth);
    free(k);
}

static const struct tct_sink_ops self_keeper_ops = {"self times", TCT_REC_BIT(TCT_REC_ZONE), keep_self,
                                                    self_keeper_free, NULL};

static struct self_keeper *add_self_keeper(struct tct_trace *tr, size_t cap)
{
    struct self_keeper *k = calloc(1, sizeof *k);
    k->sink.ops = &self_keeper_ops;
    k->self = calloc(cap, sizeof *k->self);
    k->depth = calloc(cap, sizeof *k->depth);
    k->cap = cap;
    CHECK_EQ_INT(tct_trace_add_sink(tr, &k->sink), 0);
    return k;
}

/* The statistics of one source location, NULL when it had no zone. */
static const struct tct_srcloc_stats *stats_of(struct tct_zone_stats *zs, uint32_t srcloc)
{
    size_t n;
    const struct tct_srcloc_stats **all = tct_zone_stats_sorted(zs, &n), *found = NULL;
    for (size_t i = 0; i < n; i++)
        if (all[i]->srcloc == srcloc)
            found = all[i];
    free(all);
    return found;
}

/* Many zones, deep recursion, and the hash map under churn. */
static void test_scale(void)
{
    enum { DEPTH = 300, ROUNDS = 40 };
    struct tct_trace *tr = new_trace();
    struct self_keeper *k = add_self_keeper(tr, DEPTH * ROUNDS);
    struct tct_zone_stats *zs = tct_zone_stats_of(tr);
    struct tct_memory_stats *mem = tct_memory_stats_of(tr);
    int64_t t = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int d = 0; d < DEPTH; d++)
            begin(tr, MAIN_TID, t++, SL_WORK);
        for (int d = 0; d < DEPTH; d++)
            end(tr, MAIN_TID, t++);
    }
    for (uint64_t i = 0; i < 20000; i++) {
        ev(tr, (struct tcd_event){.kind = TCD_MEM_ALLOC, .thread = MAIN_TID, .address = (i + 1) * 16, .value = 1});
        if (i % 2)
            ev(tr, (struct tcd_event){.kind = TCD_MEM_FREE, .thread = MAIN_TID, .address = i * 16});
    }
    end(tr, MAIN_TID, t); /* an end without a begin is ignored */
    tct_trace_finish(tr);
    const struct tct_source *src = tct_trace_source(tr, 0);
    CHECK_EQ_INT(src->zones, DEPTH * ROUNDS);
    CHECK_EQ_INT(src->ignored_events, 1);
    CHECK_EQ_INT(tct_memory_pool_at(mem, 0)->live_bytes, 10000);
    CHECK_EQ_INT(tct_memory_pool_at(mem, 0)->live.count, 10000);
    CHECK_EQ_INT(tct_trace_thread_at(tr, 0)->max_depth, DEPTH - 1);
    int self_ok = 1;
    for (size_t i = 0; i < DEPTH * ROUNDS; i++)
        self_ok &= k->self[i] == (i % DEPTH == DEPTH - 1 ? 1 : 2);
    CHECK(self_ok);
    const struct tct_srcloc_stats *e = stats_of(zs, SL_WORK);
    CHECK(e && e->rule[TCT_STATS_UPSTREAM].count == DEPTH * ROUNDS);
    CHECK(e && e->rule[TCT_STATS_UPSTREAM].self_total == (2 * DEPTH - 1) * ROUNDS);
    tct_trace_free(tr);
}

enum { DEEP = 70000 };

static void deep_scenario(struct tct_trace *tr)
{
    for (int i = 0; i < DEEP; i++)
        begin(tr, MAIN_TID, i, SL_LEAF);
    for (int i = DEEP; i-- > 0;)
        end(tr, MAIN_TID, 2 * DEEP - i);
}

/* A recursion deeper than 16 bits: every zone is recorded, with its depth and self time. */
static void test_deep_nesting(void)
{
    struct tct_trace *tr = new_trace();
    struct self_keeper *k = add_self_keeper(tr, DEEP);
    deep_scenario(tr);
    tct_trace_finish(tr);
    const struct tct_source *src = tct_trace_source(tr, 0);
    CHECK_EQ_INT(src->zones, DEEP);
    CHECK_EQ_INT(src->ignored_events, 0);
    CHECK_EQ_INT(tct_trace_thread_at(tr, 0)->max_depth, DEEP - 1);
    CHECK_EQ_INT(k->depth[DEEP - 1], DEEP - 1);
    int self_ok = 1;
    for (size_t i = 0; i < DEEP; i++)
        self_ok &= k->self[i] == 2;
    CHECK(self_ok);
    tct_trace_free(tr);
    struct tct_export_options o = {0};
    char *csv = export_to_string(TCT_FORMAT_CSV, deep_scenario, &o, NULL);
    CHECK(strstr(csv, ",70000,70001,2,140000,") != NULL); /* counts, mean, min, max */
    free(csv);
}

/* Hostile times: the trace pulls them to within 2^53 of the origin, so one span (2^54)
 * fits, but 512 of them overflow a sum. Zone totals, self times, busy times, lock waits,
 * frame and GPU times and allocated bytes saturate instead (UBSan aborts on the overflow
 * in the sanitizer build; wrapped sums came out negative in the others). */
static void saturating_scenario(struct tct_trace *tr)
{
    enum { N = 512 };
    const int64_t lo = -((int64_t)1 << 60), hi = (int64_t)1 << 60; /* clamped to -2^53, 2^53 */
    for (int i = 0; i < N; i++)                                    /* nested: work's total is N spans */
        begin(tr, MAIN_TID, lo, SL_WORK);
    for (int i = 0; i < N; i++)
        end(tr, MAIN_TID, hi);
    begin(tr, WORKER_TID, lo, SL_MAIN); /* children of N spans inside one span */
    for (int i = 0; i < N; i++) {
        begin(tr, WORKER_TID, lo, SL_LEAF);
        end(tr, WORKER_TID, hi);
    }
    end(tr, WORKER_TID, hi);
    for (int i = 0; i < N; i++) { /* N top-level spans: the thread's busy time */
        begin(tr, WORKER_TID, lo, SL_LEAF);
        end(tr, WORKER_TID, hi);
    }
    ev(tr, (struct tcd_event){.kind = TCD_LOCK_ANNOUNCE, .id = 3, .time = lo, .srcloc = SL_LOCK});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_CONTEXT, .id = 0, .thread = MAIN_TID, .time = lo, .dvalue = 1.0});
    for (int i = 0; i < N; i++) {
        ev(tr, (struct tcd_event){.kind = TCD_LOCK_WAIT, .id = 3, .thread = MAIN_TID, .time = lo});
        ev(tr, (struct tcd_event){.kind = TCD_LOCK_OBTAIN, .id = 3, .thread = MAIN_TID, .time = hi});
        ev(tr, (struct tcd_event){.kind = TCD_LOCK_RELEASE, .id = 3, .thread = MAIN_TID, .time = hi});
        ev(tr, (struct tcd_event){.kind = TCD_FRAME_START, .id = 7, .time = lo});
        ev(tr, (struct tcd_event){.kind = TCD_FRAME_END, .id = 7, .time = hi});
        uint16_t q = (uint16_t)(2 * i);
        ev(tr, (struct tcd_event){
                   .kind = TCD_GPU_ZONE_BEGIN, .id = 0, .query = q, .thread = MAIN_TID, .time = lo, .srcloc = SL_WORK});
        ev(tr, (struct tcd_event){.kind = TCD_GPU_ZONE_END, .id = 0, .query = q + 1, .thread = 0, .time = hi});
        ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 0, .query = q, .time2 = lo});
        ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .id = 0, .query = q + 1, .time2 = hi});
        ev(tr, (struct tcd_event){
                   .kind = TCD_MEM_ALLOC, .thread = MAIN_TID, .address = 16 * (i + 1), .value = UINT64_MAX / 4});
    }
}

static void test_saturating_sums(void)
{
    struct tct_trace *tr = new_trace();
    struct tct_zone_stats *zs = tct_zone_stats_of(tr);
    struct tct_lock_stats *locks = tct_lock_stats_of(tr);
    struct tct_memory_stats *mem = tct_memory_stats_of(tr);
    saturating_scenario(tr);
    tct_trace_finish(tr);
    const struct tct_srcloc_stats *work = stats_of(zs, SL_WORK), *leaf = stats_of(zs, SL_LEAF);
    const struct tct_srcloc_stats *outer = stats_of(zs, SL_MAIN);
    CHECK(work && work->rule[TCT_STATS_ALL].total == INT64_MAX);
    CHECK(leaf && leaf->rule[TCT_STATS_ALL].total == INT64_MAX && leaf->rule[TCT_STATS_ALL].self_total == INT64_MAX);
    /* its span less its children's (saturated) total */
    CHECK(outer && outer->rule[TCT_STATS_ALL].self_total == ((int64_t)1 << 54) - INT64_MAX);
    CHECK(tct_lock_count(locks) == 1 && tct_lock_at(locks, 0)->wait_total == INT64_MAX);
    CHECK(tct_memory_pool_count(mem) == 1 && tct_memory_pool_at(mem, 0)->total_bytes == UINT64_MAX);
    tct_trace_free(tr);

    struct tct_export_options o = {0};
    char *csv = export_to_string(TCT_FORMAT_CSV, saturating_scenario, &o, NULL);
    CHECK(strstr(csv, "work,/src/work.c,20,9223372036854775807,") != NULL);
    free(csv);
    char *text = export_to_string(TCT_FORMAT_SUMMARY, saturating_scenario, &o, NULL);
    /* the worker's busy time, the lock's wait, the frames' and the GPU's time */
    size_t saturated = 0;
    for (const char *p = text; (p = strstr(p, "9223372036.855 s")); p++)
        saturated++;
    CHECK(saturated >= 5);
    free(text);
    free(export_to_string(TCT_FORMAT_CHROME, saturating_scenario, &o, NULL));
}

/* A sink that wants the begins (as the Perfetto output does): what came, in order. */
struct begin_log {
    struct tct_sink sink;
    char log[1024];
};

static void log_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct begin_log *l = (struct begin_log *)sink;
    size_t n = strlen(l->log);
    const struct tct_zone_record *z = &rec->u.zone;
    if (rec->kind == TCT_REC_MESSAGE)
        snprintf(l->log + n, sizeof l->log - n, "message;");
    else if (rec->kind == TCT_REC_GPU_BEGIN || rec->kind == TCT_REC_GPU_ZONE)
        snprintf(l->log + n, sizeof l->log - n, "%s %" PRId64 ";",
                 rec->kind == TCT_REC_GPU_BEGIN ? "gpu begin" : "gpu zone", rec->u.gpu.gpu_begin);
    else
        snprintf(l->log + n, sizeof l->log - n, "%s %" PRIu64 " %" PRId64 " %.*s/%.*s%s;",
                 rec->kind == TCT_REC_ZONE_BEGIN ? "begin" : "zone", z->seq,
                 rec->kind == TCT_REC_ZONE_BEGIN ? z->begin : z->end, (int)z->name_len, z->name ? z->name : "",
                 (int)z->text_len, z->text ? z->text : "", z->flags & TCT_ZONE_RENAMED ? " renamed" : "");
}

static const struct tct_sink_ops begin_log_ops = {"begins",
                                                  TCT_REC_BIT(TCT_REC_ZONE_BEGIN) | TCT_REC_BIT(TCT_REC_ZONE) |
                                                      TCT_REC_BIT(TCT_REC_MESSAGE) | TCT_REC_BIT(TCT_REC_GPU_BEGIN) |
                                                      TCT_REC_BIT(TCT_REC_GPU_ZONE),
                                                  log_record, keeper_free, NULL};

/* A name and a text given right after a begin; a message inside a zone; a name given after a
 * child zone; a GPU zone whose GPU begin comes before its CPU end. */
static void begins_scenario(struct tct_trace *tr)
{
    begin(tr, MAIN_TID, 10, SL_MAIN);
    ev_text(tr, TCD_ZONE_NAME, MAIN_TID, 0, "renamed");
    begin(tr, MAIN_TID, 20, SL_WORK);
    ev_text(tr, TCD_ZONE_TEXT, MAIN_TID, 0, "txt");
    ev_text(tr, TCD_MESSAGE, MAIN_TID, 25, "inside");
    end(tr, MAIN_TID, 30);
    ev_text(tr, TCD_ZONE_NAME, MAIN_TID, 0, "late");
    end(tr, MAIN_TID, 40);
    ev(tr, (struct tcd_event){.kind = TCD_GPU_CONTEXT, .id = 0, .thread = MAIN_TID, .time = 0, .dvalue = 1.0});
    ev(tr,
       (struct tcd_event){.kind = TCD_GPU_ZONE_BEGIN, .query = 4, .thread = MAIN_TID, .time = 50, .srcloc = SL_WORK});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .query = 4, .time2 = 55});
    ev(tr, (struct tcd_event){.kind = TCD_GPU_ZONE_END, .query = 5, .thread = 0, .time = 60}); /* a bound context */
    ev(tr, (struct tcd_event){.kind = TCD_GPU_TIME, .query = 5, .time2 = 65});
    begin(tr, MAIN_TID, 70, SL_LEAF); /* open at the end */
}

static void test_zone_begins(void)
{
    struct tct_trace *tr = new_trace();
    struct begin_log *l = calloc(1, sizeof *l);
    l->sink.ops = &begin_log_ops;
    CHECK_EQ_INT(tct_trace_add_sink(tr, &l->sink), 0);
    begins_scenario(tr);
    tct_trace_finish(tr);
    CHECK_STR(l->log, "begin 0 10 renamed/;begin 1 20 /txt;message;zone 1 30 /txt;zone 0 40 late/ renamed;"
                      "gpu begin 55;gpu zone 55;begin 2 70 /;zone 2 70 /;");
    tct_trace_free(tr);

    /* Without a sink that wants them, the trace hands out no begins and marks no renaming. */
    tr = new_trace();
    struct zone_keeper *k = calloc(1, sizeof *k);
    k->sink.ops = &keeper_ops;
    CHECK_EQ_INT(tct_trace_add_sink(tr, &k->sink), 0);
    begins_scenario(tr);
    tct_trace_finish(tr);
    CHECK(k->count == 3 && k->zones[1].z.flags == 0 && strcmp(k->zones[1].name, "late") == 0);
    tct_trace_free(tr);

    /* The Perfetto output: the slice keeps the name its begin had, the later one is an argument. */
    struct tct_export_options o = {0};
    char *pf = NULL;
    size_t len = 0;
    tr = new_trace();
    struct tct_output *out = tct_output_new(tr, TCT_FORMAT_PFTRACE, &o);
    begins_scenario(tr);
    tct_trace_finish(tr);
    pf = write_output(out, &len);
    CHECK(memmem(pf, len, "renamed", 7) != NULL && memmem(pf, len, "late", 4) != NULL);
    free(pf);
    tct_output_free(out);
    tct_trace_free(tr);
}

/* Kept events hold each time as its step from the one before, whatever the client sent:
 * between the largest and the smallest time that step wraps, and reading it back must wrap
 * the same way (UBSan aborts on a signed overflow in the sanitizer build). */
static void hostile_times_scenario(struct tct_trace *tr)
{
    begin(tr, MAIN_TID, INT64_MAX, SL_WORK);
    end(tr, MAIN_TID, INT64_MIN); /* pulled to 2^53 and -2^53: it ends where it began */
    begin(tr, MAIN_TID, INT64_MAX, SL_LEAF);
    end(tr, MAIN_TID, INT64_MAX);
}

static void test_hostile_times_replayed(void)
{
    struct tct_export_options o = {0};
    char *json = export_to_string(TCT_FORMAT_CHROME, hostile_times_scenario, &o, NULL);
    size_t zones = 0;
    for (const char *p = json; (p = strstr(p, "\"ts\":9007199254740.99201,\"dur\":0.00001")); p++)
        zones++;
    CHECK_EQ_INT(zones, 2);
    free(json);
}

/* ---- several processes ---- */

static struct tcd_welcome process_welcome[3];

/* Three processes of one program: "server" pid 10, and two "worker"s that both say pid 7
 * (two containers); each runs the zone "work" (same name, file and line) on its main
 * thread (tid 100 in each), and the second worker's clock runs 1 % fast and 1 ms late. */
static struct tct_trace *three_processes(void)
{
    struct tct_trace *tr = tct_trace_new();
    static const char *const programs[3] = {"server", "worker", "worker"};
    static const uint64_t pids[3] = {10, 7, 7};
    for (int i = 0; i < 3; i++) {
        struct tct_names names = fake_names();
        process_welcome[i] = fake_welcome;
        strcpy(process_welcome[i].program_name, programs[i]);
        process_welcome[i].pid = pids[i];
        names.welcome = &process_welcome[i];
        CHECK_EQ_INT(tct_trace_add_source(tr, &names, 0), i);
    }
    tct_trace_set_source_clock(tr, 2, 1000000, 1.01, 500);
    return tr;
}

static void process_events(struct tct_trace *tr)
{
    for (uint32_t src = 0; src < 3; src++) {
        for (int k = 0; k < 2; k++) {
            int64_t t = 1000 + 10000 * k;
            tct_trace_on_event(
                tr, src, &(struct tcd_event){.kind = TCD_ZONE_BEGIN, .thread = MAIN_TID, .time = t, .srcloc = SL_WORK});
            tct_trace_on_event(
                tr, src, &(struct tcd_event){.kind = TCD_ZONE_END, .thread = MAIN_TID, .time = t + 1000 * (src + 1)});
        }
    }
    tct_trace_on_event(tr, 1, &(struct tcd_event){.kind = TCD_DROPPED, .value = 3});
}

/* The output of three_processes() with the first worker's clock error set (-1: unknown). */
static char *process_output_with_error(enum tct_format format, const struct tct_export_options *o, int64_t error)
{
    struct tct_trace *tr = three_processes();
    tct_trace_set_source_clock(tr, 1, 0, 1.0, error);
    struct tct_output *out = tct_output_new(tr, format, o);
    process_events(tr);
    tct_trace_finish(tr);
    size_t len = 0;
    char *buf = write_output(out, &len);
    tct_output_free(out);
    tct_trace_free(tr);
    return buf;
}

static char *process_output(enum tct_format format, const struct tct_export_options *o)
{
    return process_output_with_error(format, o, -1);
}

static void test_processes(void)
{
    struct tct_export_options o = {0};
    /* CSV: csvexport's columns, a row summed over the processes (6 zones of 1, 2 and 3 us)... */
    char *csv = process_output(TCT_FORMAT_CSV, &o);
    CHECK(strstr(csv, "\nwork,/src/work.c,20,12060,") != NULL); /* the fast clock's zones: 3030 ns */
    CHECK(strstr(csv, ",6,2010,1000,3030,") != NULL);           /* counts, mean, min, max */
    CHECK_EQ_INT(line_count(csv), 2);
    free(csv);
    /* ... or, per process, a row each with a process column */
    o.per_process = 1;
    csv = process_output(TCT_FORMAT_CSV, &o);
    CHECK(strncmp(csv, "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns,process\n",
                  87) == 0);
    CHECK(strstr(csv, ",server[10]\n") && strstr(csv, ",worker[7]\n"));
    CHECK_EQ_INT(line_count(csv), 4);
    free(csv);

    /* JSON: a process each, the second pid 7 given a pid of its own, times on the trace's
     * clock (the fast worker's zone at 1 ms + 1.01 us) */
    o.per_process = 0;
    char *json = process_output(TCT_FORMAT_CHROME, &o);
    CHECK(strstr(json,
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":10,\"tid\":0,\"args\":{\"name\":\"server[10]\"}}"));
    CHECK(
        strstr(json, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"worker[7]\"}}"));
    CHECK(strstr(json, "\"pid\":2147483650,\"tid\":0,\"args\":{\"name\":\"worker[7]\"}}"));
    CHECK(strstr(json, "\"pid\":2147483650,\"tid\":100,\"ts\":1001.01001,\"dur\":3.03001,"));
    CHECK(strstr(json, "\"processes\":[{\"name\":\"server[10]\",\"pid\":10,\"dropped_events\":0"));
    CHECK(strstr(json, "{\"name\":\"worker[7]\",\"pid\":7,\"dropped_events\":3,"));
    CHECK(strstr(json, "\"pid\":2147483650,\"dropped_events\":0,\"unfinished_zones\":0,\"clock_error_ns\":500}"));
    free(json);

    /* the summary: all processes, each process, what each missed */
    char *text = process_output(TCT_FORMAT_SUMMARY, &o);
    CHECK(strstr(text, "tracyc capture of 3 processes: server[10], worker[7], worker[7]\n") != NULL);
    CHECK(strstr(text, "Top 1 zones by total time, all processes (of 1 places)") != NULL);
    CHECK(strstr(text, "work  work.c:20  (3 processes)\n") != NULL);
    CHECK(strstr(text, "!! worker[7]: 3 events were DROPPED") != NULL);
    CHECK(strstr(text, "\nProcesses\n") != NULL);
    CHECK(strstr(text, "  worker[7]                               1            2            0          0     +-500 ns  "
                       "complete\n") != NULL);
    CHECK(strstr(text, "\nserver[10]: top 1 zones by total time (of 1 source locations)\n") != NULL);
    CHECK(strstr(text, "  worker[7] Main thread ") != NULL);
    free(text);
}

/* The summary's clock column holds errors up to 1000 s (as "+-1000.000 s" at most); a wider
 * one is said as "> 1000 s", the capture column in its place. */
static void test_processes_clock_column(void)
{
    struct tct_export_options o = {0};
    const struct {
        int64_t error;
        const char *row;
    } cases[] = {
        {999999999999LL,
         "  worker[7]                               1            2            0          0 +-1000.000 s  "
         "complete\n"},
        {1002125287000000LL,
         "  worker[7]                               1            2            0          0     > 1000 s  "
         "complete\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = process_output_with_error(TCT_FORMAT_SUMMARY, &o, cases[i].error);
        CHECK(strstr(text, cases[i].row) != NULL);
        free(text);
    }
}

/* Threads of other programs, named by the source that saw them switch. */
static const char *named_by_source(const void *ctx, uint32_t thread)
{
    (void)thread;
    return ctx;
}

static void context_switch(struct tct_trace *tr, uint32_t source, int64_t t, uint8_t cpu, uint32_t old_thread,
                           uint32_t new_thread)
{
    tct_trace_on_event(
        tr, source,
        &(struct tcd_event){
            .kind = TCD_CONTEXT_SWITCH, .time = t, .query = cpu, .id = old_thread, .thread = new_thread});
}

/* Two processes (two containers) each with a thread 300 on CPU 0: the second's switch off its
 * 300 is not one off the first's, whose switch put its own 300 on. The Perfetto output's
 * compact form would imply the first's (and name no previous thread): it goes out in full,
 * naming the second's. */
static void test_same_tid_switches(void)
{
    struct tct_trace *tr = tct_trace_new();
    static const char *const names_seen[2] = {"first's 300", "second's 300"};
    for (int i = 0; i < 2; i++) {
        struct tct_names names = fake_names();
        names.ctx = names_seen[i];
        names.system_thread = named_by_source;
        CHECK_EQ_INT(tct_trace_add_source(tr, &names, 0), i);
    }
    struct tct_export_options o = {0};
    struct tct_output *out = tct_output_new(tr, TCT_FORMAT_PFTRACE, &o);
    context_switch(tr, 0, 1000, 0, 0, 300);
    context_switch(tr, 1, 2000, 0, 300, 0);
    tct_trace_finish(tr);
    size_t len = 0;
    char *pf = write_output(out, &len);
    CHECK(memmem(pf, len, names_seen[0], strlen(names_seen[0])) != NULL);
    CHECK(memmem(pf, len, names_seen[1], strlen(names_seen[1])) != NULL);
    free(pf);
    tct_output_free(out);
    tct_trace_free(tr);
}

/* The outputs pftrace_check.py reads and compares. */
static const char *const sched_outputs[] = {"trace.pftrace", "trace.json", "profile.folded"};

/* tests/c/pftrace_check.py (PFTRACE_CHECK) where it runs as for the pftrace_decode test:
 * /usr/bin/python3 with Google's protobuf, and protoc; else NULL. */
static const char *pftrace_checker(void)
{
    const char *script = getenv("PFTRACE_CHECK");
    if (!script || system("/usr/bin/python3 -c 'import google.protobuf' >/dev/null 2>&1 && "
                          "command -v protoc >/dev/null") != 0)
        return NULL;
    return script;
}

/* Checks the outputs in dir with pftrace_check.py (as Perfetto's trace processor reads the
 * .pftrace, and against the JSON's ftrace text), and that the .pftrace's full sched_waking
 * events are as python_list says: (cpu, time, waker, pid, target_cpu). */
static void check_sched_outputs(const char *script, const char *dir, const char *python_list)
{
    static const char *const check =
        "import ast, os, sys\n"
        "sys.path.insert(0, os.path.dirname(sys.argv[1]))\n"
        "import pftrace_check\n"
        "out = sys.argv[2]\n"
        "pb2 = pftrace_check.load_messages(out)\n"
        "pftrace_check.check_outputs(pb2, out)\n"
        "trace = pb2.Trace()\n"
        "trace.ParseFromString(open(os.path.join(out, 'trace.pftrace'), 'rb').read())\n"
        "full = [(p.ftrace.cpu, e.timestamp, e.pid, e.sched_waking.pid, e.sched_waking.target_cpu)\n"
        "        for p in trace.packets if p.HasField('ftrace') for e in p.ftrace.events\n"
        "        if e.HasField('sched_waking')]\n"
        "assert full == ast.literal_eval(sys.argv[3]), full\n";
    char path[PATH_MAX + 32], cmd[3 * PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/check.py", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(check, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -B %s %s %s '%s'", path, script, dir, python_list);
    CHECK_EQ_INT(system(cmd), 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/pftrace_pb2.py", dir);
    unlink(path);
}

static void wakeup(struct tct_trace *tr, int64_t t, uint8_t cpu, uint32_t thread)
{
    tct_trace_on_event(tr, 0,
                       &(struct tcd_event){.kind = TCD_THREAD_WAKEUP, .time = t, .query = cpu, .thread = thread});
}

/* CPU 1's first scheduling event a wakeup, before any switch there (CPU 0 has had one): the
 * trace processor drops a compact waking on a CPU with no switch yet (FtraceSchedEventTracker::
 * PushSchedWakingCompact: no thread on the CPU to be its waker), so the Perfetto output writes
 * it in full, waker the idle thread as in the JSON. The wakeups after the CPU's first switch
 * stay compact. pftrace_check.py finds every wakeup of the JSON kept. */
static void test_waking_before_switch(void)
{
    const char *script = pftrace_checker();
    if (!script) {
        fprintf(stderr, "test_export: PFTRACE_CHECK, /usr/bin/python3's protobuf or protoc missing, "
                        "the waking before a switch unchecked\n");
        return;
    }
    char dir[PATH_MAX], path[PATH_MAX + 32], err[256];
    tt_temp_path(dir, sizeof dir, "tracyc_test_export_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    struct tct_trace *tr = new_trace();
    struct tct_export_options o = {0};
    enum { OUTPUTS = sizeof sched_outputs / sizeof *sched_outputs };
    struct tct_output *out[OUTPUTS];
    for (size_t i = 0; i < OUTPUTS; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, sched_outputs[i]);
        CHECK((out[i] = tct_output_open(tr, path, &o, err, sizeof err)) != NULL);
    }
    context_switch(tr, 0, 1000, 0, 0, 300);
    wakeup(tr, 1500, 1, 400);
    context_switch(tr, 0, 2000, 1, 0, 400);
    wakeup(tr, 2500, 1, 500);
    wakeup(tr, 3000, 0, 500);
    tct_trace_finish(tr);
    for (size_t i = 0; i < OUTPUTS; i++)
        CHECK_EQ_INT(tct_output_close(out[i], err, sizeof err), 0);
    tct_trace_free(tr);
    check_sched_outputs(script, dir, "[(1, 1500, 0, 400, 1)]");
    for (size_t i = 0; i < OUTPUTS; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, sched_outputs[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A source's clock set again while its zones are open (a collector's estimate improving):
 * each zone is measured on the clock that ends it, its begin moved with the clock. */
static void test_clock_change(void)
{
    struct tct_trace *tr = three_processes();
    struct tct_export_options o = {.unwrap = 1};
    struct tct_output *out = tct_output_new(tr, TCT_FORMAT_CSV, &o);
    tct_trace_set_source_clock(tr, 1, 0, 1.0, -1);
    tct_trace_on_event(
        tr, 1, &(struct tcd_event){.kind = TCD_ZONE_BEGIN, .thread = MAIN_TID, .time = 1000, .srcloc = SL_WORK});
    tct_trace_on_event(
        tr, 1, &(struct tcd_event){.kind = TCD_ZONE_BEGIN, .thread = MAIN_TID, .time = 1500, .srcloc = SL_WORK});
    tct_trace_on_event(tr, 1, &(struct tcd_event){.kind = TCD_ZONE_END, .thread = MAIN_TID, .time = 1700});
    tct_trace_set_source_clock(tr, 1, 5000, 2.0, 10);
    tct_trace_on_event(tr, 1, &(struct tcd_event){.kind = TCD_ZONE_END, .thread = MAIN_TID, .time = 3000});
    tct_trace_finish(tr);
    size_t len = 0;
    char *csv = write_output(out, &len);
    /* the inner zone ended on the first clock: 1500..1700; the outer one began at 1000 of its
     * own time, 7000 on the new clock, and ended at 3000, 11000: 4000 ns */
    CHECK(strstr(csv, "\nwork,/src/work.c,20,1500,200,") != NULL);
    CHECK(strstr(csv, "\nwork,/src/work.c,20,7000,4000,") != NULL);
    free(csv);
    tct_output_free(out);
    tct_trace_free(tr);
}

static void test_export_file(void)
{
    CHECK_EQ_INT(tct_export_format_for("a/b.json"), TCT_FORMAT_CHROME);
    CHECK_EQ_INT(tct_export_format_for("trace.pftrace"), TCT_FORMAT_PFTRACE);
    CHECK_EQ_INT(tct_export_format_for("TRACE.PFTRACE"), TCT_FORMAT_PFTRACE);
    CHECK_EQ_INT(tct_export_format_for("stats.CSV"), TCT_FORMAT_CSV);
    CHECK_EQ_INT(tct_export_format_for("summary.txt"), TCT_FORMAT_SUMMARY);
    CHECK_EQ_INT(tct_export_format_for("dir.json/out"), TCT_FORMAT_SUMMARY);
    CHECK_EQ_INT(tct_export_format_for("/dev/stdout"), TCT_FORMAT_SUMMARY);
    CHECK_EQ_INT(tct_export_format_for("dir/.profile"), TCT_FORMAT_SUMMARY);
    CHECK_EQ_INT(tct_export_format_for("x.tracy"), TCT_FORMAT_UNSUPPORTED);
    CHECK_EQ_INT(tct_export_format_for("x.json.gz"), TCT_FORMAT_UNSUPPORTED);
    char why[256] = "";
    CHECK_EQ_INT(tct_export_check_format("-", why, sizeof why), 0);
    CHECK_EQ_INT(tct_export_check_format("out/trace.TRACY", why, sizeof why), -1);
    CHECK(strstr(why, "out/trace.TRACY: ") == why && strstr(why, "tracy-capture") != NULL);
    CHECK_EQ_INT(tct_export_check_format("x.html", why, sizeof why), -1);
    CHECK(strstr(why, "'.html'") != NULL && strstr(why, ".json") != NULL && strstr(why, ".pftrace") != NULL);

    /* a decoder that never saw a client: names are empty, the output still works */
    static const struct tcd_callbacks cb = {0};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, NULL, NULL);
    struct tct_trace *tr = tct_trace_new();
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    CHECK_EQ_INT(tct_trace_add_source(tr, &names, 0), 0);
    char path[PATH_MAX];
    tt_temp_path(path, sizeof path, "tracyc_test_export_XXXXXX.csv");
    int fd = mkstemps(path, 4);
    CHECK(fd >= 0);
    close(fd);
    char err[256] = "";
    struct tct_output *out = tct_output_open(tr, path, NULL, err, sizeof err);
    CHECK(out != NULL);
    begin(tr, MAIN_TID, 0, 0);
    end(tr, MAIN_TID, 100);
    /* an output is written from a finished trace only */
    FILE *devnull = fopen("/dev/null", "w");
    CHECK_EQ_INT(tct_output_write_to(out, devnull), -1);
    fclose(devnull);
    tct_trace_finish(tr);
    CHECK_EQ_INT(tct_output_close(out, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR(line, "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns\n");
    CHECK(fgets(line, sizeof line, f) != NULL); /* one row, whatever the empty names */
    CHECK(fgets(line, sizeof line, f) == NULL);
    fclose(f);
    unlink(path);
    char refused[PATH_MAX];
    tt_temp_path(refused, sizeof refused, "tracyc_test_export_XXXXXX.tracy");
    fd = mkstemps(refused, 6);
    CHECK(fd >= 0);
    close(fd);
    unlink(refused);
    CHECK(tct_output_open(tr, refused, NULL, err, sizeof err) == NULL);
    CHECK(strstr(err, "tracy-capture") != NULL && access(refused, F_OK) != 0); /* nothing written */
    CHECK(tct_output_open(tr, "/nonexistent-dir/x.json", NULL, err, sizeof err) == NULL);
    CHECK(strstr(err, "/nonexistent-dir/x.json") != NULL);
    tct_trace_free(tr);
    tcd_decoder_free(dec);
}

/* The outputs' integers, written by hand: as printf writes them, at every number of digits. */
static void test_numbers(void)
{
    int bad = 0;
    uint64_t power = 1;
    for (int digits = 1; digits <= 20; digits++, power *= 10) {
        const uint64_t values[] = {power - 1, power, power + 1, power * 2 - 1, power * 9 + (power - 1)};
        for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
            uint64_t v = digits == 20 && i == 4 ? UINT64_MAX : values[i]; /* 10^20 - 1 does not fit */
            char got[TCT_U64_DIGITS + 1], want[32];
            got[tct_format_u64(got, v)] = '\0';
            snprintf(want, sizeof want, "%" PRIu64, v);
            if (strcmp(got, want) != 0 && bad++ < 5)
                fprintf(stderr, "tct_format_u64: %s, printf: %s\n", got, want);
        }
    }
    tt_check(bad == 0, "integers of 1 to 20 digits are written as printf writes them (%d differ)", bad);
}

/* A ZoneValue goes into the zone's text as Tracy's server writes it, "%llu [0x%llx]", each
 * on a line of its own: across the whole range of a uint64_t. */
static void test_zone_values(void)
{
    static const uint64_t values[] = {0, 1, 9, 10, 15, 16, 99, 100, 255, 4096, 0xdeadbeef, UINT64_MAX / 3, UINT64_MAX};
    enum { COUNT = sizeof values / sizeof *values };
    struct tct_trace *tr = new_trace();
    struct zone_keeper *k = calloc(1, sizeof *k);
    CHECK(k != NULL);
    k->sink.ops = &keeper_ops;
    CHECK_EQ_INT(tct_trace_add_sink(tr, &k->sink), 0);
    for (int i = 0; i < COUNT; i++) {
        begin(tr, MAIN_TID, 10 * i, SL_WORK);
        ev(tr, (struct tcd_event){.kind = TCD_ZONE_VALUE, .thread = MAIN_TID, .value = values[i]});
        if (i == COUNT - 1) /* a second value: after a '\n' */
            ev(tr, (struct tcd_event){.kind = TCD_ZONE_VALUE, .thread = MAIN_TID, .value = values[0]});
        end(tr, MAIN_TID, 10 * i + 5);
    }
    tct_trace_finish(tr);
    for (int i = 0; i < COUNT; i++) {
        char want[64];
        snprintf(want, sizeof want, "%" PRIu64 " [0x%" PRIx64 "]%s", values[i], values[i],
                 i == COUNT - 1 ? "\n0 [0x0]" : "");
        const struct kept_zone *z = kept(k, MAIN_TID, (uint64_t)i);
        tt_check(z && strcmp(z->text, want) == 0 && z->z.value == (i == COUNT - 1 ? 0 : values[i]),
                 "the text of a zone of value %" PRIu64 " is \"%s\" (\"%s\" expected)", values[i], z ? z->text : "-",
                 want);
    }
    tct_trace_free(tr);
}

int main(void)
{
    test_records();
    test_numbers();
    test_zone_values();
    test_csv();
    test_csv_std();
    test_chrome();
    test_summary();
    test_scale();
    test_deep_nesting();
    test_saturating_sums();
    test_hostile_times_replayed();
    test_zone_begins();
    test_processes();
    test_processes_clock_column();
    test_same_tid_switches();
    test_waking_before_switch();
    test_clock_change();
    test_export_file();
    return tt_finish("test_export");
}
