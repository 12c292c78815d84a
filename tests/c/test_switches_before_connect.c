/* Context switches from before a server connects are kept and sent when it does, as the
 * program's other events are (and as upstream's client keeps them): a thread that naps a
 * few times and exits before any server is there still shows its runs. The sampler used to
 * start only when a server connected, so a capture lost the program's first 20-40 ms of
 * switches, and every switch of a short-lived thread that ended before the connection. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define NAPS 5
#define GIVE_UP_PUMPS 200 /* of up to 100 ms each: only when the switches never come */

static struct tr_server srv;
static _Atomic uint32_t napper_tid;

static void *napper_main(void *arg)
{
    (void)arg;
    napper_tid = (uint32_t)gettid();
    for (int i = 0; i < NAPS; i++) {
        struct timespec ts = {0, 2 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return NULL;
}

/* The napper's runs on the wire so far: those started, and those of them ended. */
static void count_runs(uint32_t tid, int *runs, int *ends)
{
    int64_t ref = 0;
    size_t pos = 0;
    struct tr_item it;
    *runs = *ends = 0;
    while (tr_next(&srv, &pos, &it)) {
        if (!tr_ctx_time(&it, &ref) || it.type != TCW_ContextSwitch)
            continue;
        *runs += tcu_rd32(it.p + 13) == tid;
        *ends += tcu_rd32(it.p + 9) == tid;
    }
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("SKIP needs perf events\n");
        return 77;
    }
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    pthread_t napper;
    CHECK(pthread_create(&napper, NULL, napper_main, NULL) == 0);
    pthread_join(napper, NULL);
    /* Only now, with the napper gone, does a server come. */
    if (tr_connect(&srv, port, 10) != 0)
        return 1;

    /* Each nap ends a run and its wake-up starts one: NAPS + 1 runs, more when preempted. */
    int runs = 0, ends = 0;
    for (int i = 0; i < GIVE_UP_PUMPS && (runs < NAPS || ends < runs); i++) {
        tr_pump(&srv, 100);
        count_runs(napper_tid, &runs, &ends);
    }
    tt_check(runs >= NAPS, "the napper's runs from before the connection on the wire: %d (%d naps)", runs, NAPS);
    tt_check(ends == runs, "the napper exited, yet %d of its %d runs did not end", runs - ends, runs);
    tr_free(&srv);
    return tt_finish("test_switches_before_connect");
}
