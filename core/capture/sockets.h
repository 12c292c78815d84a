/* sockets.h - the sockets and clocks of a capture: addresses resolved, connections started
 * without waiting, listening sockets, and the three clocks a collector reads.
 *
 * Every socket made here is non-blocking and close-on-exec; connected ones have TCP_NODELAY.
 */
#ifndef TRACYC_CAPTURE_SOCKETS_H
#define TRACYC_CAPTURE_SOCKETS_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>

/* host:port resolved (getaddrinfo, IPv4 and IPv6) into *out (freeaddrinfo it): 0, or -1
 * with a sentence in err. */
int tcs_resolve(const char *host, uint16_t port, struct addrinfo **out, char *err, size_t errlen);

/* A connection to ai started: the socket, whose connect may still be in progress (poll it
 * for POLLOUT, then tcs_connect_result), or -1 with *error set. */
int tcs_connect_start(const struct addrinfo *ai, int *error);
/* How a started connection ended: 0 connected (TCP_NODELAY set), else its errno. */
int tcs_connect_result(int fd);

/* A listening socket on host:port (host NULL: 127.0.0.1; port 0: any free one, put in
 * *bound): the socket, or -1 with a sentence in err. */
int tcs_listen(const char *host, uint16_t port, uint16_t *bound, char *err, size_t errlen);
/* A connection waiting on a listening socket, and who made it (numeric host, port):
 * the socket, or -1 when none waits (or with errno set on failure). */
int tcs_accept(int listen_fd, char *peer, size_t peerlen, uint16_t *peer_port);

/* CLOCK_MONOTONIC in seconds (deadlines), CLOCK_MONOTONIC_RAW and CLOCK_REALTIME in ns
 * (the clocks clients are put on, capture/clock.h). */
double tcs_now_s(void);
int64_t tcs_raw_ns(void);
int64_t tcs_real_ns(void);

#endif
