/* CPU samples and context switches on the wire, checked with a raw server (independent of
 * tracyc's decoder), docs/protocol.md §26:
 *   - the welcome carries the sampling period; samples of a busy thread arrive, on the
 *     profiler's clock, each after its CallstackPayload, and resolve to the busy function;
 *   - threads created while sampling are sampled too; a forked child is not;
 *   - context switches of a sleeping thread arrive and pass the checks upstream's server
 *     makes with assertions (tests/support/switch_rules.c);
 *   - a profiler's thread that a program thread starts (a binding's: Python's sampling
 *     thread), which inherits the events, has neither samples nor context switches sent;
 *   - signals arriving all the while change nothing;
 *   - ___tracy_end_sampling_profiling stops samples, ___tracy_begin_sampling_profiling
 *     brings them back;
 *   - lost records, when the kernel reports any, reach the server as one count.
 * With --refused ERRNO, perf_event_open fails (a seccomp filter answers EACCES, EPERM as
 * Docker's default profile does, or ENOENT as a kernel without the event would): the program
 * runs on, the server gets one message why (the error, and what to check: here, the seccomp
 * filter, not perf_event_paranoid), stderr gets it once, and a .folded output says it
 * instead of being an empty file.
 */
#include "client/sampling.h"
#include "raw_server.h"
#include "switch_rules.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"
#include "util/threads.h"

#include <limits.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct tr_server srv;
static double ns_per_tick;

static int64_t now_ticks(void)
{
    return ___tracy_get_time();
}

static int64_t ms_ticks(double ms)
{
    return (int64_t)(ms * 1e6 / ns_per_tick);
}

static uint32_t gettid_(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* ---- the program being sampled --------------------------------------------------------- */

static _Atomic uint64_t sink;

/* Spins ms of the calling thread's CPU time: a spin of so much CPU is sampled on a loaded
 * machine too, where a spin of so much wall time may get next to no CPU (a brief thread then
 * had no sample at all, 1 run in ~40 of the whole suite). Not tt_burn_cpu_ns: the samples
 * must fall in this function's own loop, named spin_here. */
__attribute__((noinline)) static void spin_here(double ms)
{
    long long end = tt_thread_cpu_ns() + (long long)(ms * 1e6);
    uint64_t x = 1;
    while (tt_thread_cpu_ns() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    atomic_store_explicit(&sink, x, memory_order_relaxed);
}

__attribute__((noinline)) static void spin_while_paused(double ms)
{
    spin_here(ms);
    __asm__ volatile("" ::: "memory");
}

struct spinner {
    uint32_t tid;
    double ms;
    int64_t begin, end;
};

static void *spinner_main(void *arg)
{
    struct spinner *s = arg;
    s->tid = gettid_();
    s->begin = now_ticks();
    spin_here(s->ms);
    s->end = now_ticks();
    return NULL;
}

static uint32_t sleeper_tid;

static void *sleeper_main(void *arg)
{
    (void)arg;
    sleeper_tid = gettid_();
    for (int i = 0; i < 20; i++) {
        struct timespec ts = {0, 2 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return NULL;
}

/* Profiler's threads started by a program thread: each wakes and sleeps, and spins; one
 * for long, one so briefly that it is started and joined between two sampler passes. */
struct own {
    uint32_t tid;
    int sleeps;
    double spin_ms;
};

static void *own_main(void *arg)
{
    struct own *o = arg;
    o->tid = gettid_();
    for (int i = 0; i < o->sleeps; i++) {
        struct timespec ts = {0, 2 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    spin_here(o->spin_ms);
    return NULL;
}

static struct own own_long = {0, 150, 50}, own_brief = {0, 3, 3};

/* Waits until the sampler's first records reach the server: it has made a pass. */
static int sampler_passed(void)
{
    for (int round = 0; round < 600; round++) {
        size_t pos = 0;
        struct tr_item it;
        while (tr_next(&srv, &pos, &it))
            if (it.type == TCW_ContextSwitch || it.type == TCW_CallstackSample || it.type == TCW_CallstackSample32 ||
                it.type == TCW_CallstackSample16)
                return 1;
        tr_pump(&srv, 50);
    }
    return 0;
}

/* Stops (1) or restarts (0) the kernel writing into the sampler's ring buffers: what it
 * samples meanwhile it counts as lost (PERF_EVENT_IOC_PAUSE_OUTPUT), as when a ring
 * overflows. The events are this process's own file descriptors. */
static int pause_rings(int pause)
{
    int found = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = 0;
        if (strcmp(link, "anon_inode:[perf_event]") == 0)
            found += ioctl(atoi(e->d_name), PERF_EVENT_IOC_PAUSE_OUTPUT, pause) == 0;
    }
    if (d)
        closedir(d);
    return found;
}

static volatile int signals_seen;

static void on_signal(int sig)
{
    (void)sig;
    signals_seen++;
}

/* ---- reading the log ------------------------------------------------------------------- */

struct sample {
    uint32_t tid;
    int64_t time;
    uint64_t frame0, frame1;
    int frames;
};

static struct sample samples[1 << 16];
static size_t nsamples;
static int switch_in, switch_out, switch_bad, own_switches;
static int is_own(uint32_t tid);
static const char *switch_first_bad;
static int lost_messages, unavailable_messages;
static uint64_t lost_reported;
static char unavailable_text[512];

static void read_log(uint32_t sleeper)
{
    nsamples = 0;
    switch_in = switch_out = switch_bad = own_switches = 0;
    switch_first_bad = NULL;
    lost_messages = unavailable_messages = 0;
    struct ts_rules *rules = ts_rules_new();
    int64_t ref = 0;
    size_t pos = 0;
    struct tr_item it, single = {0};
    uint64_t payload[2] = {0, 0};
    int payload_frames = -1;
    while (tr_next(&srv, &pos, &it)) {
        if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData) {
            single = it;
        } else if (it.type == TCW_CallstackPayload) {
            payload_frames = tcu_rd16(it.p + 9) / 8;
            payload[0] = payload_frames > 0 ? tcu_rd64(it.p + 11) : 0;
            payload[1] = payload_frames > 1 ? tcu_rd64(it.p + 19) : 0;
        } else if (it.type == TCW_Message) {
            size_t len;
            const char *text = tr_item_text(&single, &len);
            if (len > 13 && memcmp(text, "tracyc: lost ", 13) == 0) {
                lost_messages++;
                lost_reported = strtoull(text + 13, NULL, 10);
            } else if (len > 34 && memcmp(text, "tracyc: sampling unavailable: ", 30) == 0) {
                unavailable_messages++;
                snprintf(unavailable_text, sizeof unavailable_text, "%.*s", (int)len, text);
            }
        }
        if (!tr_ctx_time(&it, &ref))
            continue;
        if (it.type == TCW_ContextSwitch) {
            uint32_t old_tid = tcu_rd32(it.p + 9), new_tid = tcu_rd32(it.p + 13);
            const char *bad = ts_rules_switch(rules, ref, old_tid, new_tid, it.p[17]);
            if (bad && !switch_bad++)
                switch_first_bad = bad;
            switch_in += new_tid == sleeper;
            switch_out += old_tid == sleeper;
            own_switches += is_own(old_tid) || is_own(new_tid);
        } else if (nsamples < sizeof samples / sizeof *samples) {
            CHECK(payload_frames > 0); /* every sample comes after its own payload */
            samples[nsamples++] = (struct sample){tcu_rd32(it.p + 1), ref, payload[0], payload[1], payload_frames};
            payload_frames = -1;
        }
    }
    ts_rules_free(rules);
}

static int is_own(uint32_t tid)
{
    return tid && (tid == own_long.tid || tid == own_brief.tid);
}

static size_t samples_of(uint32_t tid, int64_t from, int64_t to)
{
    size_t n = 0;
    for (size_t i = 0; i < nsamples; i++)
        n += (tid == 0 || samples[i].tid == tid) && samples[i].time >= from && samples[i].time <= to;
    return n;
}

/* A sample of tid taken between from and to (the middle one). */
/* The k-th sample of tid in [from, to] counting from the middle one (k = 0) onwards,
 * wrapping round; NULL when there is none. */
static const struct sample *sample_between(uint32_t tid, int64_t from, int64_t to, size_t k)
{
    size_t n = samples_of(tid, from, to), seen = 0;
    for (size_t i = 0; i < nsamples && n; i++)
        if (samples[i].tid == tid && samples[i].time >= from && samples[i].time <= to && seen++ == (n / 2 + k) % n)
            return &samples[i];
    return NULL;
}

/* The innermost function at address (a CallstackFrame query). */
static int function_at(uint64_t address, char *name, size_t cap)
{
    tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, address, 0);
    for (int round = 0; round < 200; round++) {
        size_t pos = 0;
        struct tr_item it, single = {0};
        while (tr_next(&srv, &pos, &it)) {
            if (it.type == TCW_CallstackFrameSize && tcu_rd64(it.p + 1) == address) {
                /* image string, then the first frame's name */
                if (tr_next(&srv, &pos, &single) && tr_next(&srv, &pos, &it)) {
                    size_t len;
                    const char *s = tr_item_text(&single, &len);
                    snprintf(name, cap, "%.*s", (int)len, s);
                    return 1;
                }
                return 0;
            }
        }
        tr_pump(&srv, 50);
    }
    return 0;
}

static void *shutdown_main(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler();
    return NULL;
}

/* The program ends: everything, the last reports and Terminate, reaches the server. */
static void end_program(void)
{
    pthread_t closer;
    pthread_create(&closer, NULL, shutdown_main, NULL);
    int terminated = 0;
    for (int round = 0; round < 200 && !terminated; round++) {
        tr_pump(&srv, 50);
        size_t pos = 0;
        struct tr_item it;
        while (tr_next(&srv, &pos, &it))
            terminated |= it.type == TCW_Terminate;
    }
    CHECK(terminated);
    tr_finish(&srv, 10);
    pthread_join(closer, NULL);
}

/* ---- the scenarios --------------------------------------------------------------------- */

/* Makes perf_event_open fail with err in this process and its children. */
static int refuse_perf_events(int err)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof *filter, filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("seccomp");
        return -1;
    }
    return 0;
}

static char *slurp(const char *path)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    return text;
}

/* The message for err: the error by name, and what to check. The filter is what refuses
 * here, so perf_event_paranoid (2 or less for root) must not be blamed. */
static void check_reason(const char *text, const char *errname)
{
    char name[32];
    snprintf(name, sizeof name, "(%s)", errname);
    tt_check(strstr(text, "sampling unavailable: perf_event_open: ") && strstr(text, name), "names the error: %s",
             text);
    if (strcmp(errname, "ENOENT") == 0)
        tt_check(strstr(text, "not support") != NULL, "says the event is not supported: %s", text);
    else
        tt_check(strstr(text, "seccomp") && !strstr(text, "<= 2"), "blames the seccomp filter, not paranoid: %s", text);
}

/* A program writing TRACYC_OUTPUT=x.folded, refused: the file says why, and so does stderr,
 * once. (This process is under the filter already; the child inherits it.) */
static void check_refused_folded(const char *errname)
{
    char dir[PATH_MAX];
    tt_temp_path(dir, sizeof dir, "tracyc_refused.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char out[PATH_MAX + 16], err[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/samples.folded", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *e = freopen(err, "w", stderr);
        setenv("TRACYC_OUTPUT", out, 1);
        static const struct ___tracy_source_location_data loc = {"refused", "child", "t.c", 1, 0};
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        spin_here(20);
        ___tracy_emit_zone_end(z);
        exit(e ? 0 : 3); /* the capture is written at exit */
    }
    int status = -1;
    tt_child_ended(pid, &status, 60);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *said = slurp(err);
    int lines = 0;
    for (const char *p = said; (p = strstr(p, "tracyc: sampling unavailable: ")); p++)
        lines++;
    tt_check(lines == 1, "stderr says it once: %s", said);
    check_reason(said, errname);
    char *folded = slurp(out);
    size_t len = strlen(folded);
    tt_check(strncmp(folded, "# tracyc: no CPU samples (sampling unavailable: ", 48) == 0 && len > 2 &&
                 strcmp(folded + len - 2, ")\n") == 0 && strchr(folded, '\n') == folded + len - 1,
             "the folded file is one comment line: %s", folded);
    check_reason(folded, errname);
    unlink(out);
    unlink(err);
    rmdir(dir);
}

/* A program nobody profiles (no server, no TRACYC_OUTPUT), refused: sampling starts with the
 * profiler, but stderr stays quiet, as the program's user never asked for a profile. */
static void check_refused_quiet(void)
{
    char err[PATH_MAX];
    tt_temp_path(err, sizeof err, "tracyc_quiet.XXXXXX");
    int fd = mkstemp(err);
    CHECK(fd >= 0);
    close(fd);
    tt_use_free_port(); /* the child listens there, as a program would on its port */
    pid_t pid = fork();
    if (pid == 0) {
        FILE *e = freopen(err, "w", stderr);
        static const struct ___tracy_source_location_data loc = {"unprofiled", "child", "t.c", 1, 0};
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        spin_here(20);
        ___tracy_emit_zone_end(z);
        exit(e ? 0 : 3);
    }
    int status = -1;
    tt_child_ended(pid, &status, 60);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *said = slurp(err);
    tt_check(!strstr(said, "sampling unavailable"), "a program nobody profiles says nothing on stderr: %s", said);
    unlink(err);
}

static int run_refused(const char *errname)
{
    int err = strcmp(errname, "EPERM") == 0 ? EPERM : strcmp(errname, "ENOENT") == 0 ? ENOENT : EACCES;
    if (refuse_perf_events(err) != 0)
        return 77;
    check_refused_quiet();
    check_refused_folded(errname);

    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    CHECK_EQ_INT(tr_connect(&srv, port, 10), 0);
    int64_t period;
    memcpy(&period, srv.welcome + TCW_WELCOME_SAMPLING, 8);
    CHECK_EQ_INT(period, 0);
    static const struct ___tracy_source_location_data loc = {"still here", "run_refused", "t.c", 1, 0};
    for (int i = 0; i < 3; i++) {
        spin_here(50);
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
        tr_pump(&srv, 100);
    }
    CHECK_EQ_INT(___tracy_begin_sampling_profiling(), 0); /* refused: says so */
    tr_pump(&srv, 200);
    read_log(0);
    CHECK_EQ_INT(unavailable_messages, 1);
    check_reason(unavailable_text, errname);
    CHECK_EQ_INT(nsamples, 0);
    CHECK_EQ_INT(switch_in + switch_out, 0);
    size_t pos = 0;
    struct tr_item it;
    int zones = 0;
    while (tr_next(&srv, &pos, &it))
        zones += it.type >= TCW_ZoneBegin && it.type <= TCW_ZoneBegin16;
    CHECK_EQ_INT(zones, 3); /* the program's own events are unharmed */
    end_program();
    tr_free(&srv);
    return tt_finish("test_sampling_wire --refused");
}

int main(int argc, char **argv)
{
    unsetenv("DEBUGINFOD_URLS");
    if (argc > 1 && strcmp(argv[1], "--refused") == 0)
        return run_refused(argc > 2 ? argv[2] : "EACCES");
    setenv("TRACY_SAMPLING_HZ", "2000", 1);
    signal(SIGUSR1, on_signal);
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    memcpy(&ns_per_tick, srv.welcome + TCW_WELCOME_TIMER_MUL, 8);
    int sampling = tt_sampling_expected();
    int64_t period;
    memcpy(&period, srv.welcome + TCW_WELCOME_SAMPLING, 8);
    CHECK_EQ_INT(period, sampling ? 500000 : 0); /* 2000 Hz */

    /* A busy thread, a sleeping one, short-lived busy threads, signals all the while. */
    pthread_t busy, sleeper, brief[4];
    struct spinner main_spin = {0, 300, 0, 0}, brief_spin[4];
    int64_t busy_created = now_ticks();
    pthread_create(&busy, NULL, spinner_main, &main_spin);
    pthread_create(&sleeper, NULL, sleeper_main, NULL);
    /* The profiler's threads, started while the sampler reads the rings: after a pass. */
    pthread_t own, brief_own;
    if (sampling)
        CHECK(sampler_passed());
    CHECK(tcu_thread_start(&own, "test own", own_main, &own_long) == 0);
    CHECK(tcu_thread_start(&brief_own, "test own brief", own_main, &own_brief) == 0);
    tcu_thread_join(brief_own);
    for (int i = 0; i < 4; i++) {
        brief_spin[i] = (struct spinner){0, 80, 0, 0};
        pthread_create(&brief[i], NULL, spinner_main, &brief_spin[i]);
        for (int k = 0; k < 10; k++) {
            kill(getpid(), SIGUSR1);
            spin_here(2);
        }
        pthread_join(brief[i], NULL);
    }
    pthread_join(busy, NULL);
    int64_t busy_joined = now_ticks();
    pthread_join(sleeper, NULL);
    tcu_thread_join(own);

    /* A forked child spins too, and is not sampled. */
    pid_t child = fork();
    if (child == 0) {
        spin_here(100);
        _exit(0);
    }
    int status = -1;
    tt_child_ended(child, &status, 30);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Paused (at once: nothing is sampled after the call), then sampled again. */
    ___tracy_end_sampling_profiling();
    int64_t pause_from = now_ticks();
    spin_while_paused(100);
    int64_t pause_to = now_ticks();
    CHECK_EQ_INT(___tracy_begin_sampling_profiling(), sampling);
    struct timespec settle = {0, 50 * 1000 * 1000};
    nanosleep(&settle, NULL);
    struct spinner after = {0, 100, 0, 0};
    spinner_main(&after);

    /* The kernel cannot write for a while: lost records, counted and reported. */
    uint64_t lost_before = tc_sampling_lost();
    int rings = pause_rings(1);
    spin_here(100);
    pause_rings(0);
    spin_here(20);

    for (int i = 0; i < 10; i++)
        tr_pump(&srv, 100);
    read_log(sleeper_tid);
    CHECK(signals_seen >= 1);
    CHECK_EQ_INT(unavailable_messages, !sampling);
    if (!sampling) {
        tt_check(1, "sampling is refused to this user here: only the message is checked");
        end_program();
        tr_free(&srv);
        return tt_finish("test_sampling_wire");
    }

    /* The busy thread: sampled inside its busy time (the profiler's clock), in spin_here. */
    /* Its samples fall in its life (it starts and ends in the thread library, before and
     * after its busy time), most in its busy time. */
    size_t busy_time = samples_of(main_spin.tid, main_spin.begin - ms_ticks(1), main_spin.end + ms_ticks(1));
    size_t life = samples_of(main_spin.tid, busy_created - ms_ticks(1), busy_joined + ms_ticks(1));
    size_t all = samples_of(main_spin.tid, INT64_MIN, INT64_MAX);
    tt_check(busy_time > 0 && life == all && busy_time * 2 > all,
             "%zu samples of the busy thread, all in its life, %zu in its busy time", all, busy_time);
    /* A sample in spin_here's loop: one may also fall in the clock read it calls (vDSO). */
    const struct sample *s = NULL;
    char name[256] = "";
    for (int tries = 0; tries < 16 && !s; tries++) {
        s = sample_between(main_spin.tid, main_spin.begin, main_spin.end, tries);
        if (s && !(function_at(s->frame0, name, sizeof name) && strcmp(name, "spin_here") == 0))
            s = NULL;
    }
    CHECK_STR(name, "spin_here");
    CHECK(s && s->frames >= 2 && function_at(s->frame1, name, sizeof name));
    CHECK_STR(name, "spinner_main");
    /* Unwinding samples and resolving their frames mapped no loaded file again (perf would
     * take the copy for its load address: its own callstacks of this program cut short). */
    char again[256] = "";
    int copies = tt_loaded_files_mapped_again(again, sizeof again);
    tt_check(copies == 0, "%d loaded files mapped again by the sampler and the resolver (%s)", copies, again);
    /* Every thread created while sampling is sampled (inherited events), unless the ring
     * overflowed meanwhile (a slow machine, a sanitizer), which must then be on record. */
    int brief_sampled = 0;
    for (int i = 0; i < 4; i++)
        brief_sampled += samples_of(brief_spin[i].tid, INT64_MIN, INT64_MAX) > 0;
    tt_check(brief_sampled == 4 || (brief_sampled > 0 && lost_before > 0),
             "%d of 4 threads created while sampling were sampled (%llu records lost before)", brief_sampled,
             (unsigned long long)lost_before);
    CHECK_EQ_INT(samples_of((uint32_t)child, INT64_MIN, INT64_MAX), 0);
    CHECK_EQ_INT(samples_of(0, pause_from, pause_to), 0);
    CHECK(samples_of(after.tid, after.begin, after.end) > 0);

    /* Context switches of the sleeper, each accepted by the server's rules. */
    tt_check(switch_in >= 10 && switch_out >= 10, "sleeper switched in %d and out %d times", switch_in, switch_out);
    tt_check(switch_bad == 0, "context switches the server would abort on: %d (%s)", switch_bad,
             switch_first_bad ? switch_first_bad : "none");
    /* The profiler's threads: nothing of their sleeps and spins. */
    size_t own_samples =
        samples_of(own_long.tid, INT64_MIN, INT64_MAX) + samples_of(own_brief.tid, INT64_MIN, INT64_MAX);
    tt_check(own_switches == 0 && own_samples == 0, "the profiler's threads: %d context switches, %zu samples sent",
             own_switches, own_samples);

    /* Lost records: reported with the count the client has, the last time at the end. */
    end_program();
    uint64_t lost = tc_sampling_lost();
    read_log(sleeper_tid);
    tt_check(rings > 0 && lost > 0, "%llu records lost while %d rings were paused", (unsigned long long)lost, rings);
    tt_check(lost_messages >= 1 && lost_reported == lost, "%d messages about lost records, the last says %llu",
             lost_messages, (unsigned long long)lost_reported);
    tr_free(&srv);
    return tt_finish("test_sampling_wire");
}
