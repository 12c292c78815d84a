/* sampling.c - perf events, their ring buffers and the sampler thread (see sampling.h).
 *
 * Permissions (perf_event_paranoid): the events watch this process's own threads, so they
 * need no privilege up to paranoid 2 as long as they leave the kernel out; they ask for
 * kernel-mode samples first (paranoid <= 1 or CAP_PERFMON: time spent in system calls is
 * then counted, on the user-space caller) and fall back to user space only. When the kernel
 * refuses anyway (paranoid 3, seccomp, no perf support), nothing runs and
 * tc_sampling_unavailable says why (the error and its likely cause), once, to each server;
 * stderr gets it once too.
 */
#include "client/sampling.h"

#include "client/clock.h"
#include "native/libdw.h"
#include "client/record.h"
#include "native/sample_callchain.h"
#include "native/sample_unwind.h"
#include "client/state.h"
#include "client/wake.h"
#include "util/bytes.h"
#include "util/fd.h"
#include "util/threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES_MAX 256 /* data pages per CPU: 1 MiB with 4 KiB pages */
#define RING_PAGES_MIN 8
#define STACK_BYTES 8192 /* user stack copied with each sample */
#define MAX_FRAMES 128   /* as upstream's sample_max_stack */
/* Records younger than this stay for the next pass, so that one CPU's late records cannot
 * come after another CPU's later ones: the server needs each thread's events in order. */
#define MERGE_DELAY_NS 2000000
/* While records flow, a pass at most every 50 ms: each pass is a wake-up (a third of the
 * sampler's CPU at a pass every 10 ms), and a ring filling faster wakes the sampler earlier
 * at its watermark. A ring smaller than the watermark (locked-memory limits) never wakes it
 * (the kernel fills it to a byte short of the capped watermark): then the pass comes, idle
 * or not, before a quarter of it can fill, down to every 10 ms. */
#define POLL_MS_MAX 50
#define POLL_MS_MIN 10
_Static_assert(TC_SAMPLING_WATERMARK_BYTES == RING_PAGES_MAX * 4096 / 4, "a quarter of a full ring");
/* With a consumer connected and no record read in the last pass (every thread off the CPU:
 * an idle program), the sampler waits this long before it looks again; a record the kernel
 * writes meanwhile wakes it only at the ring's watermark, and is delayed, never lost. With
 * no consumer it waits for the watermark or a consumer's connection alone, where the rings
 * signal and a stop can wake it (next_wait_ms). */
#define IDLE_POLL_MS 250

struct ring {
    int fd; /* the event that owns the buffer; the CPU's other events write into it */
    struct perf_event_mmap_page *page;
    uint8_t *data;
    size_t size; /* data bytes, a power of two */
    size_t map_len;
    int cpu;
    size_t polled; /* in s.events: the event the sampler polls (the owner, until it hangs up) */
    int hung_fd;   /* for tests: the event polled for the ring that was last seen hung up */
};

/* An open event of one thread and CPU. */
struct event {
    int fd;
    int ring; /* in s.rings: the CPU's, which it writes into */
};

/* A record read from a ring, waiting for its turn. */
struct pending {
    int64_t time; /* perf clock (CLOCK_MONOTONIC_RAW ns) */
    uint32_t tid;
    uint8_t kind; /* TC_REC_SAMPLE or TC_REC_CONTEXT_SWITCH */
    uint8_t cpu, in, stopped;
    int frames;
    uint64_t frame[];
};

static struct {
    pthread_mutex_t lock; /* start/stop against pause/resume */
    _Atomic int paused;   /* ___tracy_end_sampling_profiling */
    _Atomic int refused;  /* the last start failed */
    int running;
    char reason[320];       /* written by the worker while starting */
    _Atomic int has_reason; /* reason is complete: other threads may read it */
    int64_t period_ns;
    _Atomic uint64_t lost;             /* dropped by the kernel: a ring was full */
    _Atomic uint64_t dropped_at_limit; /* dropped here: the buffer limit was reached */
    /* A server or the in-process capture is connected (tc_sampling_consumer): else nobody
     * waits for the records, which are kept for the next one. */
    _Atomic int consumed;
    /* Shutting down with no consumer: records are not read (set before the stop). */
    _Atomic int discarding;
    _Atomic uint64_t untimed_waits, unwound, unwound_at_stop, passes, hangups, hangups_again; /* for tests */
    _Atomic size_t smallest_ring; /* for tests, without the lock (a test's hang report reads it) */
    int stream_ready;
    struct tc_stream stream;
    /* while running */
    struct ring *rings;
    int nrings;
    struct event *events;
    size_t nevents, events_cap;
    pthread_t thread;
    sem_t opened;     /* posted once the events are open, or refused: the sampler may start */
    int opened_ready; /* made once: each start posts it once and its sampler waits once */
    _Atomic int stop;
    /* An eventfd: stop_locked and a consumer's connection wake the sampler with it (atomic:
     * the worker reads it for the latter, without the lock, while another thread may start). */
    _Atomic int wake_fd;
    int sampling;      /* samples wanted (else only context switches) */
    int use_callchain; /* no libdw to unwind copied stacks: the kernel's frame-pointer chain */
    int finished;      /* shut down: never start again */
    pid_t pid;
    int filter_pid; /* events may be inherited by child processes: drop their records */
    /* sampler thread */
    struct pollfd *polls; /* here, not on its stack: reachable in a forked child */
    struct tcn_sample_unwinder *unwinder;
    struct tcn_sample_callchain *callchain;
    struct pending **queue;
    size_t queued, queue_cap;
    int64_t tsc_ref, ns_ref; /* a clock pair for converting perf times to ticks */
    /* The profiler's threads whose records a pass may read (refresh_own_threads), and the
     * numbers of the latest joins at the last two passes (tcu_threads_joined). */
    uint32_t own[TCU_MAX_OWN_THREADS + TCU_RECENT_JOINS];
    size_t nown;
    uint64_t joins_seen[2];
    uint64_t joins_at_open; /* the latest join when the events were opened */
    double ns_per_tick;
} s = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake_fd = -1};

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
    return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int read_int_file(const char *path, int fallback)
{
    FILE *f = tcu_fd_fopen_read(path);
    int v = fallback;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = fallback;
        fclose(f);
    }
    return v;
}

/* ---- opening the events -------------------------------------------------------------- */

struct tids {
    pid_t *v;
    size_t n, cap;
};

static int tids_has(const struct tids *t, pid_t tid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i] == tid)
            return 1;
    return 0;
}

static int tids_add(struct tids *t, pid_t tid)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        pid_t *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = tid;
    return 0;
}

/* Threads of this process not in `have`; appended to `out`. */
static void new_threads(const struct tids *have, struct tids *out)
{
    int fd = tcu_fd_open("/proc/self/task", O_RDONLY | O_DIRECTORY, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0 || tids_has(have, (pid_t)tid))
            continue;
        tids_add(out, (pid_t)tid);
    }
    closedir(d);
}

struct opener {
    struct perf_event_attr attr;
    int ncpu;
    size_t max_fds;
    int err; /* errno of the first refusal */
};

static int add_event(int fd, int ring)
{
    if (s.nevents == s.events_cap) {
        size_t grown = s.events_cap ? s.events_cap * 2 : 256;
        struct event *v = realloc(s.events, grown * sizeof *v);
        if (!v) {
            close(fd);
            return -1;
        }
        s.events = v;
        s.events_cap = grown;
    }
    s.events[s.nevents++] = (struct event){fd, ring};
    return 0;
}

static void unmap_ring(struct ring *r)
{
    if (r->page)
        munmap(r->page, r->map_len);
    r->page = NULL;
}

/* The CPU's ring buffer, as large as the locked-memory limits allow. */
static int map_ring(struct ring *r)
{
    long page = sysconf(_SC_PAGESIZE);
    for (size_t pages = RING_PAGES_MAX; pages >= RING_PAGES_MIN; pages /= 2) {
        size_t len = (pages + 1) * (size_t)page;
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
        if (p == MAP_FAILED)
            continue;
        r->page = p;
        r->data = (uint8_t *)p + page;
        r->size = pages * (size_t)page;
        r->map_len = len;
        return 0;
    }
    return -1;
}

/* Events for one thread, one per CPU. 0, or -1 (errno in o->err) when refused. */
static int open_thread(struct opener *o, pid_t tid)
{
    for (int cpu = 0; cpu < o->ncpu; cpu++) {
        struct ring *r = &s.rings[cpu];
        if (r->cpu < 0) /* offline */
            continue;
        if (s.nevents >= o->max_fds)
            return 1;
        tcu_fd_guard_begin();
        int fd = tcu_fd_guard_end((int)perf_event_open(&o->attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
        if (fd < 0) {
            if (errno == ESRCH) /* the thread has exited meanwhile */
                return 0;
            if (errno == ENODEV && r->fd < 0) {
                r->cpu = -1;
                continue;
            }
            o->err = errno;
            return -1;
        }
        if (add_event(fd, cpu) != 0) {
            o->err = ENOMEM;
            return -1;
        }
        if (r->fd < 0) {
            r->fd = fd;
            r->polled = s.nevents - 1;
            if (map_ring(r) != 0) {
                o->err = errno ? errno : ENOMEM;
                return -1;
            }
        } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) != 0) {
            o->err = errno;
            return -1;
        }
    }
    return 0;
}

static void close_events(void)
{
    for (int i = 0; i < s.nrings; i++)
        unmap_ring(&s.rings[i]);
    for (size_t i = 0; i < s.nevents; i++)
        close(s.events[i].fd);
    free(s.rings);
    free(s.events);
    s.rings = NULL;
    s.events = NULL;
    s.nrings = 0;
    s.nevents = s.events_cap = 0;
}

/* The error's name: strerror's text alone does not tell EACCES from EPERM. */
static const char *errno_name(int err, char *buf, size_t len)
{
    static const struct {
        int err;
        const char *name;
    } names[] = {{EACCES, "EACCES"}, {EPERM, "EPERM"},   {ENOENT, "ENOENT"}, {EOPNOTSUPP, "EOPNOTSUPP"},
                 {ENODEV, "ENODEV"}, {ENOSYS, "ENOSYS"}, {EINVAL, "EINVAL"}, {EMFILE, "EMFILE"},
                 {ENFILE, "ENFILE"}, {ENOMEM, "ENOMEM"}, {EBUSY, "EBUSY"},   {E2BIG, "E2BIG"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].err == err)
            return names[i].name;
    snprintf(buf, len, "errno %d", err);
    return buf;
}

/* A number from a line of /proc/self/status ("Seccomp:", "CapEff:"), or -1. */
static long long status_field(const char *field, int base)
{
    FILE *f = tcu_fd_fopen_read("/proc/self/status");
    char line[256];
    long long v = -1;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0) {
            v = strtoll(line + len, NULL, base);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* Why perf_event_open failed, and what to check: the error by name, then its likely cause
 * here (perf_event_paranoid, a seccomp filter, a security module, the kernel). */
static void explain_refusal(int err)
{
    int paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", -100);
    int filtered = status_field("Seccomp:", 10) == 2; /* a seccomp filter is installed */
    long long caps = status_field("CapEff:", 16);
    int privileged = caps > 0 && ((caps >> 38 & 1) || (caps >> 21 & 1)); /* CAP_PERFMON, CAP_SYS_ADMIN */
    char name_buf[32], paranoid_text[48] = "";
    if (paranoid != -100)
        snprintf(paranoid_text, sizeof paranoid_text, "kernel.perf_event_paranoid=%d allows it", paranoid);
    int n = snprintf(s.reason, sizeof s.reason, "sampling unavailable: perf_event_open: %s (%s)", strerror(err),
                     errno_name(err, name_buf, sizeof name_buf));
    char *rest = s.reason + n;
    size_t room = n > 0 && (size_t)n < sizeof s.reason ? sizeof s.reason - (size_t)n : 0;
    if (!room)
        return;
    switch (err) {
    case EACCES:
    case EPERM:
        if (paranoid > 2 && !privileged)
            snprintf(rest, room,
                     ": kernel.perf_event_paranoid=%d refuses it; sampling one's own process needs 2 or less "
                     "(sudo sysctl kernel.perf_event_paranoid=2) or CAP_PERFMON",
                     paranoid);
        else if (filtered)
            snprintf(rest, room,
                     ": this process runs under a seccomp filter, which refuses it (a container's: Docker's default "
                     "profile allows perf_event_open only with CAP_PERFMON or CAP_SYS_ADMIN)%s%s",
                     paranoid_text[0] ? "; " : "", paranoid_text);
        else
            snprintf(rest, room, ": a security module (SELinux, AppArmor) or the kernel's lockdown refuses it%s%s",
                     paranoid_text[0] ? "; " : "", paranoid_text);
        break;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        snprintf(rest, room, ": this kernel does not support the software cpu-clock event%s",
                 filtered ? " (or this process's seccomp filter answers so)" : "");
        break;
    case ENOSYS:
        snprintf(rest, room, ": this kernel has no perf events (CONFIG_PERF_EVENTS), or a sandbox hides them%s",
                 filtered ? " (this process runs under a seccomp filter)" : "");
        break;
    case EMFILE:
    case ENFILE:
        snprintf(rest, room, ": too many open files (ulimit -n)");
        break;
    default:
        if (filtered)
            snprintf(rest, room, ": this process runs under a seccomp filter, which may refuse it");
        break;
    }
}

/* The reason, for the servers (tc_sampling_unavailable); said on stderr only when one connects
 * (say_reason): sampling starts with the profiler, and a program nobody profiles stays quiet
 * where perf is refused (Debian's perf_event_paranoid 3, a container's seccomp filter). */
static void publish_reason(void)
{
    atomic_store_explicit(&s.has_reason, s.reason[0] != 0, memory_order_release);
}

/* The reason on stderr, once a process, when the first consumer (a server, or the in-process
 * capture) connects: the caller is tc_sampling_retry. */
static void say_reason(void)
{
    static int said;
    if (s.reason[0] && !said++)
        fprintf(stderr, "tracyc: %s\n", s.reason);
}

/* Opens the events for every thread (and, by inheritance, every later one). */
static int open_events(const struct tc_config *cfg)
{
    struct opener o = {0};
    struct perf_event_attr *a = &o.attr;
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    if (s.sampling) {
        int hz = cfg->sampling_hz;
        int max = read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", 0);
        if (max > 0 && hz > max)
            hz = max;
        /* cpu-clock counts nanoseconds of CPU time: a fixed period is the rate exactly, and
         * spares the kernel re-tuning a frequency on every tick. */
        a->config = PERF_COUNT_SW_CPU_CLOCK;
        a->sample_period = 1000000000u / (unsigned)hz;
        if (s.use_callchain) {
            a->sample_type |= PERF_SAMPLE_CALLCHAIN;
            a->exclude_callchain_kernel = 1;
            /* entries, the context marker included; more than the system's limit is refused */
            int max_stack = read_int_file("/proc/sys/kernel/perf_event_max_stack", 127);
            a->sample_max_stack = (uint16_t)(max_stack > 0 && max_stack < MAX_FRAMES ? max_stack : MAX_FRAMES);
        } else {
            a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
            a->sample_regs_user = tcn_sample_regs_mask();
            a->sample_stack_user = STACK_BYTES;
        }
        s.period_ns = 1000000000 / hz;
    } else {
        a->config = PERF_COUNT_SW_DUMMY;
    }
    a->sample_id_all = 1;
    a->context_switch = !cfg->no_context_switch;
    /* A dying thread's events are taken away before its last switch, which then has no
     * record: its exit record ends its last run instead. */
    a->task = !cfg->no_context_switch;
    a->disabled = 1;
    a->inherit = 1;
    a->inherit_thread = 1; /* threads only: no child process (Linux 5.13) */
    a->remove_on_exec = 1;
    a->exclude_kernel = 0;
    a->exclude_hv = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC_RAW;
    a->watermark = 1; /* wake the sampler when a quarter of the ring is used (the kernel caps
                       * it to the ring's size) */
    a->wakeup_watermark = TC_SAMPLING_WATERMARK_BYTES;

    tcu_fd_guard_begin(); /* (it opens a file in /sys) */
    o.ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    tcu_fd_guard_end(-1);
    if (o.ncpu < 1)
        o.ncpu = 1;
    struct rlimit lim;
    o.max_fds = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? lim.rlim_cur / 2 : 4096;
    s.rings = calloc((size_t)o.ncpu, sizeof *s.rings);
    if (!s.rings)
        return -1;
    s.nrings = o.ncpu;

    /* The profiler does not sample itself: not its own threads, nor those they start,
     * which inherit their (absent) events. */
    struct tids done = {0}, todo = {0};
    int result = 0;
    for (int attempt = 0;; attempt++) {
        for (int i = 0; i < o.ncpu; i++)
            s.rings[i] = (struct ring){.fd = -1, .cpu = i, .hung_fd = -1};
        done.n = todo.n = 0;
        o.err = 0;
        /* Until a pass finds no thread without events: a thread created meanwhile by one
         * that had none yet would otherwise be missed. The profiler's threads are read at
         * each pass: the worker runs meanwhile, and may start the resolver. */
        for (;;) {
            uint32_t own[TCU_MAX_OWN_THREADS];
            size_t nown = tcu_threads_own(own, TCU_MAX_OWN_THREADS);
            for (size_t i = 0; i < nown && i < TCU_MAX_OWN_THREADS; i++)
                if (!tids_has(&done, (pid_t)own[i]))
                    tids_add(&done, (pid_t)own[i]);
            todo.n = 0;
            new_threads(&done, &todo);
            if (!todo.n)
                break;
            for (size_t i = 0; i < todo.n && result == 0; i++) {
                result = open_thread(&o, todo.v[i]);
                tids_add(&done, todo.v[i]);
            }
            if (result != 0)
                break;
        }
        if (result >= 0)
            break;
        close_events();
        s.rings = calloc((size_t)o.ncpu, sizeof *s.rings);
        s.nrings = o.ncpu;
        if (!s.rings) {
            o.err = ENOMEM;
            explain_refusal(o.err);
            break;
        }
        result = 0;
        if ((o.err == EACCES || o.err == EPERM) && !a->exclude_kernel) {
            a->exclude_kernel = 1; /* user space only: allowed up to paranoid 2 */
            continue;
        }
        if (o.err == EINVAL && a->inherit_thread) {
            a->inherit_thread = 0; /* before Linux 5.13: child processes inherit too */
            a->remove_on_exec = 0;
            s.filter_pid = 1;
            continue;
        }
        if (o.err == EINVAL && s.sampling && a->sample_period < 1000000) {
            a->sample_period = 1000000; /* faster than the kernel allows right now */
            s.period_ns = 1000000;
            continue;
        }
        explain_refusal(o.err);
        result = -1;
        break;
    }
    if (result > 0)
        snprintf(s.reason, sizeof s.reason,
                 "sampling limited: %zu threads existed when sampling started, events for all of them need more "
                 "than half of the open file limit; the rest are not sampled",
                 done.n);
    free(done.v);
    free(todo.v);
    if (result < 0) {
        close_events();
        return -1;
    }
    for (size_t i = 0; i < s.nevents; i++)
        ioctl(s.events[i].fd, PERF_EVENT_IOC_ENABLE, 0);
    return 0;
}

/* ---- reading the rings --------------------------------------------------------------- */

static void refresh_clock_pair(void)
{
    if (!tc_clock_uses_tsc)
        return;
    int64_t t0 = tc_clock_now();
    int64_t ns = tc_clock_monotonic_raw_ns();
    int64_t t1 = tc_clock_now();
    s.tsc_ref = t0 + (t1 - t0) / 2;
    s.ns_ref = ns;
}

/* A perf time (CLOCK_MONOTONIC_RAW ns) on the profiler's clock. */
static int64_t to_ticks(int64_t ns)
{
    if (!tc_clock_uses_tsc)
        return ns;
    return s.tsc_ref + (int64_t)((double)(ns - s.ns_ref) / s.ns_per_tick);
}

static int queue_push(struct pending *p)
{
    if (s.queued == s.queue_cap) {
        size_t cap = s.queue_cap ? s.queue_cap * 2 : 256;
        struct pending **q = realloc(s.queue, cap * sizeof *q);
        if (!q)
            return -1;
        s.queue = q;
        s.queue_cap = cap;
    }
    s.queue[s.queued++] = p;
    return 0;
}

static void add_pending(int64_t time, uint32_t tid, uint8_t kind, uint8_t cpu, uint8_t in, uint8_t stopped,
                        const uint64_t *frames, int n)
{
    struct pending *p = malloc(sizeof *p + (size_t)n * sizeof *frames);
    if (!p) {
        atomic_fetch_add_explicit(&s.lost, 1, memory_order_relaxed);
        return;
    }
    *p = (struct pending){time, tid, kind, cpu, in, stopped, n};
    if (n)
        memcpy(p->frame, frames, (size_t)n * sizeof *frames);
    if (queue_push(p) != 0) {
        free(p);
        atomic_fetch_add_explicit(&s.lost, 1, memory_order_relaxed);
    }
}

/* The sample_id trailer of a non-sample record: pid, tid, time, cpu. */
static int sample_id(const uint8_t *p, const uint8_t *end, uint32_t *pid, uint32_t *tid, int64_t *time, uint32_t *cpu)
{
    if (end - p < 24)
        return -1;
    *pid = tcu_rd32(p);
    *tid = tcu_rd32(p + 4);
    *time = (int64_t)tcu_rd64(p + 8);
    *cpu = tcu_rd32(p + 16);
    return 0;
}

/* A thread of the profiler's that a program thread started (a binding's, such as Python's
 * sampling thread, tcu_thread_start) inherited the events: its records are the profiler's
 * own doing, left out as its other threads are. Left in, each of its wake-ups kept the
 * sampler and the worker busy in an idle program. */
static int own_thread(uint32_t tid)
{
    for (size_t i = 0; i < s.nown; i++)
        if (s.own[i] == tid)
            return 1;
    return 0;
}

/* After a pass has read the rings: the threads listed now (one started just before its
 * first record was written is listed by then: tcu_thread_start lists it under the lock
 * tcu_threads_own takes) and those joined since the pass before last (a join is numbered
 * once the kernel has released the thread, after its last record: one joined since that
 * pass's read began may have records in this pass). */
static void refresh_own_threads(void)
{
    size_t n = tcu_threads_own(s.own, TCU_MAX_OWN_THREADS);
    n = n < TCU_MAX_OWN_THREADS ? n : TCU_MAX_OWN_THREADS;
    uint64_t latest;
    n += tcu_threads_joined(s.joins_seen[1], s.own + n, TCU_RECENT_JOINS, &latest);
    s.nown = n;
    s.joins_seen[1] = s.joins_seen[0];
    s.joins_seen[0] = latest;
}

/* Drops the records of the profiler's threads among the queue's from `first` on (those of
 * this pass, checked against the threads refreshed after its read); returns how many. */
static size_t drop_own_records(size_t first)
{
    size_t kept = first;
    for (size_t i = first; i < s.queued; i++) {
        if (own_thread(s.queue[i]->tid))
            free(s.queue[i]);
        else
            s.queue[kept++] = s.queue[i];
    }
    size_t dropped = s.queued - kept;
    s.queued = kept;
    return dropped;
}

/* 1 when the sample is the program's (queued, or not unwound), 0 when it is not. A thread
 * already known as the profiler's is not unwound (drop_own_records has the last word). */
static int on_sample(const uint8_t *p, const uint8_t *end)
{
    /* TID, TIME, CPU, then CALLCHAIN (nr, ips) or REGS_USER (abi, regs) and STACK_USER
     * (size, data, dyn_size) */
    if (end - p < 32)
        return 0;
    uint32_t pid = tcu_rd32(p), tid = tcu_rd32(p + 4), cpu = tcu_rd32(p + 16);
    int64_t time = (int64_t)tcu_rd64(p + 8);
    p += 24;
    if ((s.filter_pid && pid != (uint32_t)s.pid) || own_thread(tid))
        return 0;
    if (atomic_load(&s.discarding))
        return 1; /* shutting down with nobody to take it (set before the stop) */
    if (!atomic_load_explicit(&s.consumed, memory_order_relaxed) && tc_buffer_full()) {
        /* Nobody drains the buffer: the sample would be unwound, then dropped at emit. */
        atomic_fetch_add_explicit(&s.dropped_at_limit, 1, memory_order_relaxed);
        return 1;
    }
    atomic_fetch_add_explicit(atomic_load(&s.stop) ? &s.unwound_at_stop : &s.unwound, 1, memory_order_relaxed);
    uint64_t frames[MAX_FRAMES];
    if (s.use_callchain) {
        uint64_t nr = tcu_rd64(p);
        p += 8;
        if (nr > (uint64_t)(end - p) / 8)
            return 0;
        int n = s.callchain ? tcn_sample_callchain_frames(s.callchain, p, nr, frames, MAX_FRAMES) : 0;
        if (n > 0)
            add_pending(time, tid, TC_REC_SAMPLE, (uint8_t)cpu, 0, 0, frames, n);
        return 1;
    }
    uint64_t abi = tcu_rd64(p);
    p += 8;
    int nregs = __builtin_popcountll(tcn_sample_regs_mask());
    uint64_t regs[64];
    if (abi == PERF_SAMPLE_REGS_ABI_NONE || end - p < nregs * 8 + 8)
        return 0; /* a kernel thread: none in a process of ours */
    memcpy(regs, p, (size_t)nregs * 8);
    p += nregs * 8;
    uint64_t size = tcu_rd64(p);
    p += 8;
    if ((uint64_t)(end - p) < size + (size ? 8 : 0))
        return 0;
    const uint8_t *stack = p;
    uint64_t dyn = size ? tcu_rd64(p + size) : 0;
    if (dyn > size)
        dyn = size;
    int n = s.unwinder ? tcn_sample_unwind(s.unwinder, tid, regs, stack, dyn, frames, MAX_FRAMES) : 0;
    if (n > 0)
        add_pending(time, tid, TC_REC_SAMPLE, (uint8_t)cpu, 0, 0, frames, n);
    return 1;
}

/* 1 when the record is the program's (kept, or counted as lost), 0 when it is not. */
static int on_record(const struct perf_event_header *h, const uint8_t *body, const uint8_t *end)
{
    uint32_t pid, tid, cpu;
    int64_t time;
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        return on_sample(body, end);
    case PERF_RECORD_SWITCH:
        if (sample_id(body, end, &pid, &tid, &time, &cpu) != 0 || (s.filter_pid && pid != (uint32_t)s.pid))
            return 0;
        int out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
        int preempted = out && (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        add_pending(time, tid, TC_REC_CONTEXT_SWITCH, (uint8_t)cpu, (uint8_t)!out,
                    preempted ? TC_STOPPED_PREEMPTED : TC_STOPPED_SLEEPING, NULL, 0);
        return 1;
    case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid, time, then the sample's id fields */
        if (end - body < 24 || sample_id(body + 24, end, &pid, &tid, &time, &cpu) != 0 ||
            (s.filter_pid && pid != (uint32_t)s.pid))
            return 0;
        add_pending(time, tid, TC_REC_CONTEXT_SWITCH, (uint8_t)cpu, 0, TC_STOPPED_EXITED, NULL, 0);
        return 1;
    case PERF_RECORD_LOST:
        if (end - body >= 16)
            atomic_fetch_add_explicit(&s.lost, tcu_rd64(body + 8), memory_order_relaxed);
        break;
    case PERF_RECORD_LOST_SAMPLES:
        if (end - body >= 8)
            atomic_fetch_add_explicit(&s.lost, tcu_rd64(body), memory_order_relaxed);
        break;
    default: /* throttling notices and the like */
        return 0;
    }
    return 1;
}

/* Takes every complete record out of the ring; returns how many were the program's. */
static size_t read_ring(struct ring *r)
{
    size_t count = 0;
    static uint8_t copy[65536]; /* a record that wraps around the end of the buffer */
    uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->page->data_tail;
    size_t mask = r->size - 1;
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        size_t at = tail & mask;
        if (at + sizeof h <= r->size) {
            memcpy(&h, r->data + at, sizeof h);
        } else {
            size_t first = r->size - at;
            memcpy(&h, r->data + at, first);
            memcpy((uint8_t *)&h + first, r->data, sizeof h - first);
        }
        if (h.size < sizeof h || tail + h.size > head)
            break;
        const uint8_t *rec = r->data + at;
        if (at + h.size > r->size) {
            size_t first = r->size - at;
            memcpy(copy, r->data + at, first);
            memcpy(copy + first, r->data, h.size - first);
            rec = copy;
        }
        count += (size_t)on_record(&h, rec + sizeof h, rec + h.size);
        tail += h.size;
    }
    __atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
    return count;
}

static int by_time(const void *a, const void *b)
{
    const struct pending *x = *(struct pending *const *)a, *y = *(struct pending *const *)b;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Writes the queued records up to `until` (perf clock) into the stream, in time order. */
static void emit(int64_t until)
{
    if (!s.queued)
        return;
    qsort(s.queue, s.queued, sizeof *s.queue, by_time);
    size_t i = 0;
    for (; i < s.queued && s.queue[i]->time <= until; i++) {
        struct pending *p = s.queue[i];
        size_t bytes = (size_t)p->frames * 8;
        union tc_rec *r = tc_stream_reserve(&s.stream, tc_rec_size(p->kind, bytes), 0);
        if (r) {
            if (p->kind == TC_REC_SAMPLE) {
                r->sample = (struct tc_rec_sample){
                    .type = TC_REC_SAMPLE, .len = (uint16_t)bytes, .thread = p->tid, .time = to_ticks(p->time)};
                memcpy(tc_rec_text(r), p->frame, bytes);
            } else {
                r->context_switch = (struct tc_rec_context_switch){.type = TC_REC_CONTEXT_SWITCH,
                                                                   .cpu = p->cpu,
                                                                   .thread = p->tid,
                                                                   .time = to_ticks(p->time),
                                                                   .in = p->in,
                                                                   .stopped = p->stopped};
            }
            tc_stream_commit(&s.stream);
        } else {
            /* The buffer limit: reported with the records the kernel dropped, not counted
             * with the program's own events. */
            atomic_fetch_add_explicit(&s.dropped_at_limit, 1, memory_order_relaxed);
        }
        free(p);
    }
    memmove(s.queue, s.queue + i, (s.queued - i) * sizeof *s.queue);
    s.queued -= i;
}

static size_t smallest_ring(void)
{
    size_t smallest = 0;
    for (int i = 0; i < s.nrings; i++)
        if (s.rings[i].page && (!smallest || s.rings[i].size < smallest))
            smallest = s.rings[i].size;
    return smallest;
}

/* The pass interval while records flow: the time a quarter of the smallest ring takes to
 * fill with samples, a stack copy each, from one CPU at the sampling rate. */
static int busy_poll_interval_ms(void)
{
    size_t smallest = smallest_ring();
    if (!s.sampling || s.period_ns <= 0) /* context switches alone: small records, rate unknown */
        return smallest >= RING_PAGES_MAX * 4096 ? POLL_MS_MAX : POLL_MS_MIN;
    int64_t bytes_per_s = (int64_t)(STACK_BYTES + 512) * (1000000000 / s.period_ns);
    int64_t ms = (int64_t)(smallest / 4) * 1000 / bytes_per_s;
    return ms > POLL_MS_MAX ? POLL_MS_MAX : ms < POLL_MS_MIN ? POLL_MS_MIN : (int)ms;
}

/* The wait before the next pass. A ring too small for its watermark to come before it is
 * full (the kernel caps the watermark to the ring's size: a locked-memory limit made it
 * small) wakes nobody: it is looked at at the busy pace, consumer or not, idle or not. With no
 * consumer, nobody waits for the records: the sampler sleeps until a ring's watermark or a
 * consumer's connection (tc_sampling_consumer) wakes it, if a stop can wake it too. */
static int next_wait_ms(int flowing, int busy_poll_ms, int watermark_early)
{
    if (!watermark_early)
        return busy_poll_ms;
    if (!atomic_load_explicit(&s.consumed, memory_order_relaxed) && atomic_load(&s.wake_fd) >= 0) {
        atomic_fetch_add_explicit(&s.untimed_waits, 1, memory_order_relaxed);
        return -1;
    }
    return flowing ? busy_poll_ms : IDLE_POLL_MS;
}

/* Shutting down with no consumer: the records left are freed, not unwound nor kept. */
static void discard_queue(void)
{
    for (size_t i = 0; i < s.queued; i++)
        free(s.queue[i]);
    s.queued = 0;
}

/* Polls, for ring `ring`, its next event after the one polled that has not hung up; none
 * (-1, which poll skips) when all have: then nothing writes into the ring any more (a thread
 * started later writes through the events of the thread that started it, which do not hang
 * up while it lives). An event never comes back from a hang-up. */
static void poll_next_live_event(struct pollfd *p, int ring)
{
    struct ring *r = &s.rings[ring];
    p->fd = -1;
    for (size_t i = r->polled + 1; i < s.nevents; i++) {
        struct pollfd probe = {s.events[i].fd, POLLIN, 0};
        if (s.events[i].ring != ring || (poll(&probe, 1, 0) == 1 && probe.revents & POLLHUP))
            continue;
        r->polled = i;
        p->fd = probe.fd;
        return;
    }
}

/* An event hangs up once its thread has exited and no thread started by it lives: the
 * kernel's perf_poll then answers POLLHUP at once, forever, whatever the ring holds, and
 * polled on it woke the sampler at once every time (a CPU burned). The ring's other events
 * still wake it at its watermark: one of them is polled instead. This pass reads the ring
 * as every pass does (and so whatever wake-up the probe of an event may have taken). */
static void on_hangups(struct pollfd *polls)
{
    for (int i = 0; i < s.nrings; i++) {
        struct pollfd *p = &polls[1 + i];
        if (!(p->revents & POLLHUP))
            continue;
        atomic_fetch_add_explicit(&s.hangups, 1, memory_order_relaxed);
        if (p->fd == s.rings[i].hung_fd)
            atomic_fetch_add_explicit(&s.hangups_again, 1, memory_order_relaxed);
        s.rings[i].hung_fd = p->fd;
        poll_next_live_event(p, i);
    }
}

static void *sampler_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the program's signals are for its threads */
    while (sem_wait(&s.opened) != 0)        /* EINTR */
        ;
    if (!s.nrings || atomic_load(&s.discarding))
        return NULL; /* the kernel refused the events, or nobody will take the records */
    /* Kept across pauses: building them reads every module. */
    if (s.sampling && !s.use_callchain && !s.unwinder)
        s.unwinder = tcn_sample_unwinder_new();
    if (s.sampling && s.use_callchain && !s.callchain)
        s.callchain = tcn_sample_callchain_new();
    /* The calibration waits until 20 ms after start-up, which a short program may not live
     * to see: its records wait in the rings meanwhile. */
    s.ns_per_tick = tc_clock_calibrate(20 * 1000000);
    refresh_clock_pair();
    /* polls[0] is the wake-up, polls[1 + i] ring i's event (-1, which poll skips: none) */
    int npolls = s.nrings + 1;
    struct pollfd *polls = s.polls = calloc((size_t)npolls, sizeof *polls);
    for (int i = 0; polls && i < npolls; i++) {
        const struct ring *r = i ? &s.rings[i - 1] : NULL;
        polls[i] = (struct pollfd){r ? (r->page ? r->fd : -1) : s.wake_fd, POLLIN, 0};
    }
    int busy_poll_ms = busy_poll_interval_ms(), watermark_early = smallest_ring() > TC_SAMPLING_WATERMARK_BYTES;
    s.nown = 0;
    s.joins_seen[0] = s.joins_seen[1] = s.joins_at_open; /* a thread joined before: no records */
    size_t got = 1;
    for (;;) {
        int stopping = atomic_load(&s.stop);
        if (!stopping && polls) {
            poll(polls, (nfds_t)npolls, next_wait_ms(got || s.queued, busy_poll_ms, watermark_early));
            atomic_fetch_add_explicit(&s.passes, 1, memory_order_relaxed);
            on_hangups(polls);
            eventfd_t woken;
            if (s.wake_fd >= 0 && polls[0].revents & POLLIN)
                eventfd_read(s.wake_fd, &woken); /* a consumer connected (stop is checked above) */
        } else if (!stopping) {
            usleep((useconds_t)busy_poll_ms * 1000); /* no memory to poll with: passes at the busy pace */
        }
        if (atomic_load(&s.discarding)) {
            discard_queue();
            break;
        }
        int64_t now = tc_clock_monotonic_raw_ns();
        refresh_clock_pair();
        if (s.unwinder)
            tcn_sample_unwinder_sync(s.unwinder);
        if (s.callchain)
            tcn_sample_callchain_sync(s.callchain);
        got = 0;
        size_t first_new = s.queued;
        for (int i = 0; i < s.nrings; i++)
            if (s.rings[i].page)
                got += read_ring(&s.rings[i]);
        refresh_own_threads();
        size_t dropped = drop_own_records(first_new);
        got = got > dropped ? got - dropped : 0;
        emit(stopping ? INT64_MAX : now - MERGE_DELAY_NS);
        if (stopping)
            break;
    }
    s.polls = NULL;
    free(polls);
    return NULL;
}

/* ---- control ------------------------------------------------------------------------- */

static void stop_locked(void)
{
    if (!s.running)
        return;
    for (size_t i = 0; i < s.nevents; i++)
        ioctl(s.events[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    atomic_store(&s.stop, 1);
    if (s.wake_fd >= 0)
        eventfd_write(s.wake_fd, 1);
    tcu_thread_join(s.thread);
    close_events();
    s.running = 0;
    atomic_store(&s.smallest_ring, 0);
    s.period_ns = 0;
}

static void start_locked(void)
{
    const struct tc_config *cfg = &tc_prof.config;
    s.sampling = !cfg->no_sampling;
    if (!s.sampling && cfg->no_context_switch)
        return; /* nothing asked for */
    /* Loads libdw (once): without it, or on an architecture the unwinder does not know,
     * the kernel walks the frame pointers instead. */
    s.use_callchain = s.sampling && (!tcn_sample_regs_mask() || !tcn_libdw());
    if (!s.stream_ready) {
        if (tc_stream_init(&s.stream) != 0)
            return;
        s.stream_ready = 1;
    }
    s.pid = getpid();
    atomic_store(&s.has_reason, 0);
    s.reason[0] = 0;
    atomic_store(&s.stop, 0);
    /* Made once and kept: a descriptor is low for a moment when made (util/fd.h). A wake-up
     * no sampler read (a stop's, or a consumer's while none ran) is read here. */
    eventfd_t stale;
    if (s.wake_fd < 0)
        s.wake_fd = tcu_fd_eventfd();
    else
        eventfd_read(s.wake_fd, &stale);
    /* The sampler thread exists before the events: a thread created by one that has events
     * inherits them, and the caller may be a program thread (tc_worker_start). */
    if (!s.opened_ready)
        s.opened_ready = sem_init(&s.opened, 0, 0) == 0;
    if (!s.opened_ready || tcu_thread_start(&s.thread, "tracyc sampler", sampler_main, NULL) != 0) {
        snprintf(s.reason, sizeof s.reason, "sampling unavailable: no thread for the sampler");
        atomic_store_explicit(&s.has_reason, 1, memory_order_release);
        return;
    }
    tcu_threads_joined(0, NULL, 0, &s.joins_at_open);
    if (open_events(cfg) != 0) {
        atomic_store(&s.refused, 1);
        atomic_store(&s.stop, 1);
        sem_post(&s.opened);
        tcu_thread_join(s.thread);
        publish_reason();
        return;
    }
    publish_reason(); /* limited: not every thread is sampled */
    atomic_store(&s.refused, 0);
    sem_post(&s.opened);
    s.running = 1;
    atomic_store(&s.smallest_ring, smallest_ring());
}

void tc_sampling_update(void)
{
    pthread_mutex_lock(&s.lock);
    int want = !atomic_load(&s.paused) && !s.finished;
    if (want && !s.running && !atomic_load(&s.refused))
        start_locked();
    else if (!want && s.running)
        stop_locked();
    pthread_mutex_unlock(&s.lock);
}

void tc_sampling_retry(void)
{
    atomic_store(&s.refused, 0);
    tc_sampling_update();
    pthread_mutex_lock(&s.lock);
    say_reason();
    pthread_mutex_unlock(&s.lock);
}

int64_t tc_sampling_period_ns(void)
{
    return s.running && s.sampling ? s.period_ns : 0;
}

const char *tc_sampling_unavailable(void)
{
    /* Read by threads other than the worker (which writes it under s.lock): only once whole. */
    return atomic_load_explicit(&s.has_reason, memory_order_acquire) ? s.reason : NULL;
}

uint64_t tc_sampling_lost(void)
{
    return atomic_load_explicit(&s.lost, memory_order_relaxed);
}

uint64_t tc_sampling_dropped_at_limit(void)
{
    return atomic_load_explicit(&s.dropped_at_limit, memory_order_relaxed);
}

struct tc_sampling_counts tc_sampling_counts(void)
{
    return (struct tc_sampling_counts){
        .untimed_waits = atomic_load_explicit(&s.untimed_waits, memory_order_relaxed),
        .passes = atomic_load_explicit(&s.passes, memory_order_relaxed),
        .hangups = atomic_load_explicit(&s.hangups, memory_order_relaxed),
        .hangups_again = atomic_load_explicit(&s.hangups_again, memory_order_relaxed),
        .unwound = atomic_load_explicit(&s.unwound, memory_order_relaxed),
        .unwound_at_stop = atomic_load_explicit(&s.unwound_at_stop, memory_order_relaxed),
        .smallest_ring = atomic_load(&s.smallest_ring),
    };
}

void tc_sampling_consumer(int connected)
{
    atomic_store(&s.consumed, connected);
    /* What the rings hold goes out now, not at their watermark. */
    int wake_fd = atomic_load(&s.wake_fd);
    if (connected && wake_fd >= 0)
        eventfd_write(wake_fd, 1);
}

struct tc_stream *tc_sampling_stream(void)
{
    return s.stream_ready ? &s.stream : NULL;
}

/* Pausing takes effect in the call: the events are disabled at once, so nothing after the
 * call is sampled however long the worker (woken to stop the sampler) takes; resuming
 * enables them again if the worker has not stopped them meanwhile, else it starts anew. */
static void set_paused(int paused)
{
    pthread_mutex_lock(&s.lock);
    atomic_store(&s.paused, paused);
    for (size_t i = 0; s.running && !s.finished && i < s.nevents; i++)
        ioctl(s.events[i].fd, paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
    pthread_mutex_unlock(&s.lock);
    tc_wake_worker_now();
}

int tc_sampling_resume(void)
{
    const struct tc_config *cfg = &tc_prof.config;
    set_paused(0);
    return !(cfg->no_sampling && cfg->no_context_switch) && !atomic_load(&s.refused);
}

void tc_sampling_pause(void)
{
    set_paused(1);
}

void tc_sampling_end(void)
{
    pthread_mutex_lock(&s.lock);
    s.finished = 1;
    for (size_t i = 0; s.running && i < s.nevents; i++)
        ioctl(s.events[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    pthread_mutex_unlock(&s.lock);
}

void tc_sampling_shutdown(int consumer)
{
    pthread_mutex_lock(&s.lock);
    s.finished = 1;
    atomic_store(&s.discarding, !consumer);
    stop_locked();
    tcn_sample_unwinder_free(s.unwinder);
    s.unwinder = NULL;
    tcn_sample_callchain_free(s.callchain);
    s.callchain = NULL;
    pthread_mutex_unlock(&s.lock);
}

/* The parent's sampler's memory, as it was at the fork: in the child, never used nor freed,
 * kept reachable here for a leak check (the last fork's: a followed child that forks again
 * puts its own here). */
static struct {
    struct pollfd *polls;
    struct tcn_sample_unwinder *unwinder;
    struct tcn_sample_callchain *callchain;
    struct pending **queue;
    struct ring *rings;
    struct event *events;
    struct tc_stream stream;
} parents;

void tc_sampling_forget_after_fork(void)
{
    pthread_mutex_init(&s.lock, NULL);
    /* The sampler thread is the parent's; the events stay the parent's too. So are its
     * unwinder and callchain reader: the fork may have caught the parent's sampler thread
     * changing them (libdw's caches, as a new module loads), so a child that profiles
     * (TRACYC_FOLLOW_FORK) makes its own, and never uses nor frees these copies. */
    parents.polls = s.polls;
    s.polls = NULL;
    parents.unwinder = s.unwinder;
    parents.callchain = s.callchain;
    s.unwinder = NULL;
    s.callchain = NULL;
    /* The records the parent had not sent yet, in its stream and its queue, are the
     * parent's: the child's capture starts without them (their chunks were charged to a
     * budget the child starts again: client/state.c). */
    memcpy(&parents.stream, &s.stream, sizeof s.stream);
    s.stream_ready = 0;
    parents.queue = s.queue;
    s.queue = NULL;
    s.queued = s.queue_cap = 0;
    atomic_store(&s.lost, 0);
    atomic_store(&s.dropped_at_limit, 0);
    atomic_store(&s.consumed, 0); /* the child's consumers are its own */
    /* The events' copies are closed. Their rings are not unmapped: the kernel does not copy
     * perf's mappings into a child (VM_DONTCOPY), and the range may hold what a handler that
     * ran before ours mapped since. */
    for (size_t i = 0; i < s.nevents; i++)
        close(s.events[i].fd);
    parents.rings = s.rings;
    parents.events = s.events;
    s.rings = NULL;
    s.events = NULL;
    s.nrings = 0;
    s.nevents = s.events_cap = 0;
    if (s.wake_fd >= 0)
        close(s.wake_fd);
    s.wake_fd = -1;
    s.running = 0;
    atomic_store(&s.smallest_ring, 0);
    s.opened_ready = 0; /* a post the parent's sampler had not taken yet: a new one at the next start */
}
