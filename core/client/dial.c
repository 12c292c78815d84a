/* dial.c - see dial.h. */
#include "client/dial.h"

#include "client/net.h"
#include "util/fd.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FIRST_DELAY_NS 10000000LL /* 10 ms */
#define MAX_DELAY_NS 1000000000LL /* 1 s */

static struct {
    char *host;
    char port[8];
    struct addrinfo *addrs;    /* resolved at the first attempt */
    const struct addrinfo *at; /* the address of the attempt under way or next, NULL: none */
    /* The socket of the attempts: reused after a refusal, so that the worker does not open
     * a descriptor every second while the collector is away (util/fd.h). */
    int fd;
    int family; /* of fd */
    int connecting;
    /* tc_dial_hurry came while an attempt was under way, which may have been refused before
     * the collector listened: when it fails, the next one is made at once. */
    int hurry;
    int64_t next_at, delay;
    int said; /* the name that does not resolve was reported */
} d = {.fd = -1};

void tc_dial_start(const char *host, uint16_t port)
{
    tc_dial_stop();
    d.host = strdup(host);
    snprintf(d.port, sizeof d.port, "%u", port);
    d.delay = FIRST_DELAY_NS;
    d.next_at = 0;
    d.said = 0;
    d.hurry = 0;
}

int tc_dial_active(void)
{
    return d.host != NULL;
}

int tc_dial_connecting(void)
{
    return d.connecting;
}

int tc_dial_wait(int64_t now, int *fd)
{
    *fd = d.host && d.connecting ? d.fd : -1;
    if (!d.host || d.connecting)
        return -1;
    if (d.at || now >= d.next_at)
        return 0;
    return (int)((d.next_at - now + 999999) / 1000000);
}

static void back_off(int64_t now)
{
    d.next_at = now + d.delay;
    d.delay = d.delay * 2 < MAX_DELAY_NS ? d.delay * 2 : MAX_DELAY_NS;
    d.at = NULL;
}

static int resolve(void)
{
    if (d.addrs)
        return 0;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    /* A name's lookup opens files and sockets of its own, for a moment each: the standard
     * numbers are held meanwhile (util/fd.h), as long as the lookup takes. */
    tcu_fd_guard_begin();
    int rc = getaddrinfo(d.host, d.port, &hints, &d.addrs);
    tcu_fd_guard_end(-1);
    if (rc == 0)
        return 0;
    d.addrs = NULL;
    if (!d.said)
        fprintf(stderr, "tracyc: TRACYC_CONNECT: %s: %s (trying again)\n", d.host, gai_strerror(rc));
    d.said = 1;
    return -1;
}

static void close_socket(void)
{
    if (d.fd >= 0)
        close(d.fd);
    d.fd = -1;
    d.connecting = 0;
}

/* Starts connecting to d.at. 1: connected at once; 0: under way; -1: failed. */
static int connect_at(const struct addrinfo *a)
{
    if (d.fd >= 0 && d.family != a->ai_family)
        close_socket();
    if (d.fd < 0) {
        d.fd = tc_net_socket(a->ai_family);
        d.family = a->ai_family;
        if (d.fd < 0)
            return -1;
    }
    for (int tries = 0; tries < 2; tries++) {
        if (connect(d.fd, a->ai_addr, a->ai_addrlen) == 0)
            return 1;
        if (errno == EINPROGRESS)
            return 0;
        /* Linux: the first connect after a failed one reports that failure once more
         * (ECONNABORTED) and puts the socket back to unconnected: the next one is real. */
        if (errno != ECONNABORTED && errno != EINTR)
            break;
    }
    return -1;
}

static struct tc_transport *connected(int64_t now)
{
    struct tc_transport *t = tc_net_transport(d.fd);
    d.fd = -1; /* the transport's now; the next attempt needs a socket of its own */
    d.connecting = 0;
    back_off(now);
    return t;
}

struct tc_transport *tc_dial_step(int64_t now)
{
    if (!d.host)
        return NULL;
    if (d.connecting) {
        struct pollfd pfd = {d.fd, POLLOUT, 0};
        if (poll(&pfd, 1, 0) != 1)
            return NULL;
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(d.fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
            return connected(now);
        d.connecting = 0;
        d.at = d.at->ai_next; /* the next address of the name, at once */
        if (!d.at && d.hurry) {
            d.hurry = 0;
            d.at = d.addrs;
        }
    } else if (!d.at) {
        if (now < d.next_at)
            return NULL;
        if (resolve() != 0) {
            back_off(now);
            return NULL;
        }
        d.at = d.addrs;
    }
    for (; d.at; d.at = d.at->ai_next) {
        int rc = connect_at(d.at);
        if (rc > 0)
            return connected(now);
        if (rc == 0) {
            d.connecting = 1;
            return NULL;
        }
    }
    back_off(now);
    return NULL;
}

void tc_dial_welcomed(void)
{
    d.delay = FIRST_DELAY_NS;
    d.next_at = 0;
}

void tc_dial_hurry(void)
{
    d.next_at = 0;
    d.hurry = d.connecting;
}

void tc_dial_stop(void)
{
    close_socket();
    if (d.addrs)
        freeaddrinfo(d.addrs);
    d.addrs = NULL;
    d.at = NULL;
    free(d.host);
    d.host = NULL;
}

/* The parent's name and addresses, as they were at the fork: kept in the child for its leak
 * check (lifecycle.c, after_fork_child). */
static struct {
    char *host;
    struct addrinfo *addrs;
} parents;

void tc_dial_forget_after_fork(void)
{
    close_socket();
    /* The parent's worker may have been resolving: its list is left alone, not freed. */
    parents.host = d.host;
    parents.addrs = d.addrs;
    d.addrs = NULL;
    d.at = NULL;
    d.host = NULL;
}
