/* sockets.c - see sockets.h. */
#include "capture/sockets.h"
#include "util/monotonic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int tcs_resolve(const char *host, uint16_t port, struct addrinfo **out, char *err, size_t errlen)
{
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int gai = getaddrinfo(host, service, &hints, out);
    if (gai != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    return 0;
}

static void no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int tcs_connect_start(const struct addrinfo *ai, int *error)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        *error = errno;
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) {
        *error = 0;
        return fd;
    }
    *error = errno;
    close(fd);
    return -1;
}

int tcs_connect_result(int fd)
{
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
        return errno;
    if (error == 0)
        no_delay(fd);
    return error;
}

int tcs_listen(const char *host, uint16_t port, uint16_t *bound, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    if (!host)
        host = "127.0.0.1";
    int gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, error = 0;
    for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            error = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
            error = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s port %u: %s", host, port, strerror(error));
        return -1;
    }
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    if (bound && getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        *bound = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                                : ((struct sockaddr_in *)&sa)->sin_port);
    return fd;
}

int tcs_accept(int listen_fd, char *peer, size_t peerlen, uint16_t *peer_port)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    int fd;
    do
        fd = accept4(listen_fd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -1;
    no_delay(fd);
    char service[8];
    if (getnameinfo((struct sockaddr *)&sa, len, peer, (socklen_t)peerlen, service, sizeof service,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(peer, peerlen, "?");
        snprintf(service, sizeof service, "0");
    }
    *peer_port = (uint16_t)atoi(service);
    return fd;
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double tcs_now_s(void)
{
    return (double)tcu_monotonic_ns() * 1e-9;
}

int64_t tcs_raw_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC_RAW);
}

int64_t tcs_real_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}
