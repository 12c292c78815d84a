/* collector.c - many clients into one trace (collector.h). */
#include "capture/collector.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/sockets.h"
#include "trace/names.h"
#include "util/array.h"
#include "util/fd.h"
#include "util/host_id.h"

#define RECV_CHUNK (256 * 1024)
#define SCAN_EVERY_S 0.5
#define SCAN_HANDSHAKE_S 2.0    /* a port that holds no free Tracy client answers nothing */
#define ACCEPT_HANDSHAKE_S 10.0 /* a dial-out client answers the hello at once */
#define CLOCK_STEADY_NS 1000    /* a clock estimate that moved less is not applied again */
#define OFFSET_LIMIT 4.6e18     /* a source's offset, within what int64_t holds with room */

/* A connection and what it feeds. */
struct entry {
    struct tcs_client pub;
    struct tcs_collector *owner;
    struct tcs_session *session; /* NULL once ended */
    struct tcd_decoder *dec;
    struct tcs_clock clock;
    int64_t latest;  /* the latest event time of the bytes being fed, -1 none */
    int clock_dirty; /* the estimate changed since it was last applied */
    int64_t applied_offset, applied_error;
    double applied_scale;
    int applied;
    char host[256];
    char why[512];
};

struct listener {
    int fd;
    uint16_t port;
    double paused_until; /* accepting failed for want of descriptors: not polled until then */
    int starved;         /* since the last connection accepted (said once to on_accept_failed) */
};

struct scan {
    char host[256];
    uint16_t first, last;
    double next_at;
};

struct tcs_collector {
    struct tcs_collector_options opt;
    uint64_t host_id;
    struct entry **entries; /* live connections and clients */
    size_t entry_count, entry_cap;
    struct entry **clients; /* those that sent a welcome, in that order */
    size_t client_count, client_cap;
    uint32_t connections; /* made so far: the next one's index */
    struct listener *listeners;
    size_t listener_count, listener_cap;
    struct scan *scans;
    size_t scan_count, scan_cap;
    struct tcs_clock_line reference; /* the owner's (has_reference) */
    int has_reference;
    struct pollfd *fds;
    size_t fd_cap;
    uint8_t *buf;
};

/* ---- the clock -------------------------------------------------------------------------- */

/* The line of the client that gives the trace its clock when the owner gave none. */
static const struct entry *reference_client(const struct tcs_collector *c)
{
    return c->has_reference || !c->client_count ? NULL : c->clients[0];
}

/* One reading of a client on this host (a short-lived one that ended before it was asked
 * again) places it exactly at that reading; away from it, by its calibration (clock.h). */
static void single_reading_error(const struct tcs_collector *c, const struct entry *e, struct tcs_clock_line *line)
{
    if (e->clock.method == TCS_CLOCK_READINGS && e->pub.source >= 0)
        tcs_clock_bound_error(line, tct_trace_source(c->opt.trace, (uint32_t)e->pub.source)->last_time);
}

/* Puts a client on the trace's clock: trace time = ref.t0 + (raw - ref.raw0) / ref.rate,
 * with raw = line.raw0 + (t - line.t0) * line.rate. */
static void apply_clock(struct tcs_collector *c, struct entry *e)
{
    if (e->pub.source < 0)
        return;
    struct tcs_clock_line own, ref;
    int64_t offset = 0, error = -1;
    double scale = 1.0;
    const struct entry *rc = reference_client(c);
    if (rc == e) {
        error = 0; /* its times are the trace's */
        e->pub.clock_error = 0;
    } else if (tcs_clock_line(&e->clock, &own) == 0 &&
               (c->has_reference ? (ref = c->reference, 1) : rc && tcs_clock_line(&rc->clock, &ref) == 0)) {
        single_reading_error(c, e, &own);
        if (rc)
            single_reading_error(c, rc, &ref);
        /* in double: a hostile client's readings may be anything. Rounded and bounded by hand:
         * libtracyc links without libm (the in-process capture runs this; tests/e2e/static_link.sh) */
        double at = (double)ref.t0 + ((double)own.raw0 - (double)ref.raw0 - (double)own.t0 * own.rate) / ref.rate;
        offset = !(at >= -OFFSET_LIMIT) ? (int64_t)-OFFSET_LIMIT /* NaN too */
                 : at > OFFSET_LIMIT    ? (int64_t)OFFSET_LIMIT
                                        : (int64_t)(at < 0 ? at - 0.5 : at + 0.5);
        scale = own.rate / ref.rate;
        double sum = (double)own.error + (double)ref.error;
        error = own.error < 0 || ref.error < 0 ? -1 : (int64_t)(sum < OFFSET_LIMIT ? sum : OFFSET_LIMIT);
        e->pub.clock_error = error;
    } else {
        e->pub.clock_error = -1;
    }
    e->pub.clock = e->clock.method;
    if (e->applied && fabs((double)offset - (double)e->applied_offset) < CLOCK_STEADY_NS &&
        fabs(scale - e->applied_scale) < 1e-9 && (error < 0) == (e->applied_error < 0) &&
        fabs((double)error - (double)e->applied_error) < CLOCK_STEADY_NS)
        return;
    e->applied = 1;
    e->applied_offset = offset;
    e->applied_scale = scale;
    e->applied_error = error;
    tct_trace_set_source_clock(c->opt.trace, (uint32_t)e->pub.source, offset, scale, error);
}

/* A client's estimate changed: it, and everyone when it is the reference. */
static void clock_changed(struct tcs_collector *c, struct entry *e)
{
    e->clock_dirty = 0;
    if (reference_client(c) != e) {
        apply_clock(c, e);
        return;
    }
    for (size_t i = 0; i < c->client_count; i++)
        apply_clock(c, c->clients[i]);
}

void tcs_collector_set_reference(struct tcs_collector *c, const struct tcs_clock_line *line)
{
    c->reference = *line;
    c->has_reference = 1;
    for (size_t i = 0; i < c->client_count; i++)
        apply_clock(c, c->clients[i]);
}

/* ---- events ----------------------------------------------------------------------------- */

static void on_event(void *user, const struct tcd_event *ev)
{
    struct entry *e = user;
    if (e->pub.source < 0)
        return;
    switch (ev->kind) {
    case TCD_CLOCK_SYNC: /* a tracyc client's clocks, read together (docs/protocol.md §28) */
        tcs_clock_reading(&e->clock, ev->time, (int64_t)ev->value, ev->time2, ev->address, ev->id, tcs_raw_ns(),
                          tcs_real_ns());
        e->clock_dirty = 1;
        break;
    case TCD_ZONE_BEGIN:
    case TCD_ZONE_END:
    case TCD_MESSAGE:
    case TCD_PLOT:
    case TCD_FRAME_MARK:
        if (ev->time > e->latest)
            e->latest = ev->time;
        break;
    default:
        break;
    }
    tct_trace_on_event(e->owner->opt.trace, (uint32_t)e->pub.source, ev);
}

static int on_welcome(void *user, struct tcs_session *s, const struct tcd_welcome *w, char *why, size_t whylen)
{
    (void)s;
    struct entry *e = user;
    struct tcs_collector *c = e->owner;
    if (c->opt.on_client && c->opt.on_client(c->opt.user, &e->pub, w, why, whylen) != 0)
        return -1;
    struct entry **grown = tcu_grow(NULL, c->clients, &c->client_cap, c->client_count + 1, sizeof *c->clients);
    struct tct_names names;
    tct_names_from_decoder(&names, e->dec);
    int source = grown ? tct_trace_add_source(c->opt.trace, &names, 0) : -1;
    if (grown)
        c->clients = grown;
    if (source < 0) {
        snprintf(why, whylen, "out of memory for another client");
        return -1;
    }
    e->pub.source = source;
    c->clients[c->client_count++] = e;
    tcs_clock_welcome(&e->clock, w, tcs_raw_ns(), tcs_real_ns());
    clock_changed(c, e);
    return 0;
}

/* ---- connections -------------------------------------------------------------------------- */

static struct entry *entry_new(struct tcs_collector *c, const char *host, uint16_t port)
{
    struct entry **grown = tcu_grow(NULL, c->entries, &c->entry_cap, c->entry_count + 1, sizeof *c->entries);
    if (!grown)
        return NULL;
    c->entries = grown;
    struct entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    e->dec = tcd_decoder_new(&callbacks, e, c->opt.limits);
    if (!e->dec) {
        free(e);
        return NULL;
    }
    e->owner = c;
    e->latest = -1;
    snprintf(e->host, sizeof e->host, "%s", host);
    e->pub = (struct tcs_client){.index = c->connections++,
                                 .source = -1,
                                 .host = e->host,
                                 .port = port,
                                 .why = e->why,
                                 .dec = e->dec,
                                 .clock_error = -1};
    tcs_clock_init(&e->clock, c->host_id);
    return e;
}

static void entry_free(struct entry *e)
{
    tcs_session_free(e->session);
    tcd_decoder_free(e->dec);
    free(e);
}

/* Takes a new entry whose session was made (or frees it when none could be). */
static int entry_add(struct tcs_collector *c, struct entry *e)
{
    if (!e->session) {
        entry_free(e);
        return -1;
    }
    e->pub.state = tcs_session_state(e->session);
    c->entries[c->entry_count++] = e;
    return 0;
}

int tcs_collector_connect(struct tcs_collector *c, const char *host, uint16_t port, uint32_t protocol, double retry_s,
                          char *err, size_t errlen)
{
    struct entry *e = entry_new(c, host, port);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const struct tcs_session_hooks hooks = {on_welcome, e};
    e->session = tcs_session_connect(e->dec, host, port, protocol, retry_s, 0, &hooks, err, errlen);
    return entry_add(c, e);
}

int tcs_collector_adopt(struct tcs_collector *c, int fd, const char *host, uint16_t port)
{
    struct entry *e = entry_new(c, host, port);
    if (!e) {
        close(fd);
        return -1;
    }
    e->pub.accepted = 1;
    const struct tcs_session_hooks hooks = {on_welcome, e};
    e->session = tcs_session_accept(e->dec, fd, e->host, port, ACCEPT_HANDSHAKE_S, &hooks);
    return entry_add(c, e);
}

static void accept_all(struct tcs_collector *c, struct listener *l, double now)
{
    for (;;) {
        char peer[256];
        uint16_t peer_port;
        int fd = tcs_accept(l->fd, peer, sizeof peer, &peer_port);
        if (fd < 0 && tcu_fd_accept_starved(errno)) {
            l->paused_until = now + TCU_ACCEPT_PAUSE_MS / 1000.0;
            if (!l->starved && c->opt.on_accept_failed)
                c->opt.on_accept_failed(c->opt.user, l->port, errno);
            l->starved = 1;
        }
        if (fd < 0)
            return;
        l->starved = 0;
        if (tcs_collector_adopt(c, fd, peer, peer_port) != 0)
            return;
    }
}

int tcs_collector_listen(struct tcs_collector *c, const char *host, uint16_t port, uint16_t *bound, char *err,
                         size_t errlen)
{
    struct listener *grown =
        tcu_grow(NULL, c->listeners, &c->listener_cap, c->listener_count + 1, sizeof *c->listeners);
    if (!grown) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->listeners = grown;
    uint16_t got = 0;
    int fd = tcs_listen(host, port, &got, err, errlen);
    if (fd < 0)
        return -1;
    c->listeners[c->listener_count++] = (struct listener){.fd = fd, .port = got};
    if (bound)
        *bound = got;
    return 0;
}

int tcs_collector_scan(struct tcs_collector *c, const char *host, uint16_t first, uint16_t last, char *err,
                       size_t errlen)
{
    if (first > last || !first) {
        snprintf(err, errlen, "ports %u-%u: not a range of ports", first, last);
        return -1;
    }
    struct scan *grown = tcu_grow(NULL, c->scans, &c->scan_cap, c->scan_count + 1, sizeof *c->scans);
    if (!grown) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->scans = grown;
    struct scan *s = &c->scans[c->scan_count++];
    snprintf(s->host, sizeof s->host, "%s", host);
    s->first = first;
    s->last = last;
    s->next_at = 0;
    return 0;
}

/* Whether a port of host is taken: recorded by a live connection, or one we listen on. */
static int port_taken(const struct tcs_collector *c, const char *host, uint16_t port)
{
    for (size_t i = 0; i < c->listener_count; i++)
        if (c->listeners[i].port == port)
            return 1;
    for (size_t i = 0; i < c->entry_count; i++) {
        const struct entry *e = c->entries[i];
        if (e->session && !e->pub.accepted && e->pub.port == port && strcmp(e->host, host) == 0)
            return 1;
    }
    return 0;
}

static void rescan(struct tcs_collector *c, double now)
{
    for (size_t i = 0; i < c->scan_count; i++) {
        struct scan *s = &c->scans[i];
        if (now < s->next_at)
            continue;
        s->next_at = now + SCAN_EVERY_S;
        for (uint32_t port = s->first; port <= s->last; port++) {
            if (port_taken(c, s->host, (uint16_t)port))
                continue;
            struct entry *e = entry_new(c, s->host, (uint16_t)port);
            if (!e)
                return;
            char err[256];
            e->pub.scanned = 1;
            const struct tcs_session_hooks hooks = {on_welcome, e};
            e->session =
                tcs_session_connect(e->dec, s->host, (uint16_t)port, 0, 0, SCAN_HANDSHAKE_S, &hooks, err, sizeof err);
            if (e->session && tcs_session_state(e->session) == TCS_SESSION_ENDED) {
                entry_free(e); /* nothing listens there */
                continue;
            }
            entry_add(c, e);
        }
    }
}

/* ---- the loop ----------------------------------------------------------------------------- */

struct tcs_collector *tcs_collector_new(const struct tcs_collector_options *options)
{
    struct tcs_collector *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->opt = *options;
    c->buf = malloc(RECV_CHUNK);
    if (!c->buf) {
        free(c);
        return NULL;
    }
    c->host_id = tcu_host_id();
    return c;
}

static void close_listeners(struct tcs_collector *c)
{
    for (size_t i = 0; i < c->listener_count; i++)
        close(c->listeners[i].fd);
    c->listener_count = 0;
}

void tcs_collector_free(struct tcs_collector *c)
{
    if (!c)
        return;
    close_listeners(c);
    for (size_t i = 0; i < c->entry_count; i++)
        entry_free(c->entries[i]);
    free(c->entries);
    free(c->clients);
    free(c->listeners);
    free(c->scans);
    free(c->fds);
    free(c->buf);
    free(c);
}

/* A connection's session has ended: a client keeps its decoder (its names) and says why;
 * any other connection is forgotten. Returns 1 when the entry was freed. */
static int ended(struct tcs_collector *c, struct entry *e)
{
    e->pub.state = TCS_SESSION_ENDED;
    e->pub.result = tcs_session_result(e->session);
    snprintf(e->why, sizeof e->why, "%s", tcs_session_why(e->session));
    tcs_session_free(e->session);
    e->session = NULL;
    int quiet = e->pub.scanned && e->pub.source < 0; /* a port scan's miss */
    if (c->opt.on_end && !quiet)
        c->opt.on_end(c->opt.user, &e->pub);
    if (e->pub.source >= 0)
        return 0;
    entry_free(e);
    return 1;
}

/* A client on another host is asked to read its clock now and then (clock.h): sends a probe
 * when one is due; returns the milliseconds until the next may be, -1 when none will. */
static int probe_clock(struct entry *e)
{
    if (e->pub.source < 0 || e->clock.method != TCS_CLOCK_PROBES || tcs_session_stopped(e->session))
        return -1; /* a stopped client answers what it was asked, and is asked nothing new */
    int64_t raw = tcs_raw_ns();
    /* Given up by the clock, and by the capture's end: a client that cannot answer it (a
     * recording replayed) ends once it awaits nothing else. */
    uint32_t lost = tcs_clock_probe_given_up(&e->clock, raw);
    if (lost && tcd_decoder_probe_lost(e->dec, lost) == TCD_STATE_DONE)
        return 0; /* done without new data: the session ends at this step, whatever its wait */
    uint32_t id = tcs_clock_probe_due(&e->clock, raw);
    if (id) {
        if (tcd_decoder_probe_clock(e->dec, id) != 0)
            return -1; /* the decoder is done, or cannot ask */
        tcs_clock_probe_sent(&e->clock, id, raw);
    }
    int64_t until = e->clock.asked_id ? e->clock.asked_at + TCS_CLOCK_GIVE_UP_NS - raw : e->clock.next_at - raw;
    return until <= 0 ? 0 : until / 1000000 + 1 > 1000 ? 1000 : (int)(until / 1000000 + 1);
}

int tcs_collector_step(struct tcs_collector *c, int timeout_ms)
{
    return tcs_collector_step_with(c, timeout_ms, NULL, 0);
}

int tcs_collector_step_with(struct tcs_collector *c, int timeout_ms, struct pollfd *extra, size_t extra_count)
{
    double now = tcs_now_s();
    rescan(c, now);
    size_t need = c->listener_count + c->entry_count + extra_count;
    if (need > c->fd_cap) {
        struct pollfd *grown = realloc(c->fds, need * sizeof *grown);
        if (!grown)
            return -1;
        c->fds = grown;
        c->fd_cap = need;
    }
    size_t n = 0;
    int wait = timeout_ms;
    for (size_t i = 0; i < c->listener_count; i++) {
        const struct listener *l = &c->listeners[i];
        int paused = now < l->paused_until;
        c->fds[n++] = (struct pollfd){.fd = paused ? -1 : l->fd, .events = POLLIN};
        int ms = paused ? (int)((l->paused_until - now) * 1000.0) + 1 : -1;
        if (paused && (wait < 0 || ms < wait))
            wait = ms;
    }
    for (size_t i = 0; i < c->entry_count; i++) {
        struct entry *e = c->entries[i];
        c->fds[n] = (struct pollfd){.fd = -1};
        int ms = e->session ? probe_clock(e) : -1; /* before its poll: the probe goes out with it */
        int sms = e->session ? tcs_session_poll(e->session, &c->fds[n], now) : -1;
        if (sms >= 0 && (ms < 0 || sms < ms))
            ms = sms;
        n++;
        if (ms >= 0 && (wait < 0 || ms < wait))
            wait = ms;
    }
    for (size_t i = 0; i < c->scan_count; i++) {
        int ms = (int)((c->scans[i].next_at - now) * 1000.0) + 1;
        if (wait < 0 || ms < wait)
            wait = ms < 0 ? 0 : ms;
    }
    for (size_t i = 0; i < extra_count; i++)
        c->fds[n + i] = (struct pollfd){.fd = extra[i].fd, .events = extra[i].events};
    if (poll(c->fds, n + extra_count, wait) < 0 && errno != EINTR)
        return -1;
    for (size_t i = 0; i < extra_count; i++)
        extra[i].revents = c->fds[n + i].revents;
    now = tcs_now_s();
    size_t listeners = c->listener_count, live = c->entry_count;
    for (size_t i = 0; i < listeners; i++)
        if (c->fds[i].revents & POLLIN)
            accept_all(c, &c->listeners[i], now);
    /* The entries polled (accepted ones joined after them); freed ones leave the array. */
    size_t kept = 0;
    for (size_t i = 0; i < c->entry_count; i++) {
        struct entry *e = c->entries[i];
        if (e->session) {
            short revents = i < live ? c->fds[listeners + i].revents : 0;
            int64_t arrival = tcs_raw_ns();
            e->latest = -1;
            tcs_session_handle(e->session, revents, now, c->buf, RECV_CHUNK);
            e->pub.state = tcs_session_state(e->session);
            if (e->latest >= 0 && e->pub.source >= 0 && e->clock.method == TCS_CLOCK_WELCOME) {
                int64_t before = e->clock.upper;
                tcs_clock_arrival(&e->clock, arrival, e->latest);
                e->clock_dirty |= e->clock.upper != before;
            }
            if (e->clock_dirty)
                clock_changed(c, e);
            if (e->pub.state == TCS_SESSION_ENDED && ended(c, e))
                continue;
        }
        c->entries[kept++] = e;
    }
    c->entry_count = kept;
    return 0;
}

void tcs_collector_stop(struct tcs_collector *c, const char *why)
{
    close_listeners(c);
    c->scan_count = 0;
    for (size_t i = 0; i < c->entry_count; i++) {
        struct entry *e = c->entries[i];
        if (e->session)
            tcs_session_stop(e->session, why);
    }
}

size_t tcs_collector_live(const struct tcs_collector *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->entry_count; i++)
        n += c->entries[i]->session != NULL;
    return n;
}

int tcs_collector_open(const struct tcs_collector *c)
{
    return tcs_collector_live(c) || c->listener_count || c->scan_count;
}

size_t tcs_collector_client_count(const struct tcs_collector *c)
{
    return c->client_count;
}

const struct tcs_client *tcs_collector_client(const struct tcs_collector *c, size_t i)
{
    return i < c->client_count ? &c->clients[i]->pub : NULL;
}

void tcs_collector_stats(const struct tcs_collector *c, struct tcd_stats *out)
{
    *out = (struct tcd_stats){0};
    for (size_t i = 0; i < c->client_count; i++) {
        struct tcd_stats st;
        tcd_decoder_stats(c->clients[i]->dec, &st);
        out->bytes_in += st.bytes_in;
        out->bytes_decoded += st.bytes_decoded;
        out->events += st.events;
        out->zones += st.zones;
        out->samples += st.samples;
        out->queries_sent += st.queries_sent;
        out->dropped += st.dropped;
        out->memory += st.memory;
    }
}

/* Without the owner's clock, the trace's starts at the first client's origin; a client
 * that began before it would show before 0, where the Perfetto output cannot put it: the
 * origin moves back to the earliest client's (a replay's outputs use the clocks last set). */
static void start_at_earliest(struct tcs_collector *c)
{
    int64_t earliest = 0;
    for (size_t i = 0; i < c->client_count; i++) {
        const struct tct_source *src = tct_trace_source(c->opt.trace, (uint32_t)c->clients[i]->pub.source);
        if (src->offset < earliest)
            earliest = src->offset;
    }
    for (size_t i = 0; earliest < 0 && i < c->client_count; i++) {
        uint32_t source = (uint32_t)c->clients[i]->pub.source;
        const struct tct_source *src = tct_trace_source(c->opt.trace, source);
        tct_trace_set_source_clock(c->opt.trace, source, src->offset - earliest, src->scale, src->clock_error);
    }
}

void tcs_collector_finish(struct tcs_collector *c)
{
    for (size_t i = 0; i < c->client_count; i++) /* the errors that grow with the clients' spans */
        apply_clock(c, c->clients[i]);
    for (size_t i = 0; i < c->client_count; i++) {
        struct entry *e = c->clients[i];
        if (e->session || e->pub.result != TCS_COMPLETE)
            tct_trace_source_incomplete(c->opt.trace, (uint32_t)e->pub.source,
                                        e->session ? "still running when the capture ended" : e->why);
    }
    if (!c->has_reference)
        start_at_earliest(c);
}
