/* test_export_callstacks.c - what the exporters make of callstacks, samples and context
 * switches: a trace fed with events, names (callstacks, frames, symbols) from small fake
 * tables, and the exact output of the folded, summary, Chrome JSON and SVG formats. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "test_util.h"
#include "trace/cpu_time.h"
#include "trace/export.h"
#include "trace/sched_log.h"
#include "trace/trace.h"

/* ---- fake tables ------------------------------------------------------------------------------ */

/* leaf_inl is inlined into leaf: its symbol, as clients report it, is leaf's. */
static const struct tcd_subframe sub_leaf[] = {{"leaf_inl", "/src/inline.h", 10, 0x1000},
                                               {"leaf", "/src/a.c", 12, 0x1000}};
static const struct tcd_subframe sub_mid[] = {{"mid + 123", "[unknown]", 0, 0}};
static const struct tcd_subframe sub_main[] = {{"main", "/src/main.c", 5, 0x3000}};
static const struct tcd_subframe sub_semi[] = {{"semi;colon", "b.c", 1, 0}};
static const struct tcd_subframe sub_rec[] = {{"rec", "r.c", 3, 0x6000}};
/* A C++ name longer than any column, in a file whose name and line must not be cut. */
static const struct tcd_subframe sub_long[] = {
    {"nlohmann::json_abi_v3_11_2::basic_json<std::map, std::vector, std::__cxx11::basic_string<char>, bool, long, "
     "unsigned long, double>::parse(char const*)",
     "/usr/include/zstd_compress_internal_and_more.h", 1234, 0}};

static const struct tcd_frame frames[] = {
    {0x1001, "/bin/prog", sub_leaf, 2, TCD_FRAME_RESOLVED}, {0x2001, "/lib/libx.so", sub_mid, 1, TCD_FRAME_RESOLVED},
    {0x3001, "/bin/prog", sub_main, 1, TCD_FRAME_RESOLVED}, {0x4001, "", NULL, 0, TCD_FRAME_UNRESOLVED},
    {0x5001, "/bin/prog", sub_semi, 1, TCD_FRAME_RESOLVED}, {0x6001, "/bin/prog", sub_rec, 1, TCD_FRAME_RESOLVED},
    {0x7001, "/bin/prog", sub_long, 1, TCD_FRAME_RESOLVED},
};

/* Callstacks 1..5, leaf first. */
static const uint32_t cs1[] = {0, 1, 2}, cs2[] = {3, 2}, cs3[] = {4, 2}, cs4[] = {5, 5, 2}, cs5[] = {6, 2};
static const uint32_t *const stacks[] = {NULL, cs1, cs2, cs3, cs4, cs5};
static const uint32_t depths[] = {0, 3, 2, 2, 3, 2};

static const uint32_t *fake_callstack(const void *ctx, uint32_t id, uint32_t *depth)
{
    (void)ctx;
    *depth = id >= 1 && id <= 5 ? depths[id] : 0;
    return id >= 1 && id <= 5 ? stacks[id] : NULL;
}
static const struct tcd_frame *fake_frame(const void *ctx, uint32_t index)
{
    (void)ctx;
    return index < sizeof frames / sizeof frames[0] ? &frames[index] : NULL;
}
static int fake_symbol(const void *ctx, uint64_t symbol, const char **file, uint32_t *line)
{
    (void)ctx;
    if (symbol != 0x1000 && symbol != 0x3000)
        return 0;
    *file = symbol == 0x1000 ? "/src/a.c" : "/src/main.c";
    *line = symbol == 0x1000 ? 11 : 4;
    return 1;
}
static const char *fake_thread(const void *ctx, uint32_t thread)
{
    (void)ctx;
    return thread == 1 ? "main thread" : thread == 2 ? "worker;x" : "";
}
static const char *fake_system_thread(const void *ctx, uint32_t thread)
{
    (void)ctx;
    return thread == 77 ? "other proc" : "";
}
static uint64_t fake_pid(const void *ctx, uint32_t thread)
{
    (void)ctx;
    return thread == 77 ? 900 : 0;
}
static const struct tcd_srcloc zone_loc = {"work", "work_fn", "/src/a.c", 20, 0};
static const struct tcd_srcloc *fake_srcloc(const void *ctx, uint32_t index)
{
    (void)ctx;
    (void)index;
    return &zone_loc;
}
static const char *empty_name(const void *ctx, uint32_t id)
{
    (void)ctx;
    (void)id;
    return "";
}

static struct tcd_welcome welcome;

static struct tct_names names(void)
{
    welcome.timer_mul = 1.0;
    welcome.pid = 4242;
    strcpy(welcome.program_name, "prog");
    return (struct tct_names){.srcloc = fake_srcloc,
                              .thread = fake_thread,
                              .plot = empty_name,
                              .frame = empty_name,
                              .pool = empty_name,
                              .string = empty_name,
                              .welcome = &welcome,
                              .callstack = fake_callstack,
                              .callstack_frame = fake_frame,
                              .symbol = fake_symbol,
                              .system_thread = fake_system_thread,
                              .thread_pid = fake_pid};
}

/* ---- the trace ------------------------------------------------------------------------------------ */

static void sample(struct tct_trace *tr, uint32_t thread, int64_t time, uint32_t cs, int switched_out)
{
    tct_trace_on_event(tr, 0,
                       &(struct tcd_event){.kind = TCD_SAMPLE,
                                           .thread = thread,
                                           .time = time,
                                           .callstack = cs,
                                           .flags = switched_out ? TCD_SAMPLE_SWITCH : 0});
}

static void cswitch(struct tct_trace *tr, int64_t time, uint32_t old_thread, uint32_t new_thread, uint8_t cpu,
                    uint8_t state)
{
    tct_trace_on_event(tr, 0,
                       &(struct tcd_event){
                           .kind = TCD_CONTEXT_SWITCH,
                           .time = time,
                           .id = old_thread,
                           .thread = new_thread,
                           .query = cpu,
                           .format = state,
                       });
}

static void make_trace(struct tct_trace *tr)
{
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_ZONE_BEGIN, .thread = 1, .time = 500, .callstack = 1});
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_ZONE_END, .thread = 1, .time = 5500});
    sample(tr, 1, 1000, 1, 0);
    sample(tr, 1, 2000, 1, 0);
    sample(tr, 1, 3000, 1, 0);
    sample(tr, 1, 0, 1, 0); /* no time: counted, not placed */
    sample(tr, 1, 4000, 2, 0);
    sample(tr, 1, 4500, 4, 0);
    sample(tr, 1, 5000, 4, 0);
    sample(tr, 1, 5000, 1, 1); /* where it was switched out: not a CPU sample */
    sample(tr, 2, 1500, 3, 0);
    sample(tr, 2, 2500, 3, 0);
    /* Thread 1 runs on CPU 0, moves to CPU 1 (switched in there before it is switched out of
     * CPU 0: the clocks of two CPUs differ), sleeps at 5000, runs again at 6000. Arrival
     * order is not time order. */
    cswitch(tr, 1500, 0, 2, 1, 103);
    cswitch(tr, 1000, 0, 1, 0, 103);
    cswitch(tr, 3000, 2, 1, 1, 104);
    cswitch(tr, 3100, 1, 77, 0, 103);
    cswitch(tr, 5000, 1, 0, 1, 104);
    cswitch(tr, 6000, 0, 1, 1, 103);
    cswitch(tr, 0, 1, 2, 0, 103); /* no time: not kept */
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_THREAD_WAKEUP, .time = 5900, .thread = 1, .query = 0});
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_SAMPLES_LOST, .value = 5});
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_SAMPLES_LOST, .value = 3}); /* running total: max */
}

static void nothing(struct tct_trace *tr)
{
    (void)tr;
}

static struct tct_trace *new_trace(void)
{
    struct tct_trace *tr = tct_trace_new();
    struct tct_names n = names();
    tct_trace_add_source(tr, &n, 0);
    return tr;
}

/* Plays a scenario into a trace with one output of `format` and returns what it wrote. */
static char *export_string(void (*scenario)(struct tct_trace *), enum tct_format format)
{
    struct tct_trace *tr = new_trace();
    struct tct_output *out = tct_output_new(tr, format, NULL);
    scenario(tr);
    tct_trace_finish(tr);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tt_check(out && tct_output_write_to(out, f) == 0, "export format %d", format);
    fclose(f);
    tct_output_free(out);
    tct_trace_free(tr);
    return text;
}

/* ---- the outputs -------------------------------------------------------------------------------------- */

static void folded(void)
{
    char *text = export_string(make_trace, TCT_FORMAT_FOLDED);
    /* In the order the paths were made: threads in order, their callstacks by id. */
    tt_check(text && !strcmp(text, "main thread;main;mid;leaf;leaf_inl 4\nmain thread;main;[0x4001] 1\n"
                                   "main thread;main;rec;rec 2\nworker_x;main;semi_colon 2\n"),
             "folded stacks (';' in names replaced, \" + 123\" dropped, unresolved by address)");
    free(text);
}

static void summary(void)
{
    char *text = export_string(make_trace, TCT_FORMAT_SUMMARY);
    tt_check(strstr(text, "Sampling: 9 CPU samples on 2 threads, 5 lost\n") != NULL, "sampling line");
    tt_check(strstr(text, "!! 5 samples were LOST") != NULL, "lost samples warned");
    tt_check(strstr(text, "!! 1 context switches came without a time") != NULL, "untimed switch warned");
    tt_check(strstr(text, "Top 4 functions by self samples (of 7 functions)\n") != NULL, "functions with self samples");
    tt_check(strstr(text, "         4   44.4%          4   44.4%  leaf_inl   inline.h:10\n") != NULL,
             "leaf_inl: 4 self samples, inlined: its own file and line, not its caller's definition");
    tt_check(strstr(text, "         0    0.0%          4   44.4%  leaf       a.c:11\n") != NULL,
             "leaf: defined at a.c:11 (its symbol)");
    tt_check(strstr(text, "         2   22.2%          2   22.2%  rec        r.c:3\n") != NULL,
             "recursion counts once in the total");
    tt_check(strstr(text, "         0    0.0%          9  100.0%  main       main.c:4\n") != NULL,
             "main: every sample, no self");
    tt_check(strstr(text, "         0    0.0%          4   44.4%  mid        [libx.so]\n") != NULL,
             "\" + 123\" is not part of the name; an unknown file shows the image");
    tt_check(strstr(text, "         1   11.1%          1   11.1%  [0x4001]   -\n") != NULL,
             "an unresolved frame by address");
    /* CPU: thread 1 on from 1000 to 5000 (moving CPUs at 3000), off to 6000, on to the end. */
    tt_check(strstr(text, "  main thread                                     1            7      4.00 us      1.00 us "
                          "  80.0%        3\n") != NULL,
             "thread 1: 7 samples, 4 us on-CPU, 1 us off-CPU, 3 times switched in");
    free(text);

    struct tct_trace *tr = new_trace();
    struct tct_sched_log *log = tct_sched_log_of(tr);
    make_trace(tr);
    tct_trace_finish(tr);
    size_t n;
    struct tct_cpu_time *t = tct_cpu_times(tr, log, tct_trace_source(tr, 0)->last_time, &n);
    tt_check(t && n == 2 && t[0].thread->id == 1 && t[0].on_cpu == 4000 && t[0].off_cpu == 1000 && t[0].overlaps == 1 &&
                 t[1].thread->id == 2 && t[1].on_cpu == 1500 && t[1].off_cpu == 3000,
             "CPU times from switches out of order, with a migration and a late switch-out");
    free(t);
    tct_trace_free(tr);
}

static void chrome(void)
{
    char *text = export_string(make_trace, TCT_FORMAT_CHROME);
    size_t where = 0;
    const char *bad = json_check(text, strlen(text), &where);
    tt_check(!bad, "valid JSON (%s at %zu)", bad ? bad : "", where);
    tt_check(strstr(text, ",\"sf\":4,\"loc\":") != NULL, "the zone's innermost frame as \"sf\"");
    tt_check(strstr(text,
                    "\"stackFrames\":{\n\"1\":{\"name\":\"main main.c:5\",\"category\":\"prog\"},\n"
                    "\"2\":{\"name\":\"mid\",\"category\":\"libx.so\",\"parent\":\"1\"},\n"
                    "\"3\":{\"name\":\"leaf a.c:12\",\"category\":\"prog\",\"parent\":\"2\"},\n"
                    "\"4\":{\"name\":\"leaf_inl inline.h:10\",\"category\":\"prog\",\"parent\":\"3\"}\n}") != NULL,
             "stackFrames with locations and images");
    tt_check(strstr(text, "{\"ph\":\"P\",\"name\":\"Profile\",\"pid\":4242,\"id\":\"0x1\",\"tid\":1,\"ts\":1.00001,"
                          "\"args\":{\"data\":{\"startTime\":1}}}") != NULL,
             "a Profile per thread, from its first sample");
    tt_check(strstr(text, "{\"id\":1,\"callFrame\":{\"functionName\":\"main\",\"url\":\"/src/main.c\"}},"
                          "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"mid\",\"url\":\"\"}}") != NULL,
             "profile nodes: parents first, url the source file");
    tt_check(strstr(text, "\"samples\":[4,4,4,5,7,7]},\"timeDeltas\":[0,1,1,1,1,0]") != NULL,
             "samples as leaf nodes with integer microsecond deltas, untimed and switch samples left out");
    tt_check(strstr(text, "\"systemTraceEvents\":\"# tracer: nop\\n"
                          "swapper/0-0 (0) [000] .... 0.000001000: sched_switch: prev_comm=swapper/0 prev_pid=0 "
                          "prev_prio=120 prev_state=R ==> next_comm=main_thread next_pid=1 next_prio=120\\n") != NULL,
             "switches as ftrace lines in time order");
    tt_check(strstr(text, "main_thread-1 (4242) [000] .... 0.000003100: sched_switch: prev_comm=main_thread prev_pid=1 "
                          "prev_prio=120 prev_state=R+ ==> next_comm=other_proc next_pid=77 next_prio=120\\n") != NULL,
             "a thread of another process by its system name");
    tt_check(strstr(text, "<...>-0 (0) [000] .... 0.000005900: sched_waking: comm=main_thread pid=1 prio=120 "
                          "target_cpu=000\\n") == NULL &&
                 strstr(text, "other_proc-77 (900) [000] .... 0.000005900: sched_waking: comm=main_thread pid=1 "
                              "prio=120 target_cpu=000\\n") != NULL,
             "a wakeup names the thread running on its CPU, with its process from TidToPid");
    tt_check(strstr(text, "\"lost_samples\":5") != NULL, "lost samples in otherData");
    free(text);
}

static void svg(void)
{
    char *text = export_string(make_trace, TCT_FORMAT_SVG);
    tt_check(strstr(text, "prog: 9 CPU samples</text>") && strstr(text, "<title>all (9 samples, 100.00%)</title>") &&
                 strstr(text, "<title>main (7 samples, 77.78%)</title>") &&
                 strstr(text, "<title>worker;x (2 samples, 22.22%)</title>"),
             "flame graph boxes with counts and shares");
    tt_check(!strstr(text, "<script"), "no script");
    free(text);

    text = export_string(nothing, TCT_FORMAT_SVG);
    tt_check(strstr(text, "no CPU samples were recorded") != NULL, "an empty flame graph says so");
    free(text);
    text = export_string(nothing, TCT_FORMAT_FOLDED);
    tt_check(text && strncmp(text, "# tracyc: no CPU samples (the client sent none", 46) == 0 &&
                 strchr(text, '\n') == text + strlen(text) - 1 && strstr(text, ")\n"),
             "no samples: one comment line that says why, which flame graph tools skip: %s", text);
    free(text);
}

/* A function whose name is longer than any column, in a file with a long name. */
static void long_names(struct tct_trace *tr)
{
    sample(tr, 1, 1000, 5, 0);
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_ZONE_BEGIN, .thread = 1, .time = 500, .srcloc = 1});
    tct_trace_on_event(tr, 0, &(struct tcd_event){.kind = TCD_ZONE_END, .thread = 1, .time = 5500});
}

static const struct tcd_srcloc long_zone = {"a zone whose name is longer than its column used to be", "fn",
                                            "/usr/include/zstd_compress_internal_and_more.h", 4321, 0};

static const struct tcd_srcloc *long_srcloc(const void *ctx, uint32_t index)
{
    (void)ctx;
    return index == 1 ? &long_zone : &zone_loc;
}

/* Nothing is cut without a mark, and a location never loses its line (issue 22, item 7). */
static void summary_long_names(void)
{
    struct tct_trace *tr = tct_trace_new();
    struct tct_names n = names();
    n.srcloc = long_srcloc;
    tct_trace_add_source(tr, &n, 0);
    struct tct_output *out = tct_output_new(tr, TCT_FORMAT_SUMMARY, NULL);
    long_names(tr);
    tct_trace_finish(tr);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tct_output_write_to(out, f);
    fclose(f);
    tt_check(strstr(text, "  a zone whose name is longer than its column used to be  "
                          "zstd_compress_internal_and_more.h:4321\n") != NULL,
             "a zone's name and location in full");
    tt_check(strstr(text, "  nlohmann::json_abi_v3_11_2::basic_json<std::map, std::vec... "
                          "zstd_compress_internal_and_more.h:1234\n") != NULL,
             "a function name past 60 columns cut with a mark, its location whole");
    free(text);
    tct_output_free(out);
    tct_trace_free(tr);
}

/* A long profile is written in chunks of 1000 samples, each carrying only the nodes it
 * introduces. */
static void long_profile(struct tct_trace *tr)
{
    for (int i = 0; i < 2500; i++)
        sample(tr, 1, 1000 + 1000 * (int64_t)i, i < 1500 ? 1 : 4, 0);
}

static void chunked_profile(void)
{
    char *text = export_string(long_profile, TCT_FORMAT_CHROME);
    size_t chunks = 0, nodes = 0, where;
    for (const char *p = text; (p = strstr(p, "\"name\":\"ProfileChunk\"")); p++)
        chunks++;
    for (const char *p = text; (p = strstr(p, "\"callFrame\":")); p++)
        nodes++;
    const char *third = strstr(strstr(strstr(text, "ProfileChunk") + 1, "ProfileChunk") + 1, "ProfileChunk");
    tt_check(!json_check(text, strlen(text), &where) && chunks == 3 && nodes == 6,
             "2,500 samples in 3 chunks, the 6 nodes written once each (%zu chunks, %zu nodes)", chunks, nodes);
    tt_check(third && strstr(third, "\"nodes\":[],\"samples\":[6,6") != NULL,
             "the third chunk brings no node (its samples' nodes came with the second)");
    free(text);
}

static void formats_by_name(void)
{
    tt_check(tct_export_format_for("x.folded") == TCT_FORMAT_FOLDED &&
                 tct_export_format_for("X.SVG") == TCT_FORMAT_SVG &&
                 tct_export_format_for("x.txt") == TCT_FORMAT_SUMMARY,
             ".folded and .svg pick their formats");
}

/* The zone record keeps its callstack. */
static uint32_t zone_callstack;

static void see_zone(struct tct_sink *sink, const struct tct_record *rec)
{
    (void)sink;
    zone_callstack = rec->u.zone.callstack;
}

static void sink_free(struct tct_sink *sink)
{
    (void)sink;
}

static void counts(void)
{
    static const struct tct_sink_ops ops = {"zone callstack", TCT_REC_BIT(TCT_REC_ZONE), see_zone, sink_free, NULL};
    static struct tct_sink sink = {&ops};
    struct tct_trace *tr = new_trace();
    tct_trace_add_sink(tr, &sink);
    make_trace(tr);
    tct_trace_finish(tr);
    const struct tct_source *src = tct_trace_source(tr, 0);
    tt_check(src->samples == 9 && src->switches == 6 && src->untimed_switches == 1 && src->samples_lost == 5,
             "trace: 9 CPU samples, 6 timed switches, 1 untimed, 5 lost samples");
    tt_check(zone_callstack == 1, "the zone keeps its callstack");
    tct_trace_free(tr);
}

int main(void)
{
    counts();
    folded();
    summary();
    chrome();
    svg();
    chunked_profile();
    summary_long_names();
    formats_by_name();
    return tt_finish("test_export_callstacks");
}
