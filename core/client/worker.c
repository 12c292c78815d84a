/* worker.c - the worker thread: accepts servers, drains the per-thread and serial
 * streams into every live connection, answers queries, and runs the shutdown sequence.
 *
 * Nothing is drained while no connection is live, so events recorded before a server
 * connects wait in their buffers (bounded by TRACYC_BUFFER_LIMIT) and are sent on
 * connect. Slot 0 is the in-process capture, slot 1 the TCP server: one that connected to
 * the listening socket, or, with TRACYC_CONNECT, the collector the worker dialed (dial.c).
 */
#include "client/worker.h"

#include "client/clock.h"
#include "client/conn.h"
#include "client/dial.h"
#include "client/exit_signal.h"
#include "client/fiber.h"
#include "client/inproc.h"
#include "native/libdw.h"
#include "client/net.h"
#include "native/resolver.h"
#include "util/fd.h"
#include "util/monotonic.h"
#include "util/threads.h"
#include "client/sampling.h"
#include "client/state.h"
#include "client/record.h"
#include "client/replay.h"
#include "client/wake.h"
#include "wire/protocol.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOT_INPROC 0
#define SLOT_TCP 1
#define FINAL_QUERY_WAIT_MS 10000
/* Servers whose hello is still being read, without ever waiting for one of them. */
#define MAX_PENDING 4
#define HELLO_TIMEOUT_NS 2000000000LL
/* At exit, how long a connection that has not sent a byte yet may take to start its hello. */
#define EXIT_HELLO_GRACE_NS 200000000LL

struct pending_server {
    struct tc_transport *t;
    uint8_t hello[12];
    size_t got;
    int64_t since;  /* accepted at, tcu_monotonic_ns */
    uint64_t order; /* of acceptance */
};

static struct {
    pthread_t thread;
    int started;
    /* Held by tc_worker_start until it has started sampling: the worker waits for it, so the
     * program's thread never waits on the worker holding the sampling's lock (libdw, events). */
    pthread_mutex_t start_gate;
    _Atomic int stop;
    int listen_fd;
    uint16_t port;
    /* Accepting failed for want of descriptors (net.h): the socket is left out of the
     * worker's waits until then. */
    int64_t listen_paused_until, children_paused_until;
    struct tc_conn conns[TC_MAX_CONNS];
    struct tc_inproc *inproc;
    pthread_mutex_t request_lock;
    char *requested_output;
    int request_result; /* 0 pending/ok, -1 failed */
    int64_t last_broadcast;
    struct pending_server pending[MAX_PENDING];
    int npending;
    uint64_t accepted; /* connections accepted so far */
    int stalled;       /* the last pass left a thread waiting at a fiber for others */
    int quiet_wait_ms; /* connected: the next wait, longer after each pass that found nothing */
    /* The in-process capture collects the program's children (tc_worker_collect_children):
     * they dial this socket (TRACYC_CONNECT in the environment). Under request_lock: the
     * socket, and whether it is wanted no more (the worker closes it). */
    int children_fd;
    uint16_t children_port;
    int children_closing;
    int children_wanted; /* the capture, when it opens, collects */
    int capturing;       /* an in-process capture was asked for, and did not fail to open */
} w = {.listen_fd = -1,
       .children_fd = -1,
       .request_lock = PTHREAD_MUTEX_INITIALIZER,
       .start_gate = PTHREAD_MUTEX_INITIALIZER};

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void sleep_ms(int ms)
{
    sleep_us(ms * 1000L);
}

/* Bytes per pass below which the worker pauses before the next pass: reading a thread's
 * published position pulls its cache line away from the producing thread, so short passes
 * in a tight loop would slow the program down; a pause lets records pile up and be drained
 * in bulk. A pause is a sleep, not a wait for work: a waiting worker is woken by a stream
 * taking a new chunk, and that wake (an eventfd write, and the switch to the worker) costs
 * the recording thread more than the worker's sleep costs the worker. The pause is
 * BUSY_PAUSE_US: each costs the worker a switch (some 8 us of CPU on a VM), and at 5 M
 * zones a second a pause of 200 us took a seventh of the worker's time. */
#define SMALL_PASS (64 * 1024)
#define BUSY_PAUSE_US 1000
/* Below this a pass is a trickle (CPU samples arrive at ~150 bytes a millisecond): the
 * worker waits for more, or for TRICKLE_WAIT_MS, rather than cost the program a pass for
 * little data. */
#define TRICKLE_PASS (4 * 1024)
/* The pause while the memory kept for events is past half its limit (tc_buffer_pressed). */
#define PRESSED_PAUSE_US 200
/* How long the worker waits for work: a stream taking a new chunk (128 KiB recorded), a
 * server's query or connection, an answer of the resolver, a request or the stop wake it
 * sooner. While connected, events that trickle reach the server after this at most; with
 * no server, the wait ends only for the broadcast, a handshake's deadline or a new server.
 * While connected and nothing comes (an idle program), each empty pass doubles the wait up
 * to IDLE_WAIT_MS: the first event after a quiet spell may wait that long, the next ones
 * TRICKLE_WAIT_MS again. */
#define TRICKLE_WAIT_MS 50
#define IDLE_WAIT_MS 250

static int conn_live(int slot)
{
    return w.conns[slot].alive;
}

static int any_live(void)
{
    return conn_live(SLOT_INPROC) || conn_live(SLOT_TCP);
}

/* Heap data a record owns, released once every connection has encoded it. */
static void release(const union tc_rec *r)
{
    if (r->any.type == TC_REC_ZONE_BEGIN_ALLOC) {
        tc_buffer_free(r->zone_begin_alloc.payload, tc_srcloc_payload_size(r->zone_begin_alloc.payload));
    } else if (r->any.type == TC_REC_GPU_ZONE_BEGIN && r->gpu_zone_begin.alloc) {
        void *payload = (void *)(uintptr_t)r->gpu_zone_begin.srcloc;
        tc_buffer_free(payload, tc_srcloc_payload_size(payload));
    } else if (r->any.type == TC_REC_FRAME_IMAGE) {
        struct tc_frame_image *img = r->frame_image.image;
        tc_buffer_free(img, sizeof *img + img->size);
    }
}

static void release_all(const uint8_t *begin, const uint8_t *end, int serial)
{
    while (begin < end) {
        const union tc_rec *r = (const union tc_rec *)begin;
        if (serial)
            tc_replay_note(r);
        release(r);
        begin += tc_rec_size(r->any.type, r->any.len);
    }
}

static size_t on_thread_records(void *user, const uint8_t *begin, const uint8_t *end)
{
    end = tc_fiber_drain_limit(user, begin, end); /* a fiber's records in their order */
    for (int i = 0; i < TC_MAX_CONNS; i++)
        tc_conn_records(&w.conns[i], user, begin, end);
    /* Read after the records' publication was: set before any of them that owns heap data. */
    if (atomic_load_explicit(&((struct tc_thread *)user)->owns_heap, memory_order_relaxed))
        release_all(begin, end, 0);
    return (size_t)(end - begin);
}

static size_t on_serial_records(void *user, const uint8_t *begin, const uint8_t *end)
{
    (void)user;
    for (int i = 0; i < TC_MAX_CONNS; i++)
        tc_conn_records(&w.conns[i], NULL, begin, end);
    release_all(begin, end, 1);
    return (size_t)(end - begin);
}

static struct tc_thread *threads_head(void)
{
    pthread_mutex_lock(&tc_prof.threads_lock);
    struct tc_thread *t = tc_prof.threads;
    pthread_mutex_unlock(&tc_prof.threads_lock);
    return t;
}

static void free_exited_threads(void)
{
    pthread_mutex_lock(&tc_prof.threads_lock);
    for (struct tc_thread **p = &tc_prof.threads; *p;) {
        struct tc_thread *t = *p;
        if (atomic_load_explicit(&t->exited, memory_order_acquire) && tc_stream_empty(&t->stream)) {
            *p = t->next;
            tc_fiber_thread_gone(t);
            tc_stream_destroy(&t->stream);
            free(t);
        } else {
            p = &t->next;
        }
    }
    pthread_mutex_unlock(&tc_prof.threads_lock);
}

/* One pass: serial records first, then each thread's records up to a mark taken before
 * the serial drain, so an item never precedes a serial item (a GPU context, a lock
 * announcement) that the program recorded before it. Returns the bytes drained. */
static size_t drain_all(void)
{
    struct tc_thread *head = threads_head();
    for (struct tc_thread *t = head; t; t = t->next)
        tc_stream_mark(&t->stream, &t->mark);
    size_t n = tc_stream_drain(&tc_prof.serial, NULL, on_serial_records, NULL), progress;
    int waiting;
    do { /* again while a thread waits at a fiber for others that went on */
        progress = 0;
        waiting = 0;
        for (struct tc_thread *t = head; t; t = t->next) {
            progress += tc_stream_drain(&t->stream, &t->mark, on_thread_records, t);
            waiting |= t->stalled;
        }
        n += progress;
    } while (progress && waiting);
    w.stalled = waiting;
    for (struct tc_thread *t = head; t; t = t->next)
        tc_fiber_pass_end(t);
    struct tc_stream *samples = tc_sampling_stream(); /* their own time chain: any order */
    if (samples)
        n += tc_stream_drain(samples, NULL, on_serial_records, NULL);
    free_exited_threads();
    return n;
}

static void forget_fiber_state(struct tc_fiber *f, void *slot)
{
    f->conn_depth[*(int *)slot] = 0;
}

static void forget_connection_state(int slot)
{
    for (struct tc_thread *t = threads_head(); t; t = t->next) {
        t->conn_depth[slot] = 0;
        t->conn_fiber[slot] = NULL;
    }
    tc_fiber_each(forget_fiber_state, &slot);
}

static void open_connection(int slot, struct tc_transport *t, const uint8_t hello[12])
{
    forget_connection_state(slot);
    /* Before the handshake: the welcome carries the sampling period. */
    tc_sampling_retry();
    if (tc_conn_open(&w.conns[slot], t, slot, hello) != 0)
        return;
    /* A server that hung up right after its hello must not swallow the buffered events:
     * its close is already waiting to be read. */
    if (tc_conn_serve_queries(&w.conns[slot], 0) < 0) {
        tc_conn_close(&w.conns[slot]);
        return;
    }
    tc_replay_to(&w.conns[slot]);
    tc_sampling_consumer(1);
    w.quiet_wait_ms = TRICKLE_WAIT_MS; /* a new server gets what follows within TRICKLE_WAIT_MS */
    if (slot == SLOT_TCP)
        atomic_store(&tc_prof.connected, 1);
}

static void close_connection(int slot)
{
    tc_conn_close(&w.conns[slot]);
    forget_connection_state(slot);
    tc_sampling_consumer(any_live());
    if (slot == SLOT_TCP)
        atomic_store(&tc_prof.connected, 0);
}

static void drop_pending(int i)
{
    w.pending[i] = w.pending[--w.npending];
}

/* Reads what each pending server has sent of its 12-byte hello, never waiting. The first
 * whole hello gets the TCP slot (docs/protocol.md §3.1). A peer that closes, sends
 * something else, is still short of a hello HELLO_TIMEOUT_NS after it connected, or has
 * sent nothing by `silent_deadline` is dropped: one silent peer never holds up a real
 * server. */
static void advance_handshakes(int64_t silent_deadline)
{
    int64_t now = tcu_monotonic_ns();
    for (int i = 0; i < w.npending;) {
        struct pending_server *p = &w.pending[i];
        long n = p->got < sizeof p->hello ? p->t->recv(p->t, p->hello + p->got, sizeof p->hello - p->got, 0) : 0;
        if (n > 0)
            p->got += (size_t)n;
        int late =
            p->got < sizeof p->hello && (now - p->since > HELLO_TIMEOUT_NS || (p->got == 0 && now > silent_deadline));
        if (n < 0 || !tc_conn_hello_valid(p->hello, p->got) || late) {
            p->t->close(p->t);
            drop_pending(i);
            continue;
        }
        if (p->got == sizeof p->hello && !conn_live(SLOT_TCP)) {
            struct pending_server ready = *p;
            drop_pending(i);
            open_connection(SLOT_TCP, ready.t, ready.hello);
            if (conn_live(SLOT_TCP) && tc_dial_active())
                tc_dial_welcomed();
            continue;
        }
        i++;
    }
}

/* The pending peer that has sent nothing for the longest time, or -1. */
static int oldest_silent(void)
{
    int found = -1;
    for (int i = 0; i < w.npending; i++)
        if (w.pending[i].got == 0 && (found < 0 || w.pending[i].order < w.pending[found].order))
            found = i;
    return found;
}

/* Accepting failed for want of descriptors (errno): said once a process, on stderr; the
 * time until which the socket is left out of the worker's waits. */
static int64_t accept_paused(int64_t now, const char *what, uint16_t port)
{
    static int said;
    if (!said) {
        said = 1;
        fprintf(stderr, "tracyc: cannot accept %s on port %u now: %s; it waits until a descriptor is free\n", what,
                port, strerror(errno));
    }
    return now + TCU_ACCEPT_PAUSE_MS * 1000000LL;
}

/* Takes the connections waiting on the listening socket. When MAX_PENDING handshakes are
 * under way, the peer silent for longest makes room: a real server sends its hello at
 * once, so a crowd of silent peers cannot keep it waiting. While a server is live, later
 * ones wait (in the backlog, or here with their hello read) for their turn. */
static void accept_servers(void)
{
    int64_t now = tcu_monotonic_ns();
    while (!conn_live(SLOT_TCP)) {
        int evict = w.npending == MAX_PENDING ? oldest_silent() : -1;
        if (w.npending == MAX_PENDING && evict < 0)
            break;
        struct tc_transport *t = tc_net_accept(w.listen_fd);
        if (!t) {
            if (tcu_fd_accept_starved(errno))
                w.listen_paused_until = accept_paused(now, "a server's connection", w.port);
            break;
        }
        if (evict >= 0) {
            w.pending[evict].t->close(w.pending[evict].t);
            drop_pending(evict);
        }
        w.pending[w.npending++] = (struct pending_server){.t = t, .since = now, .order = w.accepted++};
    }
}

/* With TRACYC_CONNECT: while no collector is live or saying its hello, the next step of
 * dialing one; the call it took waits for its hello as a server that connected does. */
static void dial_collector(void)
{
    if (!tc_dial_active() || conn_live(SLOT_TCP) || w.npending)
        return;
    int64_t now = tcu_monotonic_ns();
    struct tc_transport *t = tc_dial_step(now);
    if (t)
        w.pending[w.npending++] = (struct pending_server){.t = t, .since = now, .order = w.accepted++};
}

static int can_have_server(void)
{
    return w.listen_fd >= 0 || tc_dial_active();
}

static void look_for_server(void)
{
    if (w.listen_fd >= 0) {
        if (tc_prof.config.broadcast && !conn_live(SLOT_TCP)) {
            int64_t now = tcu_monotonic_ns();
            if (now - w.last_broadcast > 3000000000LL) {
                tc_net_broadcast(w.port, (int32_t)((uint64_t)time(NULL) - tc_prof.epoch));
                w.last_broadcast = now;
            }
        }
        accept_servers();
    }
    dial_collector();
    if (w.npending)
        advance_handshakes(INT64_MAX);
}

/* At exit: a server that has connected (waiting in the backlog, or with its hello under
 * way) is served, not reset by the closing of the listening socket (issue 16, item 12). */
static void finish_handshakes(void)
{
    if (w.listen_fd < 0)
        return;
    int64_t silent_deadline = tcu_monotonic_ns() + EXIT_HELLO_GRACE_NS;
    for (;;) {
        if (tcu_monotonic_ns() < silent_deadline)
            accept_servers(); /* then no more newcomers: exit is not held up for long */
        advance_handshakes(silent_deadline);
        if (conn_live(SLOT_TCP) || w.npending == 0)
            return;
        sleep_ms(1);
    }
}

/* At exit, with TRACYC_CONNECT and no collector live: one more call, at once, whatever the
 * back-off. A collector that takes it has HELLO_TIMEOUT_NS for its hello, as any server; a
 * refusal ends the wait at once (a collector that is not there costs the exit nothing), and
 * a host that does not answer at all gets EXIT_HELLO_GRACE_NS. */
static void finish_dialing(void)
{
    if (!tc_dial_active() || conn_live(SLOT_TCP))
        return;
    tc_dial_hurry();
    int64_t deadline = tcu_monotonic_ns() + EXIT_HELLO_GRACE_NS;
    for (;;) {
        dial_collector();
        advance_handshakes(INT64_MAX);
        if (conn_live(SLOT_TCP) || (!w.npending && !tc_dial_connecting()))
            return;
        if (!w.npending && tcu_monotonic_ns() > deadline)
            return;
        sleep_ms(1);
    }
}

static void start_requested_capture(void)
{
    pthread_mutex_lock(&w.request_lock);
    char *path = w.requested_output;
    w.requested_output = NULL;
    pthread_mutex_unlock(&w.request_lock);
    if (!path)
        return;
    char err[256];
    w.inproc = tc_inproc_open(path, err, sizeof err);
    if (!w.inproc) {
        fprintf(stderr, "tracyc: in-process capture disabled: %s\n", err);
        pthread_mutex_lock(&w.request_lock);
        w.capturing = 0;
        pthread_mutex_unlock(&w.request_lock);
        tc_worker_collect_children(0); /* children would dial a socket nobody reads */
    } else {
        if (tc_prof.config.exit_signals)
            tc_exit_signals_catch();
        /* The in-process decoder's hello is there at once. */
        struct tc_transport *t = tc_inproc_transport(w.inproc);
        uint8_t hello[12];
        if (t->recv(t, hello, sizeof hello, 0) == (long)sizeof hello)
            open_connection(SLOT_INPROC, t, hello);
    }
    free(path);
}

/* The children that dialed the in-process capture's socket, once it can take them; the
 * socket closed when it is wanted no more. Returns the socket while children are
 * collected, else -1. */
static int take_children(void)
{
    pthread_mutex_lock(&w.request_lock);
    if (w.children_closing && w.children_fd >= 0) {
        close(w.children_fd);
        w.children_fd = -1;
    }
    w.children_closing = 0;
    int fd = w.children_fd, wanted = w.children_wanted;
    pthread_mutex_unlock(&w.request_lock);
    if (!w.inproc)
        return -1;
    if (wanted)
        tc_inproc_collect(w.inproc); /* at the first pass that has both (tried again when out of memory) */
    int collecting = fd >= 0 && tc_inproc_takes_children(w.inproc);
    if (collecting) {
        for (int child; (child = tc_net_accept_fd(fd)) >= 0;)
            tc_inproc_adopt(w.inproc, child);
        if (tcu_fd_accept_starved(errno))
            w.children_paused_until = accept_paused(tcu_monotonic_ns(), "a child's connection", w.children_port);
    }
    tc_inproc_step(w.inproc, 0);
    return collecting ? fd : -1;
}

static void service_connections(int timeout_ms)
{
    uint64_t dropped = atomic_load_explicit(&tc_prof.dropped, memory_order_relaxed);
    for (int i = 0; i < TC_MAX_CONNS; i++) {
        struct tc_conn *c = &w.conns[i];
        if (c->alive) {
            tc_conn_report_drops(c, dropped);
            tc_conn_report_sampling(c, tc_sampling_unavailable(), tc_sampling_lost(), tc_sampling_dropped_at_limit(),
                                    0);
            tc_conn_report_libdw(c, tcn_libdw_unavailable());
            tc_conn_send_renames(c);
            tc_conn_report_clock(c, 0);
            tcw_enc_flush(&c->enc);
            tc_conn_serve_queries(c, timeout_ms);
        }
        /* A send may also have failed while records were being encoded. */
        if (c->transport && (!c->alive || c->terminated))
            close_connection(i);
    }
}

/* A listening socket in a wait: left out (-1) until paused_until, and the wait no longer. */
static void watch_accepting(struct pollfd *p, int fd, int64_t paused_until, int64_t now, int *timeout_ms)
{
    int paused = now < paused_until;
    *p = (struct pollfd){paused ? -1 : fd, POLLIN, 0};
    int ms = (int)((paused_until - now) / 1000000) + 1;
    if (paused && (*timeout_ms < 0 || ms < *timeout_ms))
        *timeout_ms = ms;
}

/* Sleeps until there is work, or for timeout_ms: on the wake descriptor (wake.h), the
 * listening socket while no server is live, the servers whose hello is under way and the
 * live servers' sockets (their queries); with TRACYC_CONNECT, the connect under way or
 * the time of the next attempt (dial.h); while the in-process capture collects the
 * program's children, their socket (children_fd, or -1), and their connections and
 * timers in the same wait (the collector's step). */
static void wait_for_work(int timeout_ms, int children_fd)
{
    struct pollfd fds[4 + MAX_PENDING + TC_MAX_CONNS];
    nfds_t n = 0;
    int64_t now = tcu_monotonic_ns();
    fds[n++] = (struct pollfd){tc_wake_fd(), POLLIN, 0};
    if (w.listen_fd >= 0 && !conn_live(SLOT_TCP))
        watch_accepting(&fds[n++], w.listen_fd, w.listen_paused_until, now, &timeout_ms);
    for (int i = 0; i < w.npending; i++) /* a whole hello waits for the slot, not for bytes */
        if (w.pending[i].got < sizeof w.pending[i].hello)
            fds[n++] = (struct pollfd){w.pending[i].t->fd, POLLIN, 0};
    for (int i = 0; i < TC_MAX_CONNS; i++)
        if (conn_live(i) && w.conns[i].transport->fd >= 0)
            fds[n++] = (struct pollfd){w.conns[i].transport->fd, POLLIN, 0};
    if (tc_dial_active() && !conn_live(SLOT_TCP) && !w.npending) { /* as dial_collector steps */
        int dial_fd, ms = tc_dial_wait(now, &dial_fd);
        if (dial_fd >= 0)
            fds[n++] = (struct pollfd){dial_fd, POLLOUT, 0};
        if (ms >= 0 && ms < timeout_ms)
            timeout_ms = ms;
    }
    if (children_fd >= 0)
        watch_accepting(&fds[n++], children_fd, w.children_paused_until, now, &timeout_ms);
    if (tc_wake_wait_begin() && !atomic_load(&w.stop) && !tc_exit_signal_caught()) {
        if (w.inproc)
            tc_inproc_step_with(w.inproc, timeout_ms, fds, n);
        else
            poll(fds, n, timeout_ms);
    }
    tc_wake_wait_end();
}

/* At exit, with the worker stopped: until c's server sends something, the resolver has an
 * answer, or timeout_ms. */
static void wait_for_conn(struct tc_conn *c, int timeout_ms)
{
    struct pollfd fds[2] = {{tc_wake_fd(), POLLIN, 0}, {c->transport->fd, POLLIN, 0}};
    if (tc_wake_wait_begin())
        poll(fds, c->transport->fd >= 0 ? 2 : 1, timeout_ms);
    tc_wake_wait_end();
}

/* How long the next wait may be, at most (wait_for_work shortens it for a dial's next
 * attempt and the children's connections). A thread waiting at a fiber is counted in
 * passes (fiber.c). */
static int wait_ms(void)
{
    if (any_live() && w.stalled)
        return 1;
    return any_live() ? w.quiet_wait_ms : IDLE_WAIT_MS;
}

/* After a pass that drained n bytes: the wait while connected (wait_ms). */
static void note_pass(size_t n)
{
    int longer = w.quiet_wait_ms * 2;
    w.quiet_wait_ms = n || w.quiet_wait_ms < TRICKLE_WAIT_MS ? TRICKLE_WAIT_MS
                      : longer > IDLE_WAIT_MS                ? IDLE_WAIT_MS
                                                             : longer;
}

static void finish(void);

/* Ctrl-C or kill: the worker runs the shutdown the program's exit would have run, unless
 * that exit has begun it already (it then finishes it, and joins this thread). */
static void finish_on_exit_signal(void)
{
    int64_t now = tc_clock_now();
    int expected = TC_STATE_RUNNING;
    if (atomic_compare_exchange_strong(&tc_prof.state, &expected, TC_STATE_STOPPING)) {
        tc_prof.exit_time = now;
        tc_clock_calibrate_now(); /* as at exit: no event comes after now */
        finish();
        atomic_store(&tc_prof.state, TC_STATE_STOPPED);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&w.start_gate);
    pthread_mutex_unlock(&w.start_gate);
    tcn_resolver_set_notify(tc_wake_worker);
    while (!atomic_load(&w.stop) && !tc_exit_signal_caught()) {
        start_requested_capture();
        look_for_server();
        int children_fd = take_children();
        tc_sampling_update();
        size_t n = any_live() ? drain_all() : 0;
        service_connections(0);
        note_pass(n);
        if (n < TRICKLE_PASS)
            wait_for_work(wait_ms(), children_fd);
        else if (n < SMALL_PASS)
            sleep_us(tc_buffer_pressed() ? PRESSED_PAUSE_US : BUSY_PAUSE_US);
    }
    if (!atomic_load(&w.stop))
        finish_on_exit_signal();
    return NULL;
}

/* Said, as nothing else would show it: the program runs on, recording for no one (or for
 * its in-process capture). A port given by TRACY_PORT is tried alone, as upstream does. */
static void say_cannot_listen(uint16_t port, int err)
{
    if (port)
        fprintf(stderr, "tracyc: cannot listen on port %u (%s): no server can connect; TRACY_PORT=N for another\n",
                port, strerror(err));
    else
        fprintf(stderr, "tracyc: cannot listen on ports %u-%u (%s): no server can connect; TRACY_PORT=N for another\n",
                TCW_DEFAULT_PORT, TCW_DEFAULT_PORT + 19, strerror(err));
}

int tc_worker_start(void)
{
    if (tc_prof.config.connect_host)
        tc_dial_start(tc_prof.config.connect_host, tc_prof.config.connect_port);
    else
        w.listen_fd = tc_net_listen(tc_prof.config.port, tc_prof.config.listen_any, &w.port);
    if (!tc_prof.config.connect_host && !tc_prof.config.output && w.listen_fd < 0)
        say_cannot_listen(tc_prof.config.port, errno); /* (a program that profiles itself need not hear it) */
    if (tc_prof.config.output) {
        w.requested_output = strdup(tc_prof.config.output);
        w.capturing = 1;
        if (tc_prof.config.follow_fork)
            tc_worker_collect_children(1);
    }
    pthread_mutex_lock(&w.start_gate);
    if (tcu_thread_start(&w.thread, "tracyc worker", worker_main, NULL) != 0) {
        pthread_mutex_unlock(&w.start_gate);
        return -1;
    }
    w.started = 1;
    /* Sampling starts here, in the caller, whether or not a server is there yet: its
     * records wait for one as the program's events do. Not when the worker gets a CPU (a
     * program's busy threads may keep it waiting past a short run's end). After the worker
     * exists, which must not inherit the events; before the worker's first pass, which
     * would start it too (the gate). */
    tc_sampling_update();
    pthread_mutex_unlock(&w.start_gate);
    return 0;
}

int tc_worker_capture_start(const char *path)
{
    pthread_mutex_lock(&w.request_lock);
    int busy = w.inproc != NULL || w.requested_output != NULL;
    if (!busy) {
        w.requested_output = strdup(path);
        w.capturing = 1;
    }
    pthread_mutex_unlock(&w.request_lock);
    if (!busy)
        tc_wake_worker_now();
    return busy ? -1 : 0;
}

int tc_worker_collect_children(int on)
{
    pthread_mutex_lock(&w.request_lock);
    int rc = 0;
    if (!on) {
        w.children_wanted = 0;
        w.children_closing = w.children_fd >= 0;
        unsetenv("TRACYC_CONNECT");
    } else if (!w.capturing) {
        tc_set_error("no in-process capture to record the children into (TRACYC_OUTPUT or tracyc_capture_start)");
        rc = -1;
    } else {
        w.children_wanted = 1;
        w.children_closing = 0;
        if (w.children_fd < 0)
            w.children_fd = tc_net_listen_loopback(&w.children_port);
        if (w.children_fd < 0) {
            tc_set_error("no socket for the children: %s", strerror(errno));
            w.children_wanted = 0;
            rc = -1;
        } else {
            char address[32];
            snprintf(address, sizeof address, "127.0.0.1:%u", w.children_port);
            setenv("TRACYC_CONNECT", address, 1);
        }
    }
    pthread_mutex_unlock(&w.request_lock);
    if (rc == 0)
        tc_wake_worker_now(); /* to wait on the children's socket, or no more */
    return rc;
}

static void end_zones(struct tc_conn *c, uint32_t *depth, int64_t end)
{
    static const char mark[] = "still open at exit";
    for (; *depth; --*depth) {
        tcw_enc_zone_text(&c->enc, TCW_ZoneText, mark, sizeof mark - 1);
        tcw_enc_zone_end(&c->enc, end);
    }
}

static int64_t later(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

struct fiber_ends {
    struct tc_conn *conn;
    int64_t main_time; /* the latest time on the main thread, where fibers are entered */
};

static void end_fiber_zones(struct tc_fiber *f, void *arg)
{
    struct fiber_ends *fe = arg;
    struct tc_conn *c = fe->conn;
    if (!f->conn_depth[c->slot])
        return;
    int64_t end = later(later(tc_prof.exit_time, f->last_time), fe->main_time);
    tcw_enc_thread(&c->enc, tc_prof.main_tid);
    tcw_enc_fiber_enter(&c->enc, end, tc_conn_string_id(c, f->name), tc_prof.main_tid);
    end_zones(c, &f->conn_depth[c->slot], end);
    tcw_enc_fiber_leave(&c->enc, end, tc_prof.main_tid);
    fe->main_time = end;
}

/* The program is ending: zones still open (a thread blocked forever, exit() called inside
 * a zone) end, marked so, or the server would wait for them and never finish. They end
 * when the shutdown began (the program's exit), not now: joining the profiler's threads,
 * draining and waiting for a server take milliseconds. A thread that recorded after that
 * has its zones end after its last record, so each timeline stays in order. A thread's
 * own zones end outside any fiber, a fiber's zones inside it. */
static void end_open_zones(struct tc_conn *c)
{
    struct fiber_ends fe = {c, tc_prof.exit_time};
    for (struct tc_thread *t = threads_head(); t; t = t->next) {
        int64_t end = later(tc_prof.exit_time, t->last_time);
        if (t->tid == tc_prof.main_tid)
            fe.main_time = later(fe.main_time, end);
        if (!t->conn_depth[c->slot] && !t->conn_fiber[c->slot])
            continue;
        tcw_enc_thread(&c->enc, t->tid);
        if (t->conn_fiber[c->slot]) {
            tcw_enc_fiber_leave(&c->enc, end, t->tid);
            t->conn_fiber[c->slot] = NULL;
        }
        end_zones(c, &t->conn_depth[c->slot], end);
    }
    tc_fiber_each(end_fiber_zones, &fe);
}

/* Sends Terminate and answers queries until the server says it has everything, the
 * connection ends, or it has been quiet for FINAL_QUERY_WAIT_MS. Returns 0 when the
 * connection was lost first. */
static int finish_connection(int slot)
{
    struct tc_conn *c = &w.conns[slot];
    if (!c->alive)
        return 0;
    tc_conn_report_drops(c, atomic_load(&tc_prof.dropped));
    tc_conn_report_absent(c);
    tc_conn_report_sampling(c, tc_sampling_unavailable(), tc_sampling_lost(), tc_sampling_dropped_at_limit(), 1);
    tc_conn_report_libdw(c, tcn_libdw_unavailable());
    tc_conn_send_renames(c);
    tc_conn_report_clock(c, 1);
    end_open_zones(c);
    tcw_enc_byte(&c->enc, TCW_Terminate);
    tcw_enc_flush(&c->enc);
    int64_t quiet_since = tcu_monotonic_ns();
    while (c->alive && !c->terminated) {
        int answered = tc_conn_serve_queries(c, 0);
        int64_t now = tcu_monotonic_ns();
        /* Symbols still being resolved will be asked about: not quiet. */
        if (answered > 0 || tc_conn_resolving(c))
            quiet_since = now;
        else if (now - quiet_since >= FINAL_QUERY_WAIT_MS * 1000000LL)
            break;
        /* The answers the server waits for are resolved here (tcn_resolver_help: when the
         * resolver thread has not taken them yet and this thread may); else wait for the
         * server's next query or the resolver's next answer: the in-process capture's
         * queries all came with the last answers, so waiting on its transport would spin
         * while the resolver works. */
        if (answered == 0 && !tcn_resolver_help())
            wait_for_conn(c, 10);
    }
    int delivered = c->terminated || c->alive;
    close_connection(slot);
    return delivered;
}

/* At exit, with the in-process capture collecting children: those still connected are
 * given CHILDREN_GRACE_NS to finish (a child that has ended has sent everything: its data
 * and the end of its connection are read at once), then the socket is closed and the
 * capture stops the rest. */
#define CHILDREN_GRACE_NS 1000000000LL

static void finish_children(void)
{
    int64_t deadline = tcu_monotonic_ns() + CHILDREN_GRACE_NS;
    while (w.inproc && w.children_fd >= 0 && tc_inproc_takes_children(w.inproc)) {
        for (int child; (child = tc_net_accept_fd(w.children_fd)) >= 0;)
            tc_inproc_adopt(w.inproc, child);
        /* (looked at before the wait: with no child connected there is nothing to wait for) */
        if (tc_inproc_step(w.inproc, 0) == 0 || tcu_monotonic_ns() > deadline || tc_inproc_step(w.inproc, 10) == 0)
            break;
    }
    if (w.children_fd >= 0)
        close(w.children_fd);
    w.children_fd = -1;
}

/* The shutdown sequence, with the worker's loop over: on the thread stopping the profiler
 * (the program's exit), or on the worker itself after an exit signal. */
static void finish(void)
{
    /* The program is ending: its last samples go out with the rest, then no more. The
     * symbols asked for from now on are resolved here, while waiting for them, when this
     * thread's stack has room for it. */
    tcn_resolver_go_threadless();
    tc_sampling_end();
    start_requested_capture();
    finish_handshakes();
    finish_dialing();
    /* With nothing to take them, the last samples are not unwound for nothing. */
    tc_sampling_shutdown(any_live() || (tc_prof.config.no_exit && can_have_server()));
    for (;;) {
        /* TRACY_NO_EXIT: keep the data until a server has come for it... */
        while (tc_prof.config.no_exit && can_have_server() && !conn_live(SLOT_TCP)) {
            look_for_server();
            if (!conn_live(SLOT_TCP))
                sleep_ms(10);
        }
        int delivered = 1;
        if (any_live()) {
            /* Threads may still be recording; a few passes catch up with them. */
            for (int pass = 0; pass < 64 && drain_all() > 0; pass++)
                service_connections(0);
            delivered = finish_connection(SLOT_TCP);
            finish_connection(SLOT_INPROC);
        }
        /* ...and when that server went away before it had everything, for the next one. */
        if (delivered || !tc_prof.config.no_exit || !can_have_server())
            break;
    }
    tcn_resolver_stop();
    finish_children();
    if (w.inproc) {
        tc_inproc_finish(w.inproc); /* says on stderr when it failed */
        w.inproc = NULL;
    }
    for (int i = w.npending - 1; i >= 0; i--) {
        w.pending[i].t->close(w.pending[i].t);
        drop_pending(i);
    }
    if (w.listen_fd >= 0) {
        close(w.listen_fd);
        w.listen_fd = -1;
    }
    tc_dial_stop();
    tc_net_broadcast_close();
    tc_exit_signal_finish(); /* when a signal asked for this shutdown: the program ends by it */
}

void tc_worker_stop(void)
{
    if (!w.started)
        return;
    atomic_store(&w.stop, 1);
    tc_wake_worker_now();
    tcu_thread_join(w.thread);
    w.started = 0;
    finish();
}

/* The parent's connections, its in-process capture and the request for one, as they were at
 * the fork: in the child their sockets are closed, their memory kept for its leak check
 * (lifecycle.c, after_fork_child). */
static struct tc_conn parents_conns[TC_MAX_CONNS];
static struct pending_server parents_pending[MAX_PENDING];
static struct tc_inproc *parents_inproc;
static char *parents_request;

void tc_worker_forget_after_fork(void)
{
    /* The worker thread does not exist in the child; its sockets belong to the parent. */
    w.started = 0;
    tc_wake_forget_after_fork();
    tc_sampling_forget_after_fork();
    if (w.listen_fd >= 0)
        close(w.listen_fd);
    w.listen_fd = -1;
    tc_dial_forget_after_fork();
    tc_net_broadcast_close();
    if (w.children_fd >= 0)
        close(w.children_fd);
    w.children_fd = -1;
    w.children_wanted = 0;
    w.children_closing = 0;
    w.capturing = 0;
    /* A profiler of the child's own (TRACYC_FOLLOW_FORK) starts from here. */
    pthread_mutex_init(&w.request_lock, NULL);
    pthread_mutex_init(&w.start_gate, NULL);
    parents_request = w.requested_output;
    w.requested_output = NULL;
    atomic_store(&w.stop, 0);
    for (int i = 0; i < TC_MAX_CONNS; i++)
        if (w.conns[i].transport && w.conns[i].transport->fd >= 0)
            close(w.conns[i].transport->fd);
    for (int i = 0; i < w.npending; i++)
        close(w.pending[i].t->fd);
    memcpy(parents_conns, w.conns, sizeof w.conns);
    memcpy(parents_pending, w.pending, sizeof w.pending);
    memset(w.conns, 0, sizeof w.conns);
    w.npending = 0;
    parents_inproc = w.inproc;
    w.inproc = NULL;
    tc_frames_forget_after_fork();
}
