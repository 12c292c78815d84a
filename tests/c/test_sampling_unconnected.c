/* CPU samples taken while no server is connected wait in the sampler's stream for the next
 * one, and a pause holds there too. Each check orders the program's work before a server's
 * connection (never a timing), and the server reads up to the client's Terminate, after which
 * no sample can come:
 *   paused:           a pause before any server: nothing sampled in the function that burns
 *                     while paused; the functions burning before the pause and after the
 *                     resume are sampled (so the check of nothing cannot pass by no sampling);
 *   paused-no-resume: the same without a resume: nothing of the paused stretch;
 *   between:          server A takes samples and leaves; the program burns in a function
 *                     while none is connected; server B gets samples in it, A none.
 * A sample "holds" a function when a frame of its callstack falls in the function's symbol. */
#include "raw_server.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"
#include "wire/protocol.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Found by their symbols' extents: exported, and never a local copy (noclone). */
#if __has_attribute(noclone)
#define EXPORTED __attribute__((noinline, noclone, visibility("default")))
#else
#define EXPORTED __attribute__((noinline, visibility("default")))
#endif

#define BURN_NS (200 * 1000000LL) /* 400 samples at 2000 Hz */
#define WAIT_S 60                 /* a bound on a hang, not on speed */

/* Each burns in its own frame: the barrier keeps the call from being a tail call. */
EXPORTED void burn_before_pause(void)
{
    tt_burn_cpu_ns(BURN_NS);
    __asm__ volatile("" ::: "memory");
}

EXPORTED void burn_while_paused(void)
{
    tt_burn_cpu_ns(BURN_NS);
    __asm__ volatile("" ::: "memory");
}

EXPORTED void burn_after_resume(void)
{
    tt_burn_cpu_ns(BURN_NS);
    __asm__ volatile("" ::: "memory");
}

EXPORTED void burn_with_first_server(void)
{
    tt_burn_cpu_ns(BURN_NS / 10);
    __asm__ volatile("" ::: "memory");
}

EXPORTED void burn_between_servers(void)
{
    tt_burn_cpu_ns(BURN_NS);
    __asm__ volatile("" ::: "memory");
}

/* The first frame is where the sample fell; the others are return addresses, each just
 * after its call, so within (lo, hi]. */
static int frames_hold(const uint8_t *frames, int n, struct tt_extent fn)
{
    for (int i = 0; i < n; i++) {
        uint64_t a = tcu_rd64(frames + 8 * (size_t)i);
        if (i == 0 ? a >= fn.lo && a < fn.hi : a > fn.lo && a <= fn.hi)
            return 1;
    }
    return 0;
}

/* The server's CPU samples whose callstack holds fn. */
static size_t samples_holding(const struct tr_server *srv, void *fn)
{
    struct tt_extent extent = tt_function_extent(fn);
    CHECK(extent.hi > extent.lo); /* else no sample could hold it: a vacuous check */
    size_t n = 0, pos = 0;
    struct tr_item it, payload = {0};
    while (tr_next(srv, &pos, &it)) {
        if (it.type == TCW_CallstackPayload)
            payload = it;
        else if (it.type == TCW_CallstackSample || it.type == TCW_CallstackSample32 || it.type == TCW_CallstackSample16)
            n += payload.p && frames_hold(payload.p + 11, tcu_rd16(payload.p + 9) / 8, extent);
    }
    return n;
}

static void *shutdown_main(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler();
    return NULL;
}

/* The profiler shuts down with srv connected: the sampler reads its rings a last time and
 * everything reaches srv before the Terminate it waits for. */
static void end_program(struct tr_server *srv)
{
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything, then Terminate", WAIT_S);
    pthread_t closer;
    CHECK(pthread_create(&closer, NULL, shutdown_main, NULL) == 0);
    int terminated = 0, closed = 0;
    for (size_t pos = 0; !terminated && !closed;) {
        closed = tr_pump(srv, 100) < 0;
        struct tr_item it;
        while (tr_next(srv, &pos, &it))
            terminated |= it.type == TCW_Terminate;
    }
    CHECK(terminated);
    tr_finish(srv, WAIT_S);
    pthread_join(closer, NULL);
    tt_phase_done();
}

static int run_paused(uint16_t port, int resume)
{
    struct tr_server srv;
    tt_phase("burning CPU before, while and after the pause, no server connected", WAIT_S);
    burn_before_pause();
    ___tracy_end_sampling_profiling();
    burn_while_paused();
    if (resume) {
        CHECK_EQ_INT(___tracy_begin_sampling_profiling(), 1);
        burn_after_resume();
    }
    /* Only now, the work done, does a server come. */
    tt_phase("connecting the server", WAIT_S);
    CHECK_EQ_INT(tr_connect(&srv, port, WAIT_S), 0);
    end_program(&srv);
    size_t before = samples_holding(&srv, (void *)burn_before_pause);
    size_t paused = samples_holding(&srv, (void *)burn_while_paused);
    size_t after = samples_holding(&srv, (void *)burn_after_resume);
    tt_check(before > 0, "%zu samples in burn_before_pause, kept across the pause for the server", before);
    tt_check(paused == 0, "%zu samples in burn_while_paused", paused);
    if (resume)
        tt_check(after > 0, "%zu samples in burn_after_resume", after);
    tr_free(&srv);
    return tt_finish(resume ? "test_sampling_unconnected paused" : "test_sampling_unconnected paused-no-resume");
}

/* Until ___tracy_connected() is want (or the phase's bound ends the test). */
static void wait_connected(int want)
{
    while (___tracy_connected() != want)
        usleep(1000);
}

static int run_between(uint16_t port)
{
    struct tr_server first, second;
    tt_phase("the first server connecting and getting samples in burn_with_first_server", WAIT_S);
    CHECK_EQ_INT(tr_connect(&first, port, WAIT_S), 0);
    wait_connected(1);
    do {
        burn_with_first_server();
        tr_pump(&first, 10);
    } while (samples_holding(&first, (void *)burn_with_first_server) == 0);
    tt_phase("the first server leaving", WAIT_S);
    close(first.fd); /* its log stays for the checks */
    first.fd = -1;
    wait_connected(0);
    burn_between_servers();
    tt_phase("connecting the second server", WAIT_S);
    CHECK_EQ_INT(tr_connect(&second, port, WAIT_S), 0);
    end_program(&second);
    size_t in_first = samples_holding(&first, (void *)burn_between_servers);
    size_t in_second = samples_holding(&second, (void *)burn_between_servers);
    tt_check(in_first == 0, "the first server, gone before, got %zu samples in burn_between_servers", in_first);
    tt_check(in_second > 0, "the second server got %zu samples in burn_between_servers", in_second);
    tr_free(&first);
    tr_free(&second);
    return tt_finish("test_sampling_unconnected between");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "paused") != 0 && strcmp(mode, "paused-no-resume") != 0 && strcmp(mode, "between") != 0) {
        fprintf(stderr, "usage: %s paused|paused-no-resume|between\n", argv[0]);
        return 2;
    }
    if (!tt_sampling_expected()) {
        printf("SKIP needs perf events\n");
        return 77;
    }
    unsetenv("DEBUGINFOD_URLS");
    setenv("TRACY_SAMPLING_HZ", "2000", 1);
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (strcmp(mode, "between") == 0)
        return run_between(port);
    return run_paused(port, strcmp(mode, "paused") == 0);
}
