/* dial.h - dialing out to a collector (TRACYC_CONNECT=HOST:PORT, docs/protocol.md §2.5).
 *
 * The worker's way of getting a server when it does not listen: a non-blocking connect,
 * advanced a step at a time, never waiting; after an attempt that failed, or a connection
 * that ended, the next attempt waits 10 ms, then twice as long each time, up to 1 s. Over
 * the socket the collector is the server: it speaks first (the hello), as one that
 * connected would.
 */
#ifndef TRACYC_CLIENT_DIAL_H
#define TRACYC_CLIENT_DIAL_H

#include "client/conn.h"

#include <stdint.h>

/* Dial host:port from now on (the name is resolved at the first attempt). */
void tc_dial_start(const char *host, uint16_t port);
/* Whether dialing was started. */
int tc_dial_active(void);
/* One step at time `now` (tcu_monotonic_ns): starts an attempt when one is due, or
 * looks whether the one under way has connected. The connected transport when it has
 * (the next attempt is then scheduled as after a failure, until tc_dial_welcomed), else
 * NULL. */
struct tc_transport *tc_dial_step(int64_t now);
/* The collector welcomed: after it goes away, the next attempt is made at once. */
void tc_dial_welcomed(void);
/* Makes the next attempt due now (at exit: one last try, whatever the back-off); when one
 * is under way, the next is made as soon as it fails. */
void tc_dial_hurry(void);
/* Whether a connect is under way. */
int tc_dial_connecting(void);
/* What the next step waits for, at time `now`: the socket of the connect under way (to
 * poll for POLLOUT), or -1; and the return value, the milliseconds until the next attempt
 * is due (0: now), or -1 when none is scheduled (one under way, or no dialing). */
int tc_dial_wait(int64_t now, int *fd);
void tc_dial_stop(void);
/* In a forked child: forget the parent's attempt (its sockets are closed here only). */
void tc_dial_forget_after_fork(void);

#endif
