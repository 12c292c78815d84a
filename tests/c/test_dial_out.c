/* A client that dials out to a collector (TRACYC_CONNECT=HOST:PORT, docs/protocol.md §2.5),
 * recorded by a listening test collector (tests/support/test_collector.c) through the
 * decoder:
 *
 *   - from its first event, and it listens for no server meanwhile;
 *   - the collector goes away and comes back: the client dials again, and the events it
 *     recorded meanwhile reach the new collector;
 *   - no collector at all: the program runs on, its events kept up to the buffer limit;
 *     a collector that comes at its exit gets exactly those (the rest counted as dropped);
 *   - TRACY_NO_EXIT=1: the program waits at exit for a collector that comes later;
 *   - a value that is not HOST:PORT is said on stderr, and the client listens instead.
 *
 * Each case runs in a child process: a profiler's shutdown is final.
 */
#include "test_capture.h"
#include "test_collector.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct ___tracy_source_location_data first_loc = {"first", "main", "dial.c", 1, 0};
static const struct ___tracy_source_location_data away_loc = {"away", "main", "dial.c", 2, 0};
static const struct ___tracy_source_location_data back_loc = {"back", "main", "dial.c", 3, 0};

static void message(const char *text)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, strlen(text), text);
}

/* Zones of one source location's name a client sent. */
static size_t zones_named(const struct tcol_client *cl, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < cl->len; i++) {
        const struct tcd_event *ev = &cl->events[i].ev;
        n += ev->kind == TCD_ZONE_BEGIN && strcmp(tcd_srcloc(cl->dec, ev->srcloc)->name, name) == 0;
    }
    return n;
}

static void connect_to(uint16_t port)
{
    char value[32];
    snprintf(value, sizeof value, "127.0.0.1:%u", port);
    setenv("TRACYC_CONNECT", value, 1);
}

/* Whether anything listens on 127.0.0.1:port. */
static int listening(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(fd);
    return ok;
}

static int finish(const char *name)
{
    int rc = tt_finish(name);
    fflush(stdout); /* the child ends with _exit */
    return rc;
}

/* ---- from the first event -------------------------------------------------------------- */

static int from_the_first_event(void *arg)
{
    (void)arg;
    uint16_t server_port = tt_use_free_port(); /* TRACY_PORT: where it would listen */
    struct tcol *col = tcol_start(0);
    connect_to(tcol_port(col));
    tt_zones(&first_loc, 100); /* the profiler starts here */
    message("the first events");
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, "a literal message");
    tcol_wait_text(col, TCD_MESSAGE, "a literal message"); /* its text comes as the answer to a query */
    tt_check(!listening(server_port), "a client that dials out listens for no server (port %u)", server_port);
    ___tracy_shutdown_profiler();
    tcol_wait_ended(col, 1);
    struct tcol_client *cl = tcol_client(col, 0);
    tt_check(tcol_clients(col) == 1 && cl->end == TCOL_COMPLETE, "one client, complete (%s)", cl->err);
    tt_check(cl->pid == (uint64_t)getpid(), "the welcome's pid is the client's (%llu)", (unsigned long long)cl->pid);
    tt_check(zones_named(cl, "first") == 100, "every zone from the first (%zu)", zones_named(cl, "first"));
    int said = 0;
    for (size_t i = 0; i < cl->len; i++)
        said |= cl->events[i].ev.kind == TCD_MESSAGE && strcmp(cl->events[i].text, "the first events") == 0;
    tt_check(said, "the message too");
    tcol_free(col);
    return finish("test_dial_out (first event)");
}

/* ---- the collector goes away and comes back ----------------------------------------------- */

static int collector_comes_back(void *arg)
{
    (void)arg;
    struct tcol *first = tcol_start(0);
    uint16_t port = tcol_port(first);
    connect_to(port);
    tt_zones(&first_loc, 100);
    message("before it went away");
    tcol_wait_text(first, TCD_MESSAGE, "before it went away");
    tcol_stop(first);            /* at once: no Terminate */
    while (___tracy_connected()) /* the worker notices */
        usleep(1000);
    tt_zones(&away_loc, 100); /* kept while no collector is there */
    message("while it was away");
    struct tcol *second = tcol_start(port);
    tt_check(second != NULL, "the collector listens again on port %u", port);
    if (!second)
        return finish("test_dial_out (comes back)");
    tcol_wait_text(second, TCD_MESSAGE, "while it was away");
    tt_zones(&back_loc, 100);
    ___tracy_shutdown_profiler();
    tcol_wait_ended(second, 1);
    struct tcol_client *a = tcol_client(first, 0), *b = tcol_client(second, 0);
    /* (stopped before it had their names: counted as zones) */
    tt_check(tcol_count(a, TCD_ZONE_BEGIN) == 100, "the first collector: the first zones (%zu)",
             tcol_count(a, TCD_ZONE_BEGIN));
    tt_check(b && b->end == TCOL_COMPLETE, "the second collector: complete (%s)", b ? b->err : "no client");
    if (b) {
        tt_check(b->pid == (uint64_t)getpid(), "the second collector: the same process");
        tt_check(zones_named(b, "away") == 100, "the zones recorded while no collector was there (%zu)",
                 zones_named(b, "away"));
        tt_check(zones_named(b, "back") == 100, "and those after (%zu)", zones_named(b, "back"));
        tt_check(zones_named(b, "first") == 0, "none sent twice (%zu)", zones_named(b, "first"));
    }
    tcol_free(first);
    tcol_free(second);
    return finish("test_dial_out (comes back)");
}

/* ---- no collector: the buffer rule ------------------------------------------------------------ */

static int no_collector(void *arg)
{
    (void)arg;
    uint16_t port = tt_use_free_port(); /* nobody there */
    connect_to(port);
    setenv("TRACYC_BUFFER_LIMIT", "1M", 1);
    /* The program goes on: zones are kept until the limit, then counted as dropped. */
    long emitted = 0;
    while (tracyc_dropped_events() == 0 && emitted < 100000000) {
        tt_zones(&first_loc, 1000);
        emitted += 1000;
    }
    tt_zones(&first_loc, 1000); /* a few more past the limit */
    emitted += 1000;
    uint64_t dropped = tracyc_dropped_events();
    tt_check(dropped > 0 && (long)dropped < emitted, "past the limit some are dropped (%llu of %ld)",
             (unsigned long long)dropped, emitted);
    struct tcol *col = tcol_start(port); /* a collector at last: the exit calls it once more */
    ___tracy_shutdown_profiler();
    tcol_wait_ended(col, 1);
    struct tcol_client *cl = tcol_client(col, 0);
    tt_check(cl && cl->end == TCOL_COMPLETE, "the collector at exit: complete (%s)", cl ? cl->err : "no client");
    if (cl) {
        size_t kept = zones_named(cl, "first");
        tt_check((long)kept == emitted - (long)dropped, "every zone kept arrives: %zu = %ld - %llu", kept, emitted,
                 (unsigned long long)dropped);
        const struct tcd_event *d = tcol_nth(cl, TCD_DROPPED, tcol_count(cl, TCD_DROPPED) - 1);
        tt_check(d && d->value == dropped, "and the collector is told how many were dropped");
    }
    tcol_free(col);
    return finish("test_dial_out (no collector)");
}

/* ---- TRACY_NO_EXIT: waiting at exit for a collector ------------------------------------------- */

static void *shutdown_profiler(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler();
    return NULL;
}

static int waits_for_collector(void *arg)
{
    (void)arg;
    uint16_t port = tt_use_free_port();
    connect_to(port);
    setenv("TRACY_NO_EXIT", "1", 1);
    tt_zones(&first_loc, 100);
    pthread_t exiting;
    pthread_create(&exiting, NULL, shutdown_profiler, NULL); /* waits for a collector */
    struct tcol *col = tcol_start(port);
    tcol_wait_ended(col, 1);
    pthread_join(exiting, NULL);
    struct tcol_client *cl = tcol_client(col, 0);
    tt_check(cl && cl->end == TCOL_COMPLETE, "the collector that came: complete (%s)", cl ? cl->err : "no client");
    tt_check(cl && zones_named(cl, "first") == 100, "with every zone");
    tcol_free(col);
    return finish("test_dial_out (no exit)");
}

/* ---- a bad value -------------------------------------------------------------------------------- */

static int bad_value(void *arg)
{
    const char *value = arg;
    uint16_t port = tt_use_free_port();
    setenv("TRACYC_CONNECT", value, 1);
    FILE *said = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(said), 2);
    ___tracy_startup_profiler(); /* the settings are read here */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[512] = "";
    rewind(said);
    size_t n = fread(text, 1, sizeof text - 1, said);
    text[n] = 0;
    fclose(said);
    char expected[256];
    snprintf(expected, sizeof expected, "tracyc: TRACYC_CONNECT=%s is not HOST:PORT", value);
    tt_check(strstr(text, expected) && strstr(text, "listening for a server instead"), "%s: said %s", value, text);
    /* ...and it does: a server records it. */
    struct tt_capture *cap = tt_capture_start(port);
    while (!___tracy_connected()) /* a shutdown does not wait for a server */
        usleep(1000);
    tt_zones(&first_loc, 10);
    ___tracy_shutdown_profiler();
    tt_check(tt_capture_join(cap) == 0 && tt_count(cap, TCD_ZONE_BEGIN) == 10, "%s: recorded by a server", value);
    tt_capture_free(cap);
    return finish("test_dial_out (bad value)");
}

int main(void)
{
    unsetenv("TRACY_NO_EXIT");
    unsetenv("TRACYC_OUTPUT");
    /* Every child first: a child forked after a check would inherit its count. */
    static const char *bad[] = {"8086",  "localhost", "localhost:0", "localhost:70000",
                                ":9000", "::1:9000",  "[::1]9000"};
    enum { CASES = 4, BAD = sizeof bad / sizeof *bad };
    int (*cases[CASES])(void *) = {from_the_first_event, collector_comes_back, no_collector, waits_for_collector};
    const char *names[CASES] = {"from the first event", "the collector comes back", "no collector",
                                "TRACY_NO_EXIT waits for a collector"};
    int status[CASES + BAD];
    for (int i = 0; i < CASES; i++)
        status[i] = tf_wait(tf_fork(cases[i], NULL));
    for (int i = 0; i < BAD; i++)
        status[CASES + i] = tf_wait(tf_fork(bad_value, (void *)bad[i]));
    for (int i = 0; i < CASES; i++)
        tt_check(status[i] == 0, "%s", names[i]);
    for (int i = 0; i < BAD; i++)
        tt_check(status[CASES + i] == 0, "TRACYC_CONNECT=%s", bad[i]);
    return tt_finish("test_dial_out");
}
