/* tracyc's clock extension (docs/protocol.md §28): a tracyc client's clocks, read together,
 * for a server that asked for them.
 *
 *   - through the decoder (a client that dials out to tests/support/test_collector.c): a
 *     reading right after the extension was taken and one just before Terminate, and the
 *     answer to a probe, echoing its id. The collector runs in the client's own process,
 *     so every check is an order of things that happened, never a duration: the probe's
 *     reading lies between the probe's sending and its arrival on CLOCK_MONOTONIC_RAW,
 *     and between the zones recorded before and after it on the event clock;
 *   - TRACYC_TEST_CLOCK_SKEW_NS: the same readings that far off, with a host id that is
 *     not this host's;
 *   - on the wire (a raw server): nothing of it to a server that did not ask (upstream's),
 *     nor to one that took only renames; to one that took it, the item's layout, and the
 *     probe's answer before its AckServerQueryNoop.
 *
 * Each case runs in a child process: a profiler's shutdown is final.
 */
#include "capture/clock.h"
#include "raw_server.h"
#include "test_collector.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/bytes.h"
#include "util/host_id.h"
#include "wire/protocol.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct ___tracy_source_location_data before_loc = {"before", "main", "clock.c", 1, 0};
static const struct ___tracy_source_location_data after_loc = {"after", "main", "clock.c", 2, 0};

static void zone(const struct ___tracy_source_location_data *loc)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin(loc, 1);
    ___tracy_emit_zone_end(z);
}

static void message(const char *text)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, strlen(text), text);
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int finish(const char *name)
{
    int rc = tt_finish(name);
    fflush(stdout); /* the child ends with _exit */
    return rc;
}

/* The time of the first (last: `last`) event of this kind of the zone named `name`'s
 * source location, or -1. */
static int64_t zone_time(const struct tcol_client *cl, enum tcd_event_kind kind, const char *name, int last)
{
    int64_t t = -1;
    uint32_t thread = 0;
    for (size_t i = 0; i < cl->len; i++) {
        const struct tcd_event *ev = &cl->events[i].ev;
        if (ev->kind == TCD_ZONE_BEGIN && strcmp(tcd_srcloc(cl->dec, ev->srcloc)->name, name) == 0) {
            thread = ev->thread;
            if (kind == TCD_ZONE_BEGIN && (t < 0 || last))
                t = ev->time;
        } else if (ev->kind == TCD_ZONE_END && thread && ev->thread == thread) {
            if (kind == TCD_ZONE_END && (t < 0 || last))
                t = ev->time;
            thread = 0;
        }
    }
    return t;
}

/* ---- through the decoder ------------------------------------------------------------------- */

static int through_the_decoder(void *arg)
{
    int64_t skew = *(int64_t *)arg;
    const char *label = skew ? "skewed" : "as they are";
    struct tcol *col = tcol_start(0);
    char value[32];
    snprintf(value, sizeof value, "127.0.0.1:%u", tcol_port(col));
    setenv("TRACYC_CONNECT", value, 1);
    if (skew) {
        snprintf(value, sizeof value, "%lld", (long long)skew);
        setenv("TRACYC_TEST_CLOCK_SKEW_NS", value, 1);
    }
    zone(&before_loc);
    message("ready");
    size_t i = tcol_wait_text(col, TCD_MESSAGE, "ready");
    size_t first = tcol_wait_id(col, i, TCD_CLOCK_SYNC, 0); /* sent right after the extension was taken */
    struct tcol_client *cl = tcol_client(col, i);
    uint64_t host = tcu_host_id();
    tt_check(host != 0, "this host has an id");

    int64_t sent, real_before = clock_ns(CLOCK_REALTIME);
    tt_check(tcol_probe_clock(col, i, 7, &sent) == 0, "%s: a probe goes to a client that took the extension", label);
    size_t k = tcol_wait_id(col, i, TCD_CLOCK_SYNC, 7);
    int64_t real_after = clock_ns(CLOCK_REALTIME);
    zone(&after_loc);
    ___tracy_shutdown_profiler();
    tcol_wait_ended(col, 1);
    tt_check(cl->end == TCOL_COMPLETE, "%s: complete (%s)", label, cl->err);

    const struct tcd_event *r0 = &cl->events[first].ev, *probe = &cl->events[k].ev;
    tt_check(r0->id == 0 && (int64_t)r0->value - skew <= cl->arrived[first], "%s: the first reading, unasked", label);
    tt_check(probe->id == 7, "%s: the probe's answer echoes its id", label);
    tt_check(sent + skew <= (int64_t)probe->value && (int64_t)probe->value <= cl->arrived[k] + skew,
             "%s: its CLOCK_MONOTONIC_RAW lies between the probe's sending and its arrival (%lld <= %lld <= %lld)",
             label, (long long)(sent + skew), (long long)probe->value, (long long)(cl->arrived[k] + skew));
    tt_check(real_before + skew <= probe->time2 && probe->time2 <= real_after + skew,
             "%s: its CLOCK_REALTIME too (%lld <= %lld <= %lld)", label, (long long)(real_before + skew),
             (long long)probe->time2, (long long)(real_after + skew));
    tt_check(r0->time < probe->time && r0->value < probe->value, "%s: the readings follow each other", label);
    int64_t before_end = zone_time(cl, TCD_ZONE_END, "before", 1),
            after_begin = zone_time(cl, TCD_ZONE_BEGIN, "after", 0);
    tt_check(before_end >= 0 && before_end <= probe->time && probe->time <= after_begin,
             "%s: on the event clock, between the zones before and after it (%lld <= %lld <= %lld)", label,
             (long long)before_end, (long long)probe->time, (long long)after_begin);
    for (size_t n = 0; n < tcol_count(cl, TCD_CLOCK_SYNC); n++) {
        const struct tcd_event *r = tcol_nth(cl, TCD_CLOCK_SYNC, n);
        tt_check(skew ? r->address != host : r->address == host, "%s: reading %zu: the host id is %s", label, n,
                 skew ? "not this host's" : "this host's");
    }
    const struct tcd_event *last = tcol_nth(cl, TCD_CLOCK_SYNC, tcol_count(cl, TCD_CLOCK_SYNC) - 1);
    int64_t after_end = zone_time(cl, TCD_ZONE_END, "after", 1);
    tt_check(last != probe && last->id == 0 && last->time >= after_end,
             "%s: a last reading after the last event, before Terminate", label);
    tcol_free(col);
    return finish(skew ? "test_clock_ext (skewed)" : "test_clock_ext (decoder)");
}

/* ---- on the wire ------------------------------------------------------------------------------- */

enum ask { ASK_NOTHING, ASK_RENAMES, ASK_CLOCK };

static struct tr_server srv;

static void *shutdown_profiler(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler();
    return NULL;
}

/* Reads items from *pos until one of `type` (1, *it set) or the end of the log (0). */
static int next_of(size_t *pos, uint8_t type, struct tr_item *it)
{
    while (tr_next(&srv, pos, it))
        if (it->type == type)
            return 1;
    return 0;
}

static int on_the_wire(void *arg)
{
    enum ask ask = *(enum ask *)arg;
    static const char *labels[] = {"nothing asked", "renames only", "clock asked"};
    const char *label = labels[ask];
    uint16_t port = tt_use_free_port();
    zone(&before_loc);
    if (tr_connect(&srv, port, 30) != 0) {
        tt_check(0, "connect");
        return finish("test_clock_ext (wire)");
    }
    int64_t asked = clock_ns(CLOCK_MONOTONIC_RAW);
    if (ask != ASK_NOTHING)
        tr_query(&srv, TCW_QUERY_TRACYC_EXTENSIONS,
                 ask == ASK_CLOCK ? TCW_EXTENSION_THREAD_RENAMES | TCW_EXTENSION_CLOCK : TCW_EXTENSION_THREAD_RENAMES,
                 0);
    tr_query(&srv, TCW_QUERY_TRACYC_CLOCK_PROBE, 42, 0);
    /* Two answers come: the extension's and the probe's (an AckServerQueryNoop each). */
    size_t pos = 0, acks = 0;
    struct tr_item it;
    while (acks < (ask != ASK_NOTHING ? 2u : 1u) && tr_pump(&srv, 100) >= 0)
        while (next_of(&pos, TCW_AckServerQueryNoop, &it))
            acks++;
    int64_t answered = clock_ns(CLOCK_MONOTONIC_RAW);
    pthread_t stopper;
    pthread_create(&stopper, NULL, shutdown_profiler, NULL);
    size_t end = pos;
    for (int terminated = 0; !terminated && tr_pump(&srv, 100) >= 0;)
        while (!terminated && tr_next(&srv, &end, &it))
            terminated = it.type == TCW_Terminate;
    tr_finish(&srv, 30);
    pthread_join(stopper, NULL);

    /* Every item in order: the readings, and where the acknowledgements fall among them. */
    size_t all = 0, readings = 0;
    int order_ok = 1, fields_ok = 1, saw_probe = 0;
    acks = 0;
    while (tr_next(&srv, &all, &it)) {
        if (it.type == TCW_AckServerQueryNoop)
            acks++;
        if (it.type != TCW_TracycClock)
            continue;
        uint32_t probe = tcu_rd32(it.p + 33);
        int64_t raw = (int64_t)tcu_rd64(it.p + 9);
        fields_ok &= it.size == 37 && tcu_rd64(it.p + 25) == tcu_host_id() && raw >= asked;
        if (readings == 0) /* after the extension's answer, unasked */
            order_ok &= acks == 1 && probe == 0 && raw <= answered;
        if (probe == 42) { /* before the probe's answer */
            saw_probe = 1;
            order_ok &= acks == 1 && raw <= answered;
        }
        readings++;
    }
    if (ask == ASK_CLOCK) {
        tt_check(readings == 3 && saw_probe, "%s: three readings: the first, the probe's, the last (%zu)", label,
                 readings);
        tt_check(order_ok, "%s: the first after the extension's answer, the probe's before its own", label);
        tt_check(fields_ok, "%s: 37 bytes, this host's id, CLOCK_MONOTONIC_RAW from after the query", label);
    } else {
        tt_check(readings == 0, "%s: no TracycClock item (%zu), not even for a probe", label, readings);
        tt_check(acks == (ask != ASK_NOTHING ? 2u : 1u), "%s: every query answered (%zu)", label, acks);
    }
    tr_free(&srv);
    return finish("test_clock_ext (wire)");
}

int main(void)
{
    unsetenv("TRACY_NO_EXIT");
    unsetenv("TRACYC_OUTPUT");
    unsetenv("TRACYC_CONNECT");
    unsetenv("TRACYC_TEST_CLOCK_SKEW_NS");
    /* Every child first: a child forked after a check would inherit its count. */
    static int64_t skews[] = {0, 7000000000LL, -3000000000LL};
    static enum ask asks[] = {ASK_NOTHING, ASK_RENAMES, ASK_CLOCK};
    int status[6];
    for (int i = 0; i < 3; i++)
        status[i] = tf_wait(tf_fork(through_the_decoder, &skews[i]));
    for (int i = 0; i < 3; i++)
        status[3 + i] = tf_wait(tf_fork(on_the_wire, &asks[i]));
    for (int i = 0; i < 3; i++)
        tt_check(status[i] == 0, "through the decoder, skew %lld ns", (long long)skews[i]);
    for (int i = 0; i < 3; i++)
        tt_check(status[3 + i] == 0, "on the wire, case %d", i);
    return tt_finish("test_clock_ext");
}
