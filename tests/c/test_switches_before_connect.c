/* Context switches from before a server connects are kept and sent when it does, as the
 * program's other events are (and as upstream's client keeps them): a thread that naps a
 * few times and exits before any server is there still shows its runs. The sampler used to
 * start only when a server connected, so a capture lost the program's first 20-40 ms of
 * switches, and every switch of a short-lived thread that ended before the connection. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define NAPS 5
#define WAIT_S 60 /* a bound on a hang, not on speed */

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
    struct tr_thread_runs n = tr_wait_thread_exit(&srv, napper_tid, WAIT_S);
    tt_check(n.runs >= NAPS, "the napper's runs from before the connection on the wire: %d (%d naps)", n.runs, NAPS);
    tt_check(n.ends == n.runs, "the napper exited, yet %d of its %d runs did not end", n.runs - n.ends, n.runs);
    tt_check(n.last_state == TR_STATE_DEAD, "its last run ended in state %d (108: exited)", n.last_state);
    tr_free(&srv);
    return tt_finish("test_switches_before_connect");
}
