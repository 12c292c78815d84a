/* net.h - the client's listening socket and the TCP transport of a connection. */
#ifndef TRACYC_CLIENT_NET_H
#define TRACYC_CLIENT_NET_H

#include "client/conn.h"

#include <stdint.h>

/* Listens on 127.0.0.1 (or every interface with any = 1). port 0 means the upstream
 * search: 8086, then the next 19 ports. Returns the socket, or -1. */
int tc_net_listen(uint16_t port, int any, uint16_t *bound_port);

/* Accepts a pending connection without blocking. Returns a transport, or NULL. */
struct tc_transport *tc_net_accept(int listen_fd);
/* A listening socket on 127.0.0.1, on a port the kernel picks (*bound_port), for the
 * in-process capture's children; -1. */
int tc_net_listen_loopback(uint16_t *bound_port);
/* Accepts a pending connection without blocking: its socket (non-blocking), or -1 with
 * errno set (EAGAIN: none waits). */
int tc_net_accept_fd(int listen_fd);
/* A non-blocking TCP socket of that address family, to connect out (client/dial.c); -1. */
int tc_net_socket(int family);
/* The transport of a connected non-blocking socket, which it owns from then on (NULL and
 * the socket closed when out of memory). */
struct tc_transport *tc_net_transport(int fd);

/* One UDP broadcast announcement (only with TRACYC_BROADCAST=1). */
void tc_net_broadcast(uint16_t port, int32_t active_time);
/* Closes the announcements' socket (at shutdown; in a forked child, its copy). */
void tc_net_broadcast_close(void);

#endif
