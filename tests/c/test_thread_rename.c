/* A thread renamed after a server asked for its name (docs/protocol.md §27).
 *
 * tracyc's decoder asks a tracyc client for renames (TracycExtensions query), so the
 * final name reaches the trace: checked through tracyc's capture session, decoder, trace
 * and Chrome output into a file, with protocol 82 and with 76. A server that did not ask
 * (upstream's, here a raw server) never gets a ThreadName it did not ask for: the first
 * name stays. Each case runs in a child process: a profiler's shutdown is final.
 */
#include "raw_server.h"
#include "test_capture.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "tracyc.h"
#include "util/bytes.h"
#include "wire/protocol.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"work", "work", "rename.c", 1, 0};

static void zone(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_end(z);
}

static uint32_t my_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* ---- through tracyc's decoder into a file ------------------------------------------------ */

static int through_the_decoder(void *arg)
{
    uint32_t protocol = *(uint32_t *)arg;
    uint16_t port = tt_use_free_port();
    ___tracy_set_thread_name("first name");
    zone(); /* the server sees the thread, and asks its name */
    struct tt_capture *cap = tt_capture_start_protocol(port, protocol);
    uint32_t tid = my_tid();
    tt_check(tt_wait_text(cap, TCD_THREAD_NAME, tid, "first name"),
             "protocol %u: the first name was asked for and given", protocol);
    ___tracy_set_thread_name("final name");
    zone();
    ___tracy_shutdown_profiler();
    tt_check(tt_capture_join(cap) == 0, "protocol %u: capture complete (%s)", protocol, cap->err);
    tt_check(strcmp(tcd_thread_name(cap->dec, tid), "final name") == 0,
             "protocol %u: the decoder has the final name (%s)", protocol, tcd_thread_name(cap->dec, tid));

    /* The trace and the Chrome output: the file names the thread by its final name. */
    struct tct_trace *trace = tct_trace_new();
    struct tct_names names;
    tct_names_from_decoder(&names, cap->dec);
    char path[PATH_MAX], err[256] = "";
    tt_temp_path(path, sizeof path, "tracyc-rename-XXXXXX.json");
    close(mkstemps(path, 5));
    struct tct_output *output = NULL;
    if (tct_trace_add_source(trace, &names, 0) == 0)
        output = tct_output_open(trace, path, NULL, err, sizeof err);
    for (size_t i = 0; output && i < cap->len; i++)
        tct_trace_on_event(trace, 0, &cap->events[i].ev);
    tct_trace_finish(trace);
    tt_check(output && tct_output_close(output, err, sizeof err) == 0, "export (%s)", err);
    char *json = tt_read_file(path);
    tt_check(json && strstr(json, "\"thread_name\"") && strstr(json, "\"final name\"") && !strstr(json, "first name"),
             "protocol %u: the trace file names the thread \"final name\" only", protocol);
    free(json);
    unlink(path);
    tct_trace_free(trace);
    tt_capture_free(cap);
    int rc = tt_finish("test_thread_rename (decoder)");
    fflush(stdout); /* the child ends with _exit */
    return rc;
}

/* ---- on the wire, with a server that asks for renames and one that does not ------------- */

static struct tr_server srv;

static void *name_another_thread(void *arg)
{
    ___tracy_set_thread_name(arg);
    return NULL;
}

static void *shutdown_profiler(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler();
    return NULL;
}

/* The ThreadName items for tid in the log from *pos on (their texts in names, up to 4). */
static int thread_names(size_t *pos, uint32_t tid, char names[4][64])
{
    int n = 0;
    struct tr_item it;
    while (tr_next(&srv, pos, &it)) {
        if (it.type != TCW_ThreadName || tcu_rd64(it.p + 1) != tid)
            continue;
        size_t len;
        const char *text = tr_item_text(&it, &len);
        if (n < 4)
            snprintf(names[n], sizeof names[n], "%.*s", (int)len, text);
        n++;
    }
    return n;
}

static int on_the_wire(void *arg)
{
    int ask = *(int *)arg;
    uint16_t port = tt_use_free_port();
    uint32_t tid = my_tid();
    ___tracy_set_thread_name("first name");
    zone();
    if (tr_connect(&srv, port, 30) != 0) {
        tt_check(0, "connect");
        return tt_finish("test_thread_rename (wire)");
    }
    if (ask)
        tr_query(&srv, TCW_QUERY_TRACYC_EXTENSIONS, TCW_EXTENSION_THREAD_RENAMES, 0);
    tr_query(&srv, TCW_QUERY_THREAD_STRING, tid, 0);
    size_t pos = 0;
    char names[4][64];
    int got = 0;
    while (!got && tr_pump(&srv, 100) >= 0)
        got = thread_names(&pos, tid, names);
    tt_check(got == 1 && strcmp(names[0], "first name") == 0, "%s: the name asked for", ask ? "asked" : "not asked");
    /* A thread whose name the server never asked for is not named to it either. */
    pthread_t other;
    pthread_create(&other, NULL, name_another_thread, "never asked about");
    pthread_join(other, NULL);
    ___tracy_set_thread_name("final name");
    zone();
    pthread_t stopper;
    pthread_create(&stopper, NULL, shutdown_profiler, NULL);
    size_t end = pos; /* until the client's Terminate: then everything it had is here */
    for (int terminated = 0; !terminated && tr_pump(&srv, 100) >= 0;) {
        struct tr_item item;
        while (!terminated && tr_next(&srv, &end, &item))
            terminated = item.type == TCW_Terminate;
    }
    tr_finish(&srv, 30);
    pthread_join(stopper, NULL);
    got = thread_names(&pos, tid, names);
    if (ask)
        tt_check(got == 1 && strcmp(names[0], "final name") == 0, "asked: the rename follows (%d)", got);
    else
        tt_check(got == 0, "not asked: no ThreadName it did not ask for (%d)", got);
    size_t all = 0;
    struct tr_item it;
    int unasked = 0;
    while (tr_next(&srv, &all, &it))
        unasked += it.type == TCW_ThreadName && tcu_rd64(it.p + 1) != tid;
    tt_check(unasked == 0, "%s: no name of a thread the server did not ask about", ask ? "asked" : "not asked");
    tr_free(&srv);
    int rc = tt_finish("test_thread_rename (wire)");
    fflush(stdout); /* the child ends with _exit */
    return rc;
}

int main(void)
{
    /* Every child first: a child forked after a check would inherit its count. */
    uint32_t protocols[] = {82, 76};
    int ask = 1, dont = 0, status[4];
    for (size_t i = 0; i < 2; i++)
        status[i] = tf_wait(tf_fork(through_the_decoder, &protocols[i]));
    status[2] = tf_wait(tf_fork(on_the_wire, &ask));
    status[3] = tf_wait(tf_fork(on_the_wire, &dont));
    for (size_t i = 0; i < 2; i++)
        tt_check(status[i] == 0, "through the decoder, protocol %u", protocols[i]);
    tt_check(status[2] == 0, "on the wire, renames asked for");
    tt_check(status[3] == 0, "on the wire, renames not asked for");
    return tt_finish("test_thread_rename");
}
