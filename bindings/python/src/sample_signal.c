/* sample_signal.c - a CPU clock per thread that sends the thread SIGURG, the handler that
 * takes the sample, and the ring each thread's samples wait in.
 *
 * The clock counts the thread's own CPU time, so a thread that sleeps or waits for I/O
 * gets no signal: off-CPU time is simply not sampled. It is a perf task-clock event
 * (hrtimer-driven, exact at any rate) whose overflow the kernel turns into SIGURG for its
 * thread (F_SETSIG, F_SETOWN_EX), or where perf is not allowed a POSIX CPU timer with
 * SIGEV_THREAD_ID (checked at the scheduler tick: at most CONFIG_HZ samples per second).
 *
 * SIGURG because its default action is to do nothing, so a late signal never kills, and
 * a standard signal is not queued: at most one is pending per thread, and the kernel
 * never falls back to SIGIO as it does when a queue of real-time signals is full. Signals
 * that are not ours (si_code and si_fd or si_value tell) go to the handler that was
 * installed before ours.
 *
 * Each slot has a ring of fixed-size space written by its thread's handler (the only
 * producer) and read by the drain thread (the only consumer), which the handler wakes
 * when the ring reaches half full (tp_sampler_wake).
 */
#include "sample.h"
#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_SIZE ((size_t)256 << 10)
#define FD_MAP_SIZE 65536
#define TIMER_MAGIC 0x7e5aull /* top 16 bits of a timer's si_value */

struct tp_slot tp_slots[TP_MAX_SLOTS];
_Atomic int tp_sampling_on;
_Atomic int tp_signal_changing;

/* perf fd -> slot index + 1 and the slot's gen (0: not ours now); fds ever used for
 * events, whose late signals are dropped rather than passed on. */
static _Atomic uint64_t fd_slot[FD_MAP_SIZE];
static _Atomic uint8_t fd_used[FD_MAP_SIZE];
/* The handler before ours, which gets the signals that are not ours: two copies, so that
 * a re-installation never changes the one a handler may be reading. */
static struct sigaction previous[2];
static _Atomic int previous_at;
static int installed;
static int clock_kind = -1;

struct tp_ring {
    _Atomic size_t head; /* written by the handler */
    _Atomic size_t tail; /* written by the drain thread */
    unsigned char data[];
};

struct record {
    int64_t time;
    uint16_t n; /* frames that follow */
    uint16_t flags;
    uint32_t unused;
};
#define RING_DATA (RING_SIZE - sizeof(struct tp_ring))
#define RECORD_MAX (sizeof(struct record) + TP_SAMPLE_MAX_DEPTH * sizeof(struct tp_frame_ref))

/* ---- the handler ------------------------------------------------------------------ */

static void take_sample(struct tp_slot *s)
{
    int64_t time = ___tracy_get_time();
    struct tp_ring *r = s->ring;
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t at = head % RING_DATA, used = head - tail;
    /* A record never wraps: too close to the end, the rest of the ring is skipped (the
     * drain thread skips it by the same rule). */
    size_t pad = RING_DATA - at < RECORD_MAX ? RING_DATA - at : 0;
    if (used + pad + RECORD_MAX > RING_DATA) {
        atomic_fetch_add_explicit(&s->lost, 1, memory_order_relaxed);
        return;
    }
    head += pad;
    at = pad ? 0 : at;
    struct record *rec = (struct record *)(r->data + at);
    unsigned flags;
    int n = tp_walk_stack((struct tp_frame_ref *)(rec + 1), TP_SAMPLE_MAX_DEPTH, &flags);
    rec->time = time;
    rec->n = (uint16_t)n;
    rec->flags = (uint16_t)flags;
    size_t next = head + sizeof *rec + (size_t)n * sizeof(struct tp_frame_ref);
    atomic_store_explicit(&r->head, next, memory_order_release);
    if (used < RING_DATA / 2 && next - tail >= RING_DATA / 2)
        sem_post(&tp_sampler_wake);
}

/* The slot a signal is for, with the gen it was sent under; NULL when it is not ours. */
static struct tp_slot *slot_of(const siginfo_t *si, uint32_t *gen, int *ours)
{
    uint64_t v = 0;
    *ours = 0;
    if (si->si_code == SI_TIMER) {
        uint64_t value = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
        if (value >> 48 != TIMER_MAGIC)
            return NULL;
        *ours = 1;
        v = ((value >> 16) & 0xffffffffu) << 32 | ((value & 0xffff) + 1);
    } else if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP && si->si_fd >= 0 && si->si_fd < FD_MAP_SIZE) {
        if (!atomic_load_explicit(&fd_used[si->si_fd], memory_order_relaxed))
            return NULL;
        *ours = 1;
        v = atomic_load_explicit(&fd_slot[si->si_fd], memory_order_acquire);
    }
    uint32_t index = (uint32_t)(v & 0xffffffffu);
    if (index == 0 || index > TP_MAX_SLOTS)
        return NULL;
    *gen = (uint32_t)(v >> 32);
    return &tp_slots[index - 1];
}

static void forward(int sig, siginfo_t *si, void *context)
{
    const struct sigaction *p = &previous[atomic_load(&previous_at)];
    if (p->sa_flags & SA_SIGINFO) {
        if (p->sa_sigaction)
            p->sa_sigaction(sig, si, context);
    } else if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
    } /* SIGURG's default is to do nothing */
}

static void on_signal(int sig, siginfo_t *si, void *context)
{
    int saved_errno = errno;
    uint32_t gen;
    int ours;
    struct tp_slot *s = slot_of(si, &gen, &ours);
    if (s) {
        atomic_fetch_add(&s->busy, 1);
        if (atomic_load(&s->gen) == gen && atomic_load_explicit(&tp_sampling_on, memory_order_relaxed) && s->ring)
            take_sample(s);
        atomic_fetch_sub(&s->busy, 1);
    } else if (!ours) {
        forward(sig, si, context);
    }
    errno = saved_errno;
}

/* ---- the handler's installation --------------------------------------------------- */

int tp_signal_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    struct sigaction old;
    if (sigaction(TP_SAMPLE_SIGNAL, &sa, &old) != 0)
        return -1;
    if (old.sa_sigaction != on_signal || !(old.sa_flags & SA_SIGINFO)) {
        int next = !atomic_load(&previous_at);
        previous[next] = old;
        atomic_store(&previous_at, next);
    }
    installed = 1;
    return 0;
}

int tp_signal_setup(void)
{
    if (tp_codes_init() != 0)
        return -1;
    return installed && tp_signal_check() ? 0 : tp_signal_install();
}

int tp_signal_check(void)
{
    struct sigaction now;
    if (sigaction(TP_SAMPLE_SIGNAL, NULL, &now) != 0)
        return 0;
    return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal;
}

/* ---- clocks ------------------------------------------------------------------------ */

static long perf_open(pid_t tid, unsigned hz)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK; /* the thread's CPU time, in ns */
    a.sample_period = 1000000000ull / hz;
    a.wakeup_events = 1; /* every overflow notifies: one signal per period */
    a.disabled = 1;
    a.exclude_kernel = 1; /* what perf_event_paranoid 2 allows to everyone */
    a.exclude_hv = 1;
    return syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

enum tp_clock tp_signal_clock(void)
{
    if (clock_kind < 0) {
        const char *forced = getenv("TRACER_SAMPLE_CLOCK");
        if (forced && strcmp(forced, "timer") == 0) {
            clock_kind = TP_CLOCK_TIMER;
        } else {
            tcu_fd_guard_begin();
            long fd = tcu_fd_guard_end((int)perf_open((pid_t)syscall(SYS_gettid), TP_SAMPLE_DEFAULT_HZ));
            clock_kind = fd >= 0 ? TP_CLOCK_PERF : TP_CLOCK_TIMER;
            if (fd >= 0)
                close((int)fd);
        }
    }
    return (enum tp_clock)clock_kind;
}

static int start_perf(struct tp_slot *s, uint32_t index, uint32_t gen, unsigned hz)
{
    tcu_fd_guard_begin();
    long fd = tcu_fd_guard_end((int)perf_open(s->tid, hz));
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = {F_OWNER_TID, s->tid};
    if (fd >= FD_MAP_SIZE || fcntl((int)fd, F_SETSIG, TP_SAMPLE_SIGNAL) != 0 ||
        fcntl((int)fd, F_SETOWN_EX, &owner) != 0 || fcntl((int)fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
        close((int)fd);
        errno = fd >= FD_MAP_SIZE ? EMFILE : errno;
        return -1;
    }
    atomic_store(&fd_used[fd], 1);
    atomic_store_explicit(&fd_slot[fd], (uint64_t)gen << 32 | (index + 1), memory_order_release);
    if (ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        atomic_store(&fd_slot[fd], 0);
        close((int)fd);
        return -1;
    }
    s->fd = (int)fd;
    return 0;
}

static int start_timer(struct tp_slot *s, uint32_t index, uint32_t gen, unsigned hz)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = TP_SAMPLE_SIGNAL;
    ev._sigev_un._tid = s->tid;
    ev.sigev_value.sival_ptr = (void *)(uintptr_t)(TIMER_MAGIC << 48 | (uint64_t)gen << 16 | index);
    clockid_t clock = (clockid_t)((~(unsigned)s->tid) << 3) | 6; /* the thread's CPU clock (CPUCLOCK_SCHED) */
    timer_t timer;
    if (timer_create(clock, &ev, &timer) != 0)
        return -1;
    long ns = 1000000000L / hz;
    struct itimerspec its = {{ns / 1000000000L, ns % 1000000000L}, {ns / 1000000000L, ns % 1000000000L}};
    if (timer_settime(timer, 0, &its, NULL) != 0) {
        timer_delete(timer);
        return -1;
    }
    s->timer = timer;
    s->has_timer = 1;
    return 0;
}

int tp_slot_open(pid_t tid, unsigned hz, uint32_t scan)
{
    uint32_t index = 0;
    while (index < TP_MAX_SLOTS && (atomic_load(&tp_slots[index].gen) & 1))
        index++;
    if (index == TP_MAX_SLOTS) {
        errno = ENOSPC;
        return -1;
    }
    struct tp_slot *s = &tp_slots[index];
    if (!s->ring) {
        void *p = mmap(NULL, RING_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        s->ring = p;
    }
    atomic_store(&s->ring->head, 0);
    atomic_store(&s->ring->tail, 0);
    s->tid = tid;
    s->fd = -1;
    s->has_timer = 0;
    s->seen = scan;
    s->native = 0;
    uint32_t gen = atomic_load(&s->gen) + 1;
    atomic_store(&s->gen, gen);
    if ((tp_signal_clock() == TP_CLOCK_PERF ? start_perf : start_timer)(s, index, gen, hz) == 0)
        return (int)index;
    int err = errno;
    atomic_store(&s->gen, gen + 1);
    errno = err;
    return -1;
}

void tp_slot_stop(struct tp_slot *s)
{
    if (!(atomic_load(&s->gen) & 1))
        return;
    atomic_fetch_add(&s->gen, 1); /* handlers from now on ignore signals sent for it */
    if (s->fd >= 0) {
        ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
        atomic_store(&fd_slot[s->fd], 0);
        close(s->fd);
        s->fd = -1;
    }
    if (s->has_timer) {
        timer_delete((timer_t)s->timer);
        s->has_timer = 0;
    }
    while (atomic_load(&s->busy)) /* a handler that saw the old gen finishes its sample */
        sched_yield();
}

void tp_slot_free(struct tp_slot *s)
{
    s->tid = 0; /* the ring stays for the slot's next thread */
}

void tp_slots_forget(void)
{
    /* The child has copies of the parent's perf fds (the same events, still enabled for
     * the parent's threads): close the copies, never disable them. POSIX timers are not
     * inherited. */
    for (int i = 0; i < TP_MAX_SLOTS; i++) {
        struct tp_slot *s = &tp_slots[i];
        if (atomic_load(&s->gen) & 1) {
            atomic_fetch_add(&s->gen, 1);
            if (s->fd >= 0) {
                atomic_store(&fd_slot[s->fd], 0);
                close(s->fd);
            }
            s->fd = -1;
            s->has_timer = 0;
            s->tid = 0;
            atomic_store(&s->busy, 0);
        }
    }
}

/* ---- draining ---------------------------------------------------------------------- */

void tp_ring_drain(struct tp_slot *s, tp_sample_fn fn, void *user)
{
    struct tp_ring *r = s->ring;
    if (!r)
        return;
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    while (tail != head) {
        size_t at = tail % RING_DATA;
        const struct record *rec = (const struct record *)(r->data + at);
        if (RING_DATA - at < RECORD_MAX) { /* the handler skipped the end of the ring */
            tail += RING_DATA - at;
            continue;
        }
        fn(s, rec->time, rec->flags, (const struct tp_frame_ref *)(rec + 1), rec->n, user);
        tail += sizeof *rec + (size_t)rec->n * sizeof(struct tp_frame_ref);
    }
    atomic_store_explicit(&r->tail, tail, memory_order_release);
}
