/* test_export.c - the trace model and its exporters, fed synthetic decoder events.
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
#include "trace/model.h"
#include "trace/zone_stats.h"

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
    tct_trace_on_event(tr, &ev);
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
    tct_trace_on_event(tr, &ev);
}
static void ev(struct tct_trace *tr, struct tcd_event e)
{
    tct_trace_on_event(tr, &e);
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
static struct tct_trace *build_trace(void)
{
    struct tct_trace *tr = tct_trace_new();
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
    tct_trace_finish(tr);
    return tr;
}

/* ---- helpers ---- */

/* Runs an exporter into a memory buffer; the caller frees the result. */
static char *export_to_string(int (*fn)(FILE *, const struct tct_trace *, const struct tct_names *,
                                        const struct tct_export_options *),
                              const struct tct_trace *tr, const struct tct_export_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct tct_names names = fake_names();
    CHECK_EQ_INT(fn(f, tr, &names, o), 0);
    fclose(f);
    return buf;
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

static void test_model(void)
{
    CHECK_EQ_INT(sizeof(struct tct_zone), 24);
    struct tct_trace *tr = build_trace();
    CHECK_EQ_INT(tr->thread_count, 2);
    const struct tct_thread *m = tr->threads[0], *w = tr->threads[1];
    CHECK_EQ_INT(m->id, MAIN_TID);
    CHECK_EQ_INT(m->zones.count, 5);
    CHECK_EQ_INT(w->zones.count, 3);
    CHECK_EQ_INT(tr->zones, 8);
    /* server numbers follow first use: main's first span-ful zone end comes first */
    CHECK_EQ_INT(m->server_index, 1);
    CHECK_EQ_INT(w->server_index, 2);

    static const int depths[] = {0, 1, 2, 2, 1};
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ_INT(tct_thread_zone(m, i)->depth, depths[i]);
    CHECK_EQ_INT(m->max_depth, 2);
    CHECK_EQ_INT(tct_thread_zone(m, 0)->end, 10000);
    CHECK_STR(tct_thread_zone_extra(m, 2)->text, "hello");
    CHECK(tct_thread_zone_extra(m, 0) == NULL);
    const struct tct_zone_extra *x = tct_thread_zone_extra(m, 3);
    CHECK_STR(x->text, "42 [0x2a]");
    CHECK(x->has_value && x->value == 42 && x->has_color && x->color == 0xff0000);
    CHECK_STR(tct_thread_zone_extra(m, 4)->name, "dyn");

    /* open zones closed at the last event time, flagged */
    CHECK_EQ_INT(tr->last_time, 12000);
    CHECK_EQ_INT(tr->unfinished_zones, 2);
    CHECK_EQ_INT(tct_thread_zone(w, 1)->end, 12000);
    CHECK(tct_thread_zone(w, 1)->flags & TCT_ZONE_UNFINISHED);
    CHECK(!(tct_thread_zone(w, 0)->flags & TCT_ZONE_UNFINISHED));

    int64_t *self = tct_thread_self_times(m);
    CHECK_EQ_INT(self[0], 6000);
    CHECK_EQ_INT(self[1], 1500);
    CHECK_EQ_INT(self[2], 500);
    CHECK_EQ_INT(self[4], 0);
    free(self);

    CHECK_EQ_INT(tr->messages.count, 4);
    CHECK_EQ_INT(m->messages, 2);
    size_t *order = tct_trace_messages_by_time(tr);
    CHECK_STR(tct_trace_message(tr, order[0])->text, "early");
    CHECK_STR(tct_trace_message(tr, order[1])->text, "hello message");
    free(order);

    CHECK_EQ_INT(tr->frame_set_count, 2);
    CHECK_EQ_INT(tr->frame_sets[0].frames.count, 3);
    CHECK_EQ_INT(tct_frame_at(&tr->frame_sets[0], 0)->end, 5000);
    CHECK(tct_frame_at(&tr->frame_sets[0], 2)->end == TCT_TIME_NONE);
    CHECK_EQ_INT(tct_frame_at(&tr->frame_sets[1], 0)->end, 2600);
    CHECK(!tr->frame_sets[1].continuous);

    CHECK_EQ_INT(tr->plot_count, 2);
    CHECK(tr->plots[0].min == -2.5 && tr->plots[0].max == 1.5 && !tr->plots[0].is_int);
    CHECK(tr->plots[1].is_int && tct_plot_point(&tr->plots[1], 0)->value == -7.0);

    CHECK_EQ_INT(tr->pool_count, 1);
    const struct tct_mem_pool *p = &tr->pools[0];
    CHECK(p->allocs == 2 && p->frees == 2 && p->unmatched_frees == 1);
    CHECK(p->live_bytes == 50 && p->peak_bytes == 150 && p->total_bytes == 150);

    CHECK_EQ_INT(tr->lock_count, 1);
    const struct tct_lock *l = &tr->locks[0];
    CHECK(l->obtains == 2 && l->waits == 1 && l->contended == 1 && l->wait_total == 300);
    CHECK(l->releases == 2 && l->held == 0);

    CHECK_EQ_INT(tr->gpu_context_count, 2);
    const struct tct_gpu_zone *g = tct_gpu_zone_at(&tr->gpu_contexts[0], 0);
    CHECK(g->cpu_begin == 1000 && g->cpu_end == 2000 && g->gpu_begin == 5000 && g->gpu_end == 6000);
    CHECK_EQ_INT(g->thread, MAIN_TID);
    /* GPU times may come in any order: each answers its own query */
    g = tct_gpu_zone_at(&tr->gpu_contexts[1], 0);
    CHECK(g->cpu_end == 1100 && g->gpu_begin == 2000 && g->gpu_end == 3000);
    CHECK_EQ_INT(g->thread, WORKER_TID);

    CHECK_EQ_INT(tr->dropped, 5);
    CHECK_EQ_INT(tr->app_info_count, 1);
    CHECK_EQ_INT(tr->ignored_events, 0);
    CHECK(tct_trace_memory(tr) > 0);
    tct_trace_free(tr);
}

static void test_csv(void)
{
    struct tct_trace *tr = build_trace();
    struct tct_export_options o = {0};
    char *csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_STR(csv, "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns\n"
                   "main,app.c,10,9000,75.000000,1,9000,9000,9000,0.000000\n"
                   "work,/src/work.c,20,3000,25.000000,1,3000,3000,3000,0.000000\n"
                   "leaf,work.c,30,2500,20.833333,3,833,500,1000,288.675423\n");
    free(csv);

    o.self_time = 1;
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(has_line(csv, "main,app.c,10,6000,50.000000,1,6000,6000,6000,0.000000"));
    CHECK(has_line(csv, "work,/src/work.c,20,1500,12.500000,1,1500,1500,1500,0.000000"));
    /* leaves: self times are the spans */
    CHECK(has_line(csv, "leaf,work.c,30,2500,20.833333,3,833,500,1000,288.675423"));
    free(csv);

    o = (struct tct_export_options){.unwrap = 1};
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_STR(csv, "name,src_file,src_line,ns_since_start,exec_time_ns,thread,value\n"
                   "main,app.c,10,1000,9000,1,\n"
                   "work,/src/work.c,20,2000,3000,1,\n"
                   "leaf,work.c,30,2500,500,1,hello\n"
                   "leaf,work.c,30,3500,1000,1,42 [0x2a]\n"
                   /* upstream repeats the previous zone's text: kept for agreement */
                   "leaf,work.c,30,1500,1000,2,42 [0x2a]\n");
    free(csv);

    o = (struct tct_export_options){.unwrap = 1, .self_time = 1, .separator = ";"};
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(has_line(csv, "main;app.c;10;1000;6000;1;"));
    CHECK(has_line(csv, "work;/src/work.c;20;2000;1500;1;"));
    free(csv);

    o = (struct tct_export_options){.filter = "LEA"};
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_EQ_INT(line_count(csv), 2);
    CHECK(strstr(csv, "\nleaf,") != NULL);
    free(csv);
    o.case_sensitive = 1;
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_EQ_INT(line_count(csv), 1);
    free(csv);
    o.filter = "ai"; /* the unnamed zone is filtered by its function name */
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_EQ_INT(line_count(csv), 2);
    CHECK(strstr(csv, "\nmain,") != NULL);
    free(csv);

    o = (struct tct_export_options){.messages = 1};
    csv = export_to_string(tct_export_csv, tr, &o);
    const char *expected = "MessageName,total_ns\nearly,1200\nhello message,7000\n"
                           "literal text,8000\nbad ";
    CHECK(strncmp(csv, expected, strlen(expected)) == 0);
    free(csv);
    tct_trace_free(tr);

    tr = tct_trace_new();
    tct_trace_finish(tr);
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK_STR(csv, "There are currently no messages!\n");
    free(csv);
    tct_trace_free(tr);
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
static void test_csv_std(void)
{
    struct tct_trace *tr = tct_trace_new();
    int64_t t = 0;
    begin(tr, MAIN_TID, t, SL_MAIN); /* 3.1 s and 3.1 s + 2 ns: mean 3100000001, std sqrt(2) */
    end(tr, MAIN_TID, t += 3100000000);
    begin(tr, MAIN_TID, t, SL_MAIN);
    end(tr, MAIN_TID, t += 3100000002);
    enum { DEEP = 40000 };
    int64_t start = t;
    for (int i = 0; i < DEEP; i++) /* nested: span of depth i is 2 (DEEP - i) us */
        begin(tr, MAIN_TID, start + (int64_t)i * 1000, SL_LEAF);
    for (int i = DEEP; i-- > 0;)
        end(tr, MAIN_TID, start + (int64_t)(2 * DEEP - i) * 1000);
    t = start + (int64_t)2 * DEEP * 1000 + 1000;
    for (int k = 0; k < 2; k++) { /* work: 1000 then 3000, each with 100 ns of its own */
        int64_t span = k ? 3000 : 1000;
        begin(tr, WORKER_TID, t, SL_WORK);
        begin(tr, WORKER_TID, t + 50, SL_LOCK);
        end(tr, WORKER_TID, t + span - 50);
        end(tr, WORKER_TID, t + span);
        t += span + 10;
    }
    tct_trace_finish(tr);

    struct tct_export_options o = {0};
    char *csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(strstr(csv, "nan") == NULL);
    CHECK(strstr(csv, "\nmain,app.c,10,6200000002,") != NULL);
    CHECK(strstr(csv, ",2,3100000001,3100000000,3100000002,1.414214\n") != NULL);
    /* the deep zones, worked out exactly: sum((x - mean_ns)^2) / (n - 1) */
    long double total = 0, ss = 0;
    for (int i = 0; i < DEEP; i++)
        total += 2000.0L * (DEEP - i);
    long double avg = floorl(total / DEEP);
    for (int i = 0; i < DEEP; i++) {
        long double d = 2000.0L * (DEEP - i) - avg;
        ss += d * d;
    }
    double expected = (double)sqrtl(ss / (DEEP - 1));
    double got = csv_std(csv, "leaf");
    CHECK(fabs(got - expected) <= expected * 1e-9);
    CHECK(fabs(csv_std(csv, "work") - 1414.213562) < 1e-6);
    free(csv);

    o.self_time = 1;
    csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(strstr(csv, "nan") == NULL);
    CHECK(strstr(csv, "\nwork,/src/work.c,20,200,") != NULL);
    CHECK(csv_std(csv, "work") == 0); /* both self times are 100 */
    CHECK(csv_std(csv, "leaf") == 0); /* every deep zone has 2 us of its own */
    free(csv);
    tct_trace_free(tr);
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
    "assert [e['name'] for e in F] == ['Frame'] * 3 + ['Render frame'], F\n"
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
    struct tct_trace *tr = build_trace();
    struct tct_export_options o = {0};
    char *json = export_to_string(tct_export_chrome, tr, &o);
    CHECK(strncmp(json, "{\"traceEvents\":[", 16) == 0);
    /* every nanosecond survives tracy-import-chrome's uint64(ts * 1000.) */
    CHECK(strstr(json, "\"ts\":1.00001,\"dur\":9.00001,") != NULL);
    if (have_python()) {
        char dir[] = "/tmp/tracyc_test_export_XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        char json_path[128], py_path[128], cmd[512];
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
    tct_trace_free(tr);
}

static void test_summary(void)
{
    struct tct_trace *tr = build_trace();
    struct tct_export_options o = {.incomplete = "client vanished"};
    char *text = export_to_string(tct_export_summary, tr, &o);
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
    tct_trace_free(tr);

    /* a complete capture says nothing about drops or incompleteness */
    tr = tct_trace_new();
    begin(tr, MAIN_TID, 0, SL_MAIN);
    end(tr, MAIN_TID, 100);
    tct_trace_finish(tr);
    o.incomplete = NULL;
    text = export_to_string(tct_export_summary, tr, &o);
    CHECK(strstr(text, "!!") == NULL);
    free(text);
    tct_trace_free(tr);

    /* warnings and errors are shown with their first line; plain messages only counted */
    tr = tct_trace_new();
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
    tct_trace_finish(tr);
    text = export_to_string(tct_export_summary, tr, &o);
    CHECK(strstr(text, "Messages: 14 (1 warning, 12 error)\n"
                       "  warning tracer: the program was stopped by SIGTERM\n"
                       "  error   bad\n") != NULL);
    CHECK(strstr(text, "just info") == NULL && strstr(text, "second line") == NULL);
    CHECK(strstr(text, "  ... and 3 more\n") != NULL);
    free(text);
    tct_trace_free(tr);

    /* a long warning is cut to stay within 100 columns */
    tr = tct_trace_new();
    char longtext[300];
    memset(longtext, 'w', sizeof longtext);
    ev(tr, (struct tcd_event){.kind = TCD_MESSAGE,
                              .thread = MAIN_TID,
                              .time = 5,
                              .text = longtext,
                              .text_len = sizeof longtext,
                              .severity = 3});
    tct_trace_finish(tr);
    text = export_to_string(tct_export_summary, tr, &o);
    const char *row = strstr(text, "  warning www");
    CHECK(row != NULL && strchr(row, '\n') - row == 100 && strstr(row, "w...\n") != NULL);
    free(text);
    tct_trace_free(tr);
}

/* Many zones across chunk boundaries, deep recursion, and the hash map under churn. */
static void test_scale(void)
{
    struct tct_trace *tr = tct_trace_new();
    enum { DEPTH = 300, ROUNDS = 40 };
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
    CHECK_EQ_INT(tr->zones, DEPTH * ROUNDS);
    CHECK_EQ_INT(tr->ignored_events, 1);
    CHECK_EQ_INT(tr->pools[0].live_bytes, 10000);
    CHECK_EQ_INT(tr->pools[0].live.count, 10000);
    const struct tct_thread *m = tr->threads[0];
    CHECK_EQ_INT(m->max_depth, DEPTH - 1);
    int64_t *self = tct_thread_self_times(m);
    int self_ok = 1;
    for (size_t i = 0; i < m->zones.count; i++)
        self_ok &= self[i] == (i % DEPTH == DEPTH - 1 ? 1 : 2);
    CHECK(self_ok);
    free(self);
    struct tct_zone_stats st;
    CHECK_EQ_INT(tct_zone_stats_compute(&st, tr, TCT_STATS_UPSTREAM), 0);
    CHECK_EQ_INT(st.count, 1);
    CHECK_EQ_INT(st.entries[0].count, DEPTH * ROUNDS);
    CHECK_EQ_INT(st.entries[0].self_total, (2 * DEPTH - 1) * ROUNDS);
    tct_zone_stats_free(&st);
    tct_trace_free(tr);
}

/* A recursion deeper than 16 bits: every zone is recorded, with its depth and self time. */
static void test_deep_nesting(void)
{
    enum { DEEP = 70000 };
    struct tct_trace *tr = tct_trace_new();
    for (int i = 0; i < DEEP; i++)
        begin(tr, MAIN_TID, i, SL_LEAF);
    for (int i = DEEP; i-- > 0;)
        end(tr, MAIN_TID, 2 * DEEP - i);
    tct_trace_finish(tr);
    CHECK_EQ_INT(tr->zones, DEEP);
    CHECK_EQ_INT(tr->ignored_events, 0);
    const struct tct_thread *m = tr->threads[0];
    CHECK_EQ_INT(m->zones.count, DEEP);
    CHECK_EQ_INT(m->max_depth, DEEP - 1);
    CHECK_EQ_INT(tct_thread_zone(m, DEEP - 1)->depth, DEEP - 1);
    int64_t *self = tct_thread_self_times(m);
    int self_ok = self != NULL;
    for (size_t i = 0; self && i < DEEP; i++)
        self_ok &= self[i] == 2;
    CHECK(self_ok);
    free(self);
    struct tct_export_options o = {0};
    char *csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(strstr(csv, ",70000,70001,2,140000,") != NULL); /* counts, mean, min, max */
    free(csv);
    tct_trace_free(tr);
}

/* Hostile times: the model pulls them to within 2^53 of the origin, so one span (2^54)
 * fits, but 512 of them overflow a sum. Zone totals, self times, busy times, lock waits,
 * frame and GPU times and allocated bytes saturate instead (UBSan aborts on the overflow
 * in the sanitizer build; wrapped sums came out negative in the others). */
static void test_saturating_sums(void)
{
    enum { N = 512 };
    const int64_t lo = -((int64_t)1 << 60), hi = (int64_t)1 << 60; /* clamped to -2^53, 2^53 */
    struct tct_trace *tr = tct_trace_new();
    for (int i = 0; i < N; i++) /* nested: work's total is N spans */
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
    tct_trace_finish(tr);

    struct tct_zone_stats st;
    CHECK_EQ_INT(tct_zone_stats_compute(&st, tr, TCT_STATS_ALL), 0);
    const uint64_t *work = tcu_map_get(&st.by_srcloc, SL_WORK), *leaf = tcu_map_get(&st.by_srcloc, SL_LEAF);
    const uint64_t *outer = tcu_map_get(&st.by_srcloc, SL_MAIN);
    CHECK(work && st.entries[*work].total == INT64_MAX);
    CHECK(leaf && st.entries[*leaf].total == INT64_MAX && st.entries[*leaf].self_total == INT64_MAX);
    /* its span less its children's (saturated) total */
    CHECK(outer && st.entries[*outer].self_total == ((int64_t)1 << 54) - INT64_MAX);
    tct_zone_stats_free(&st);
    CHECK(tr->lock_count == 1 && tr->locks[0].wait_total == INT64_MAX);
    CHECK(tr->pool_count == 1 && tr->pools[0].total_bytes == UINT64_MAX);

    struct tct_export_options o = {0};
    char *csv = export_to_string(tct_export_csv, tr, &o);
    CHECK(strstr(csv, "work,/src/work.c,20,9223372036854775807,") != NULL);
    free(csv);
    char *text = export_to_string(tct_export_summary, tr, &o);
    /* the worker's busy time, the lock's wait, the frames' and the GPU's time */
    size_t saturated = 0;
    for (const char *p = text; (p = strstr(p, "9223372036.855 s")); p++)
        saturated++;
    CHECK(saturated >= 5);
    free(text);
    free(export_to_string(tct_export_chrome, tr, &o));
    tct_trace_free(tr);
}

static void test_export_file(void)
{
    CHECK_EQ_INT(tct_export_format_for("a/b.json"), TCT_FORMAT_CHROME);
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
    CHECK(strstr(why, "'.html'") != NULL && strstr(why, ".json") != NULL);

    /* a decoder that never saw a client: names are empty, the export still works */
    static const struct tcd_callbacks cb = {0};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, NULL, NULL);
    struct tct_trace *tr = tct_trace_new();
    begin(tr, MAIN_TID, 0, 0);
    end(tr, MAIN_TID, 100);
    char err[256] = "";
    CHECK_EQ_INT(tct_export_file(tr, dec, "/tmp/unused.csv", NULL, err, sizeof err), -1);
    CHECK(strstr(err, "finished") != NULL);
    tct_trace_finish(tr);
    char path[] = "/tmp/tracyc_test_export_XXXXXX.csv";
    int fd = mkstemps(path, 4);
    CHECK(fd >= 0);
    close(fd);
    CHECK_EQ_INT(tct_export_file(tr, dec, path, NULL, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR(line, "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns\n");
    CHECK(fgets(line, sizeof line, f) != NULL); /* one row, whatever the empty names */
    CHECK(fgets(line, sizeof line, f) == NULL);
    fclose(f);
    unlink(path);
    char refused[] = "/tmp/tracyc_test_export_XXXXXX.tracy";
    fd = mkstemps(refused, 6);
    CHECK(fd >= 0);
    close(fd);
    unlink(refused);
    CHECK_EQ_INT(tct_export_file(tr, dec, refused, NULL, err, sizeof err), -1);
    CHECK(strstr(err, "tracy-capture") != NULL && access(refused, F_OK) != 0); /* nothing written */
    CHECK_EQ_INT(tct_export_file(tr, dec, "/nonexistent-dir/x.json", NULL, err, sizeof err), -1);
    CHECK(strstr(err, "/nonexistent-dir/x.json") != NULL);
    tct_trace_free(tr);
    tcd_decoder_free(dec);
}

int main(void)
{
    test_model();
    test_csv();
    test_csv_std();
    test_chrome();
    test_summary();
    test_scale();
    test_deep_nesting();
    test_saturating_sums();
    test_export_file();
    return tt_finish("test_export");
}
