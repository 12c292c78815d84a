/* A thread's last run ends when it exits. The kernel takes a dying thread's (inherited,
 * per-thread) events away before its last switch, so no switch-out record tells of it: the
 * exit itself must, or the server would show the thread running until another of the
 * program's threads happened to start on the same CPU, which may never be. Here the thread
 * runs alone on the last CPU and every other thread of the program stays off it. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* A bound on a hang, not on speed: the sampler reads its rings within a second or so. */
#define WAIT_S 60

static struct tr_server srv;
static _Atomic uint32_t napper_tid;

static void *napper_main(void *arg)
{
    (void)arg;
    napper_tid = (uint32_t)gettid();
    for (int i = 0; i < 5; i++) {
        struct timespec ts = {0, 2 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return NULL;
}

int main(void)
{
    /* The CPUs this process may run on (a container's cpuset may allow fewer than are online):
     * the napper gets the last of them alone, the program's thread the others. */
    cpu_set_t allowed, others, alone;
    int last = -1, nallowed = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed)) {
                last = c;
                nallowed++;
            }
    if (nallowed < 2 || !tt_sampling_expected()) {
        printf("SKIP needs two CPUs and perf events\n");
        return 77;
    }
    others = allowed;
    CPU_CLR(last, &others);
    CPU_ZERO(&alone);
    CPU_SET(last, &alone);
    /* Before the profiler starts: its threads (not sampled) inherit it, and the program's
     * one thread stays off the napper's CPU. */
    CHECK(sched_setaffinity(0, sizeof others, &others) == 0);

    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    CHECK(pthread_attr_setaffinity_np(&attr, sizeof alone, &alone) == 0);
    pthread_t napper;
    CHECK(pthread_create(&napper, &attr, napper_main, NULL) == 0);
    pthread_attr_destroy(&attr);
    pthread_join(napper, NULL);

    /* Its records all come from its CPU's ring, in order: its exit is the last of them. */
    struct tr_thread_runs n = tr_wait_thread_exit(&srv, napper_tid, WAIT_S);
    tt_check(n.runs >= 1, "the napper's runs on the wire: %d", n.runs);
    tt_check(n.ends == n.runs, "the napper exited, yet %d of its %d runs did not end", n.runs - n.ends, n.runs);
    tt_check(n.last_state == TR_STATE_DEAD, "its last run ended in state %d (108: exited)", n.last_state);
    tr_free(&srv);
    return tt_finish("test_switch_at_exit");
}
