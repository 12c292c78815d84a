/* net.c - loopback-by-default TCP listening, non-blocking accept, sockets for dialing out,
 * socket transport. */
#include "client/net.h"

#include "client/welcome.h"
#include "util/fd.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct tcp_transport {
    struct tc_transport base;
    int fd;
};

static int tcp_send(struct tc_transport *t, const void *data, size_t len)
{
    struct tcp_transport *tt = (struct tcp_transport *)t;
    const uint8_t *p = data;
    while (len) {
        ssize_t n = send(tt->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* A slow server: wait, but give up on one that stopped reading entirely. */
            struct pollfd pfd = {tt->fd, POLLOUT, 0};
            if (poll(&pfd, 1, 10000) > 0 && !(pfd.revents & (POLLERR | POLLHUP)))
                continue;
        }
        return -1;
    }
    return 0;
}

static long tcp_recv(struct tc_transport *t, void *buf, size_t cap, int timeout_ms)
{
    struct tcp_transport *tt = (struct tcp_transport *)t;
    struct pollfd pfd = {tt->fd, POLLIN, 0};
    int r = poll(&pfd, 1, timeout_ms);
    if (r == 0)
        return 0;
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    ssize_t n = recv(tt->fd, buf, cap, 0);
    if (n > 0)
        return (long)n;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    return -1;
}

static void tcp_close(struct tc_transport *t)
{
    struct tcp_transport *tt = (struct tcp_transport *)t;
    close(tt->fd);
    free(tt);
}

int tc_net_listen(uint16_t port, int any, uint16_t *bound_port)
{
    int tries = port ? 1 : 20;
    uint16_t first = port ? port : TCW_DEFAULT_PORT;
    for (int i = 0; i < tries; i++) {
        int fd = tcu_fd_socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK);
        if (fd < 0)
            return -1;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in addr = {0};
        addr.sin_family = AF_INET;
        addr.sin_port = htons((uint16_t)(first + i));
        addr.sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
        if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(fd, 4) == 0) {
            *bound_port = (uint16_t)(first + i);
            return fd;
        }
        int err = errno; /* the caller says why */
        close(fd);
        errno = err;
    }
    return -1;
}

int tc_net_listen_loopback(uint16_t *bound_port)
{
    int fd = tcu_fd_socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        close(fd);
        return -1;
    }
    *bound_port = ntohs(addr.sin_port);
    return fd;
}

int tc_net_accept_fd(int listen_fd)
{
    /* accept4 takes the lowest free descriptor number for as long as it runs, even when it
     * finds nobody waiting: a program's dup2 onto that number would fail (EBUSY). So it is
     * called only when a server is there. */
    struct pollfd waiting = {listen_fd, POLLIN, 0};
    if (poll(&waiting, 1, 0) != 1 || !(waiting.revents & POLLIN)) {
        errno = EAGAIN;
        return -1;
    }
    tcu_fd_guard_begin();
    return tcu_fd_guard_end(accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
}

int tc_net_socket(int family)
{
    return tcu_fd_socket(family, SOCK_STREAM | SOCK_NONBLOCK);
}

struct tc_transport *tc_net_accept(int listen_fd)
{
    int fd = tc_net_accept_fd(listen_fd);
    return fd < 0 ? NULL : tc_net_transport(fd);
}

struct tc_transport *tc_net_transport(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct tcp_transport *t = malloc(sizeof *t);
    if (!t) {
        close(fd);
        return NULL;
    }
    t->base.send = tcp_send;
    t->base.recv = tcp_recv;
    t->base.close = tcp_close;
    t->base.send_items = NULL; /* frames go over the wire LZ4-compressed */
    t->base.zone_begin = NULL;
    t->base.zone_end = NULL;
    t->base.fd = fd;
    t->fd = fd;
    return &t->base;
}

/* One socket for every announcement: opened at the first, closed by tc_net_broadcast_close. */
static int broadcast_fd = -1;

void tc_net_broadcast(uint16_t port, int32_t active_time)
{
    if (broadcast_fd < 0) {
        broadcast_fd = tcu_fd_socket(AF_INET, SOCK_DGRAM);
        if (broadcast_fd < 0)
            return;
        int one = 1;
        setsockopt(broadcast_fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
    }
    uint8_t msg[20 + 64];
    uint8_t welcome[TCW_WELCOME_SIZE];
    tc_welcome_build(welcome);
    uint16_t version = 3;
    uint32_t protocol = TCW_PROTOCOL_VERSION;
    uint64_t pid = (uint64_t)getpid();
    memcpy(msg, &version, 2);
    memcpy(msg + 2, &port, 2);
    memcpy(msg + 4, &protocol, 4);
    memcpy(msg + 8, &pid, 8);
    memcpy(msg + 16, &active_time, 4);
    const char *name = (const char *)welcome + TCW_WELCOME_PROGRAM_NAME;
    size_t len = strnlen(name, 63);
    memcpy(msg + 20, name, len);
    msg[20 + len] = 0;
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(TCW_DEFAULT_PORT);
    addr.sin_addr.s_addr = htonl(INADDR_BROADCAST);
    sendto(broadcast_fd, msg, 21 + len, 0, (struct sockaddr *)&addr, sizeof addr);
}

void tc_net_broadcast_close(void)
{
    if (broadcast_fd >= 0)
        close(broadcast_fd);
    broadcast_fd = -1;
}
