/* A thread's last run ends when it exits. The kernel takes a dying thread's (inherited,
 * per-thread) events away before its last switch, so no switch-out record tells of it: the
 * exit itself must, or the server would show the thread running until another of the
 * program's threads happened to start on the same CPU, which may never be. Here the thread
 * runs alone on the last CPU and every other thread of the program stays off it. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2 || !tt_sampling_expected()) {
        printf("SKIP needs two CPUs and perf events\n");
        return 77;
    }
    int last = (int)ncpu - 1;
    cpu_set_t others, alone;
    CPU_ZERO(&others);
    for (int c = 0; c < last; c++)
        CPU_SET(c, &others);
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
    struct timespec settle = {0, 100 * 1000 * 1000}; /* the sampler's next passes */
    nanosleep(&settle, NULL);
    for (int i = 0; i < 5; i++)
        tr_pump(&srv, 100);

    int runs = 0, ends = 0;
    uint32_t tid = napper_tid;
    int64_t ref = 0;
    size_t pos = 0;
    struct tr_item it;
    while (tr_next(&srv, &pos, &it)) {
        if (!tr_ctx_time(&it, &ref) || it.type != TCW_ContextSwitch)
            continue;
        runs += tcu_rd32(it.p + 13) == tid;
        ends += tcu_rd32(it.p + 9) == tid;
    }
    tt_check(runs >= 1, "the napper's runs on the wire: %d", runs);
    tt_check(ends == runs, "the napper exited, yet %d of its %d runs did not end", runs - ends, runs);
    tr_free(&srv);
    return tt_finish("test_switch_at_exit");
}
