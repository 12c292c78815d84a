/* serve.h - the recorded processes shown to one real Tracy server as a single client.
 *
 * tracyc-capture --serve PORT: the collector (collector.h) records any number of clients
 * into one trace; the proxy is a sink of that trace (trace/sink.h) that re-encodes its
 * records (wire/encode.h) for one Tracy server - the GUI or upstream's tracy-capture, any
 * version tracyc speaks - which connects to PORT as it would to a program:
 *
 *   struct tcs_serve *s = tcs_serve_new(trace);            // adds its sink to the trace
 *   tcs_serve_listen(s, NULL, 8086, &port, err, sizeof err);
 *   while (!tcs_serve_connected(s)) tcs_serve_step(s, 100); // the server says hello
 *   tcs_serve_attach(s, collector);  ... start the collector's clients ...
 *   while (running) {
 *       n = tcs_serve_pollfds(s, fds, 2);
 *       tcs_collector_step_with(collector, 100, fds, n);    // one poll for both
 *       tcs_serve_handle(s, fds, n);                        // queries answered, items sent
 *   }
 *   tcs_collector_finish(...); tct_trace_finish(trace);    // the last records go out
 *   tcs_serve_finish(s);                                   // Terminate
 *   while (!tcs_serve_done(s)) tcs_serve_step(s, 100);     // the server's last queries
 *   tcs_serve_free(s);                  // before the collector: names live in its decoders
 *
 * What the server sees (docs/capture.md, "One Tracy server for every process"): one
 * program whose clock is the trace's; each process's threads named "program[pid] thread"
 * with thread ids unique across processes; zones, messages, frames (each process its own
 * frame sets, "program[pid] Frame"), plots ("program[pid] name"), memory (each process its
 * own pools, "program[pid]" for its default one), locks, GPU zones, callstacks and samples.
 * Every id the server is given is the proxy's own - (kind, process, the process's id) - and
 * the server's queries about it are answered from that process's decoder once the client
 * has answered the decoder (or has gone), in the order they came.
 *
 * The proxy is a client that records from the moment a server connects: start the
 * clients' capture only then (tcs_serve_connected), so nothing comes before it; clients
 * keep their events until they are recorded, as they do for any server.
 */
#ifndef TRACYC_CAPTURE_SERVE_H
#define TRACYC_CAPTURE_SERVE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/collector.h"
#include "trace/trace.h"

struct tcs_serve;

/* A proxy fed by tr (its sink is added at once). NULL when out of memory. */
struct tcs_serve *tcs_serve_new(struct tct_trace *tr);
void tcs_serve_free(struct tcs_serve *s);

/* Where the clients' decoders are (to answer the server's queries): the collector that
 * feeds the trace. */
void tcs_serve_attach(struct tcs_serve *s, const struct tcs_collector *c);

/* Waits for a server on host:port (host NULL: 127.0.0.1; port 0: a free one, into
 * *bound). 0, or -1 with a sentence in err. */
int tcs_serve_listen(struct tcs_serve *s, const char *host, uint16_t port, uint16_t *bound, char *err, size_t errlen);

/* Serves the server on a connection made elsewhere (accepted there, or one end of a
 * socketpair): the proxy owns fd from now; the server's hello comes next. */
void tcs_serve_adopt(struct tcs_serve *s, int fd);

/* The proxy's sockets to poll (at most 2): fds[i].fd and .events set; returns how many. */
size_t tcs_serve_pollfds(const struct tcs_serve *s, struct pollfd *fds, size_t room);
/* Does what the poll results allow: a server accepted, its hello read, its queries read
 * and answered as far as the answers are known, the items encoded so far sent. */
void tcs_serve_handle(struct tcs_serve *s, const struct pollfd *fds, size_t n);
/* Both, polling alone for at most timeout_ms. */
void tcs_serve_step(struct tcs_serve *s, int timeout_ms);

/* A server has said hello in a version tracyc speaks (and not gone since). */
int tcs_serve_connected(const struct tcs_serve *s);
/* Its protocol number (0 before its hello). */
uint32_t tcs_serve_protocol(const struct tcs_serve *s);
/* The server is gone (it closed, failed, or said it has everything after
 * tcs_serve_finish); why in tcs_serve_why ("" when it completed). */
int tcs_serve_gone(const struct tcs_serve *s);
/* Call after tct_trace_finish: Terminate goes out; step until tcs_serve_done. */
void tcs_serve_finish(struct tcs_serve *s);
/* After tcs_serve_finish: the server has everything (or is gone, or was never there). */
int tcs_serve_done(const struct tcs_serve *s);
const char *tcs_serve_why(const struct tcs_serve *s);

#endif
