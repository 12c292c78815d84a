/* collector.h - many clients recorded at once into one trace.
 *
 * A collector runs any number of capture sessions (session.h), each with a decoder of its
 * own, and gives each client that sends its welcome a source of one trace (trace/trace.h),
 * put on one clock (clock.h). Clients come three ways, in any mix:
 *
 *   tcs_collector_listen   a listening socket: clients that dial out (TRACYC_CONNECT) are
 *                          accepted, any number of them, for as long as it runs;
 *   tcs_collector_connect  a client listening at host:port, connected to (retrying until it
 *                          answers) and recorded once, as tracy-capture does;
 *   tcs_collector_scan     ports first..last of a host, tried about twice a second: every
 *                          client that appears there is recorded (the ports Tracy clients
 *                          take when 8086 is busy).
 *
 *   struct tcs_collector *c = tcs_collector_new(&(struct tcs_collector_options){.trace = tr});
 *   tcs_collector_listen(c, NULL, 8099, &port, err, sizeof err);
 *   while (running)
 *       tcs_collector_step(c, 100);          // blocks only in poll, at most 100 ms
 *   tcs_collector_stop(c, "stopped by the user");
 *   while (tcs_collector_live(c))
 *       tcs_collector_step(c, 100);          // the Terminate queries leave
 *   tcs_collector_finish(c);                 // incomplete clients marked in the trace
 *   ... tct_trace_finish(tr), the outputs written ...
 *   tcs_collector_free(c);                   // after the outputs: names live in the decoders
 *
 * The clock: the first client to send its welcome gives the trace its clock (its source's
 * times are the trace's, as for a capture of one client), unless the owner gives one with
 * tcs_collector_set_reference (the in-process capture: its own program's clock). Every
 * other client's times are put on it with tct_trace_set_source_clock, again each time its
 * estimate improves; the error given is the client's plus the reference's.
 *
 * A client that fails (a hostile stream, a vanished process) ends alone: the others carry
 * on. Connections that never sent a welcome are not clients: they are reported to on_end
 * and forgotten.
 */
#ifndef TRACYC_CAPTURE_COLLECTOR_H
#define TRACYC_CAPTURE_COLLECTOR_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/clock.h"
#include "capture/session.h"
#include "decode/decode.h"
#include "trace/trace.h"

/* What the collector tells of a connection. */
struct tcs_client {
    uint32_t index;   /* in the order connections were made */
    int source;       /* its source in the trace; -1 until its welcome */
    const char *host; /* connected to, or (accepted) where it came from */
    uint16_t port;
    uint8_t accepted; /* it dialled out to a listening socket */
    uint8_t scanned;  /* found by a port scan */
    enum tcs_session_state state;
    int result;      /* enum tcs_result, once ENDED */
    const char *why; /* why it ended ("" complete) */
    const struct tcd_decoder *dec;
    enum tcs_clock_method clock; /* how its clock is put on the trace's */
    int64_t clock_error;         /* ns, as given to the trace; -1 not known */
};

struct tcs_collector_options {
    struct tct_trace *trace;         /* every client becomes a source of it */
    const struct tcd_limits *limits; /* each decoder's, NULL for the defaults */
    /* Optional: a client's welcome has arrived (before any of its events, before it has a
     * source): non-zero refuses it (a Terminate query is sent; it ends with TCS_ERROR, with
     * the sentence written in why). */
    int (*on_client)(void *user, const struct tcs_client *client, const struct tcd_welcome *welcome, char *why,
                     size_t whylen);
    /* Optional: a connection has ended (client->source -1: it never was a client). */
    void (*on_end)(void *user, const struct tcs_client *client);
    /* Optional: accepting on the listener of port failed for want of descriptors or memory
     * (err: EMFILE, ...), the first time since it last accepted one. The connections wait;
     * the listener is tried again every TCU_ACCEPT_PAUSE_MS (util/fd.h). */
    void (*on_accept_failed)(void *user, uint16_t port, int err);
    void *user;
};

struct tcs_collector;

struct tcs_collector *tcs_collector_new(const struct tcs_collector_options *options);
void tcs_collector_free(struct tcs_collector *c);

/* Accepts dial-out clients on host:port (host NULL: 127.0.0.1; port 0: a free one); the
 * port bound goes into *bound. 0, or -1 with a sentence in err. */
int tcs_collector_listen(struct tcs_collector *c, const char *host, uint16_t port, uint16_t *bound, char *err,
                         size_t errlen);
/* Records the client listening at host:port once, retrying the connection for retry_s
 * (protocol: as tcs_session_connect). 0, or -1 with a sentence in err. */
int tcs_collector_connect(struct tcs_collector *c, const char *host, uint16_t port, uint32_t protocol, double retry_s,
                          char *err, size_t errlen);
/* Records the client on a connection it made to a socket listening elsewhere (accepted
 * there, or one end of a socketpair): the collector owns fd from now (closed on failure).
 * host and port say where it came from. 0, or -1 when out of memory. */
int tcs_collector_adopt(struct tcs_collector *c, int fd, const char *host, uint16_t port);
/* Records every client that appears on ports first..last of host while the collector runs
 * (a port it already records, or listens on, is left alone). 0, or -1 with a sentence in err. */
int tcs_collector_scan(struct tcs_collector *c, const char *host, uint16_t first, uint16_t last, char *err,
                       size_t errlen);

/* The trace's clock as the owner keeps it: trace time t is the collector's
 * CLOCK_MONOTONIC_RAW raw0 + (t - t0) * rate. Without it, the first client gives the clock. */
void tcs_collector_set_reference(struct tcs_collector *c, const struct tcs_clock_line *line);

/* Polls every socket once (waiting at most timeout_ms) and does what can be done. 0, or -1
 * when poll itself failed. */
int tcs_collector_step(struct tcs_collector *c, int timeout_ms);
/* The same, polling the owner's sockets too (the proxy's, serve.h), so that one wait
 * serves both: extra[i].fd and .events as given, .revents filled in. */
int tcs_collector_step_with(struct tcs_collector *c, int timeout_ms, struct pollfd *extra, size_t extra_count);
/* Stops: listening sockets and scans are closed, waiting connections given up, and every
 * running client is sent a Terminate query and ends incomplete with why. Step on until
 * tcs_collector_live() is 0. */
void tcs_collector_stop(struct tcs_collector *c, const char *why);
/* Connections not ended yet (connecting, running, closing). */
size_t tcs_collector_live(const struct tcs_collector *c);
/* Whether anything may still come: live connections, a listening socket or a scan. */
int tcs_collector_open(const struct tcs_collector *c);

/* Clients (connections that sent their welcome), in the order of their sources. */
size_t tcs_collector_client_count(const struct tcs_collector *c);
const struct tcs_client *tcs_collector_client(const struct tcs_collector *c, size_t i);
/* Each client's decoder counters summed. */
void tcs_collector_stats(const struct tcs_collector *c, struct tcd_stats *out);

/* The capture has ended: each client whose capture is not complete has its source marked
 * incomplete (tct_trace_source_incomplete) with its reason, and (without the owner's
 * clock) a client that began before the first one moves the trace's origin back to its
 * own, so that no time is negative. Call before tct_trace_finish. */
void tcs_collector_finish(struct tcs_collector *c);

#endif
