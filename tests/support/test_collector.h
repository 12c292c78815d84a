/* test_collector.h - a small collector for the tests of clients that dial out
 * (TRACYC_CONNECT): it listens on 127.0.0.1, takes any number of clients, says the hello
 * to each (it is the server on the connection the client made), feeds each one's bytes to
 * a decoder of its own and records that client's events apart, on a thread of the test
 * program. Built on the decoder alone, so that the client's side is tested against
 * nothing but the protocol.
 */
#ifndef TRACYC_TEST_COLLECTOR_H
#define TRACYC_TEST_COLLECTOR_H

#include "test_capture.h"

#include <stddef.h>
#include <stdint.h>

enum tcol_end {
    TCOL_OPEN,       /* still connected */
    TCOL_COMPLETE,   /* the decoder is done: the client sent everything and Terminate */
    TCOL_INCOMPLETE, /* the connection ended first, or the decoder failed: `err` says */
};

struct tcol_client {
    struct tcd_decoder *dec;
    uint64_t pid; /* the welcome's, 0 until it came */
    struct tt_event *events;
    int64_t *arrived; /* CLOCK_MONOTONIC_RAW ns of the read that delivered each event */
    size_t len, cap;
    int end; /* enum tcol_end */
    char err[256];
    /* the collector thread's */
    int fd;
    uint8_t *out; /* bytes to send: the hello, queries */
    size_t out_len, out_cap;
    int64_t read_at;
};

struct tcol;

/* Listens on 127.0.0.1:port (0: a free one) and starts the collector's thread; NULL when
 * the port cannot be had. */
struct tcol *tcol_start(uint16_t port);
uint16_t tcol_port(const struct tcol *c);
/* Stops: the listening socket and every connection closed at once (no Terminate), the
 * thread joined. The events recorded stay readable until tcol_free. */
void tcol_stop(struct tcol *c);
void tcol_free(struct tcol *c);

/* Waits until `count` clients have connected and their connections ended (COMPLETE or
 * INCOMPLETE). */
void tcol_wait_ended(struct tcol *c, size_t count);
/* Waits until some client has sent an event of this kind whose text is `text`; returns
 * the client's index. A literal message (its text a string the client is asked for) is
 * matched once the client has answered the query for its text. */
size_t tcol_wait_text(struct tcol *c, enum tcd_event_kind kind, const char *text);
/* Waits until client `i` has sent an event of this kind with this id; returns the event's
 * index in its events. */
size_t tcol_wait_id(struct tcol *c, size_t i, enum tcd_event_kind kind, uint32_t id);

/* Clients connected so far, and one of them (its fields may change while its connection
 * is open: read them once it ended, or after a wait that covered them). */
size_t tcol_clients(struct tcol *c);
struct tcol_client *tcol_client(struct tcol *c, size_t i);
/* The client whose welcome gave this pid, or NULL. */
struct tcol_client *tcol_client_of_pid(struct tcol *c, uint64_t pid);

/* Has the collector's thread send a clock probe with this id to client i
 * (tcd_decoder_probe_clock) and note the time before it went out (CLOCK_MONOTONIC_RAW ns,
 * in *sent). The decoder's answer: 0 sent, -1 not (the client took no clock extension). */
int tcol_probe_clock(struct tcol *c, size_t i, uint32_t id, int64_t *sent);

size_t tcol_count(const struct tcol_client *cl, enum tcd_event_kind kind);
const struct tcd_event *tcol_nth(const struct tcol_client *cl, enum tcd_event_kind kind, size_t n);

#endif
