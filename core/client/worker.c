/* worker.c - the worker thread: accepts servers, drains the per-thread and serial
 * streams into every live connection, answers queries, and runs the shutdown sequence.
 *
 * Nothing is drained while no connection is live, so events recorded before a server
 * connects wait in their buffers (bounded by TRACYC_BUFFER_LIMIT) and are sent on
 * connect. Slot 0 is the in-process capture, slot 1 the TCP server.
 */
#include "client/worker.h"

#include "client/clock.h"
#include "client/conn.h"
#include "client/inproc.h"
#include "client/net.h"
#include "client/resolver.h"
#include "client/sampling.h"
#include "client/state.h"
#include "client/record.h"
#include "wire/protocol.h"

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

struct deferred {
    union tc_rec *rec;
    struct deferred *next;
};

static struct {
    pthread_t thread;
    int started;
    _Atomic int stop;
    int listen_fd;
    uint16_t port;
    struct tc_conn conns[TC_MAX_CONNS];
    struct tc_inproc *inproc;
    pthread_mutex_t request_lock;
    char *requested_output;
    int request_result; /* 0 pending/ok, -1 failed */
    struct deferred *deferred;
    int64_t last_broadcast;
} w = {.listen_fd = -1, .request_lock = PTHREAD_MUTEX_INITIALIZER};

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void sleep_ms(int ms)
{
    sleep_us(ms * 1000L);
}

/* Bytes per pass below which the worker pauses before the next pass. Reading a
 * thread's published position pulls its cache line away from the producing thread, so
 * short passes in a tight loop would slow the program down; a pause lets records pile up
 * and be drained in bulk. */
#define SMALL_PASS (64 * 1024)
/* Below this a pass is a trickle (CPU samples arrive at ~150 bytes a millisecond): waking
 * up more often than when idle would cost the program more than the data is worth. */
#define TRICKLE_PASS (4 * 1024)

static int conn_live(int slot)
{
    return w.conns[slot].alive;
}

static int any_live(void)
{
    return conn_live(SLOT_INPROC) || conn_live(SLOT_TCP);
}

/* Records that a new server must see again before later events refer to them. */
static int is_deferred(unsigned type)
{
    return type == TC_REC_LOCK_ANNOUNCE || type == TC_REC_LOCK_NAME || type == TC_REC_PLOT_CONFIG ||
           type == TC_REC_APP_INFO || type == TC_REC_GPU_NEW_CONTEXT || type == TC_REC_GPU_CONTEXT_NAME ||
           type == TC_REC_SECTION_SETUP;
}

/* The lock a deferred record describes, or UINT32_MAX. */
static uint32_t deferred_lock(const union tc_rec *r)
{
    if (r->any.type == TC_REC_LOCK_ANNOUNCE)
        return r->lock_announce.lock;
    if (r->any.type == TC_REC_LOCK_NAME)
        return r->lock_name.lock;
    return UINT32_MAX;
}

static void remember(const union tc_rec *r)
{
    if (r->any.type == TC_REC_LOCK_TERMINATE) {
        for (struct deferred **d = &w.deferred; *d;) {
            if (deferred_lock((*d)->rec) == r->lock_terminate.lock) {
                struct deferred *gone = *d;
                *d = gone->next;
                free(gone->rec);
                free(gone);
            } else {
                d = &(*d)->next;
            }
        }
        return;
    }
    if (!is_deferred(r->any.type))
        return;
    size_t size = tc_rec_size(r->any.type, r->any.len);
    struct deferred *d = malloc(sizeof *d);
    union tc_rec *copy = malloc(size);
    if (!d || !copy) {
        free(d);
        free(copy);
        return;
    }
    memcpy(copy, r, size);
    d->rec = copy;
    d->next = NULL;
    struct deferred **tail = &w.deferred;
    while (*tail)
        tail = &(*tail)->next;
    *tail = d;
}

/* Heap data a record owns, released once every connection has encoded it. */
static void release(const union tc_rec *r)
{
    if (r->any.type == TC_REC_ZONE_BEGIN_ALLOC)
        free(r->zone_begin_alloc.payload);
    else if (r->any.type == TC_REC_GPU_ZONE_BEGIN && r->gpu_zone_begin.alloc)
        free((void *)(uintptr_t)r->gpu_zone_begin.srcloc);
    else if (r->any.type == TC_REC_FRAME_IMAGE)
        free(r->frame_image.image);
}

static void release_all(const uint8_t *begin, const uint8_t *end, int serial)
{
    while (begin < end) {
        const union tc_rec *r = (const union tc_rec *)begin;
        if (serial)
            remember(r);
        release(r);
        begin += tc_rec_size(r->any.type, r->any.len);
    }
}

static void on_thread_records(void *user, const uint8_t *begin, const uint8_t *end)
{
    for (int i = 0; i < TC_MAX_CONNS; i++)
        tc_conn_records(&w.conns[i], user, begin, end);
    release_all(begin, end, 0);
}

static void on_serial_records(void *user, const uint8_t *begin, const uint8_t *end)
{
    (void)user;
    for (int i = 0; i < TC_MAX_CONNS; i++)
        tc_conn_records(&w.conns[i], NULL, begin, end);
    release_all(begin, end, 1);
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
    size_t n = tc_stream_drain(&tc_prof.serial, NULL, on_serial_records, NULL);
    for (struct tc_thread *t = head; t; t = t->next)
        n += tc_stream_drain(&t->stream, &t->mark, on_thread_records, t);
    struct tc_stream *samples = tc_sampling_stream(); /* their own time chain: any order */
    if (samples)
        n += tc_stream_drain(samples, NULL, on_serial_records, NULL);
    free_exited_threads();
    return n;
}

static void forget_connection_state(int slot)
{
    for (struct tc_thread *t = threads_head(); t; t = t->next) {
        t->conn_depth[slot] = 0;
        t->conn_fiber[slot] = 0;
    }
}

static void replay_deferred(struct tc_conn *c)
{
    for (struct deferred *d = w.deferred; d; d = d->next)
        tc_conn_record(c, NULL, d->rec);
}

static void open_connection(int slot, struct tc_transport *t)
{
    forget_connection_state(slot);
    /* Before the handshake: the welcome carries the sampling period. */
    tc_sampling_update(1);
    if (tc_conn_open(&w.conns[slot], t, slot) != 0)
        return;
    /* A server that hung up right after its hello must not swallow the buffered events:
     * its close is already waiting to be read. */
    if (tc_conn_serve_queries(&w.conns[slot], 0) < 0) {
        tc_conn_close(&w.conns[slot]);
        return;
    }
    replay_deferred(&w.conns[slot]);
    if (slot == SLOT_TCP)
        atomic_store(&tc_prof.connected, 1);
}

static void close_connection(int slot)
{
    tc_conn_close(&w.conns[slot]);
    forget_connection_state(slot);
    if (slot == SLOT_TCP)
        atomic_store(&tc_prof.connected, 0);
}

static void accept_server(void)
{
    if (w.listen_fd < 0 || conn_live(SLOT_TCP))
        return;
    if (tc_prof.config.broadcast) {
        int64_t now = tc_clock_monotonic_ns();
        if (now - w.last_broadcast > 3000000000LL) {
            tc_net_broadcast(w.port, (int32_t)((uint64_t)time(NULL) - tc_prof.epoch));
            w.last_broadcast = now;
        }
    }
    struct tc_transport *t = tc_net_accept(w.listen_fd);
    if (t)
        open_connection(SLOT_TCP, t);
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
    if (!w.inproc)
        fprintf(stderr, "tracyc: in-process capture disabled: %s\n", err);
    else
        open_connection(SLOT_INPROC, tc_inproc_transport(w.inproc));
    free(path);
}

static void service_connections(int timeout_ms)
{
    uint64_t dropped = atomic_load_explicit(&tc_prof.dropped, memory_order_relaxed);
    for (int i = 0; i < TC_MAX_CONNS; i++) {
        struct tc_conn *c = &w.conns[i];
        if (c->alive) {
            tc_conn_report_drops(c, dropped);
            tc_conn_report_sampling(c, tc_sampling_unavailable(), tc_sampling_lost(), 0);
            tc_enc_flush(&c->enc);
            tc_conn_serve_queries(c, timeout_ms);
        }
        /* A send may also have failed while records were being encoded. */
        if (c->transport && (!c->alive || c->terminated))
            close_connection(i);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "tracyc worker");
    atomic_store(&tc_prof.worker_tid, tc_current_tid());
    while (!atomic_load(&w.stop)) {
        start_requested_capture();
        accept_server();
        tc_sampling_update(any_live());
        size_t n = any_live() ? drain_all() : 0;
        service_connections(0);
        if (n < TRICKLE_PASS)
            sleep_ms(1);
        else if (n < SMALL_PASS)
            sleep_us(200);
    }
    return NULL;
}

int tc_worker_start(void)
{
    w.listen_fd = tc_net_listen(tc_prof.config.port, tc_prof.config.listen_any, &w.port);
    if (tc_prof.config.output)
        w.requested_output = strdup(tc_prof.config.output);
    if (pthread_create(&w.thread, NULL, worker_main, NULL) != 0)
        return -1;
    w.started = 1;
    return 0;
}

int tc_worker_capture_start(const char *path)
{
    pthread_mutex_lock(&w.request_lock);
    int busy = w.inproc != NULL || w.requested_output != NULL;
    if (!busy)
        w.requested_output = strdup(path);
    pthread_mutex_unlock(&w.request_lock);
    return busy ? -1 : 0;
}

/* The program is ending: zones still open (a thread blocked forever, exit() called inside
 * a zone) end now, marked so, or the server would wait for them and never finish. */
static void end_open_zones(struct tc_conn *c)
{
    static const char mark[] = "still open at exit";
    int64_t now = tc_clock_now();
    for (struct tc_thread *t = threads_head(); t; t = t->next) {
        if (!t->conn_depth[c->slot])
            continue;
        tc_enc_thread(&c->enc, t->tid);
        for (; t->conn_depth[c->slot]; t->conn_depth[c->slot]--) {
            tc_enc_zone_text(&c->enc, TCW_ZoneText, mark, sizeof mark - 1);
            tc_enc_zone_end(&c->enc, now);
        }
    }
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
    tc_conn_report_sampling(c, tc_sampling_unavailable(), tc_sampling_lost(), 1);
    end_open_zones(c);
    tc_enc_byte(&c->enc, TCW_Terminate);
    tc_enc_flush(&c->enc);
    int quiet_ms = 0;
    while (c->alive && !c->terminated && quiet_ms < FINAL_QUERY_WAIT_MS) {
        int answered = tc_conn_serve_queries(c, 10);
        /* Symbols still being resolved will be asked about: not quiet. */
        quiet_ms = answered > 0 || tc_conn_resolving(c) ? 0 : quiet_ms + 10;
    }
    int delivered = c->terminated || c->alive;
    close_connection(slot);
    return delivered;
}

void tc_worker_stop(void)
{
    if (!w.started)
        return;
    atomic_store(&w.stop, 1);
    pthread_join(w.thread, NULL);
    w.started = 0;
    /* The program is ending: its last samples go out with the rest, then no more. */
    tc_sampling_shutdown();
    start_requested_capture();
    for (;;) {
        /* TRACY_NO_EXIT: keep the data until a server has come for it... */
        while (tc_prof.config.no_exit && w.listen_fd >= 0 && !conn_live(SLOT_TCP)) {
            accept_server();
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
        if (delivered || !tc_prof.config.no_exit || w.listen_fd < 0)
            break;
    }
    tc_resolver_stop();
    if (w.inproc) {
        tc_inproc_finish(w.inproc);
        w.inproc = NULL;
    }
    if (w.listen_fd >= 0) {
        close(w.listen_fd);
        w.listen_fd = -1;
    }
}

void tc_worker_forget_after_fork(void)
{
    /* The worker thread does not exist in the child; its sockets belong to the parent. */
    w.started = 0;
    tc_sampling_forget_after_fork();
    if (w.listen_fd >= 0)
        close(w.listen_fd);
    w.listen_fd = -1;
    for (int i = 0; i < TC_MAX_CONNS; i++)
        if (w.conns[i].transport)
            tc_conn_close(&w.conns[i]);
    w.inproc = NULL;
}
