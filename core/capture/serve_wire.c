/* serve_wire.c - the proxy's bytes both ways, and its welcome. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include "capture/serve_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture/sockets.h"
#include "util/array.h"
#include "util/bytes.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define STALLED_S 10.0 /* a server that takes nothing for this long is given up */

void serve_gone(struct tcs_serve *s, const char *why)
{
    if (s->state == SERVE_GONE)
        return;
    if (why && !s->why[0] && !s->terminated)
        snprintf(s->why, sizeof s->why, "%s", why);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->state = SERVE_GONE;
}

/* Received bytes become queries, kept until they can be answered. */
static int take_bytes(struct tcs_serve *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        s->partial[s->partial_len++] = p[i];
        if (s->partial_len < TCW_QUERY_SIZE)
            continue;
        s->partial_len = 0;
        struct serve_query *grown = s->queries;
        if (s->query_count == s->query_cap && s->query_head) { /* reuse the answered front */
            memmove(s->queries, s->queries + s->query_head, (s->query_count - s->query_head) * sizeof *s->queries);
            s->query_count -= s->query_head;
            s->query_head = 0;
        }
        grown = tcu_grow(NULL, s->queries, &s->query_cap, s->query_count + 1, sizeof *grown);
        if (!grown)
            return -1;
        s->queries = grown;
        struct serve_query q = {.type = tcw_query_from_wire(s->partial[0], s->vi),
                                .ptr = tcu_rd64(s->partial + 1),
                                .extra = tcu_rd32(s->partial + 9)};
        s->queries[s->query_count++] = q;
        /* After our Terminate, the server's says it has everything: it may close at once,
         * before it reads the answers still on their way, which then find the connection
         * reset; nothing is lost. */
        if (s->state == SERVE_FINISHING && (q.type == TCW_QUERY_TERMINATE || q.type == TCW_QUERY_DISCONNECT))
            s->terminated = 1;
    }
    return 0;
}

int serve_receive(struct tcs_serve *s)
{
    if (s->fd < 0)
        return -1;
    uint8_t buf[13 * 256];
    for (;;) {
        ssize_t n = recv(s->fd, buf, sizeof buf, 0);
        if (n > 0) {
            s->quiet_since = tcs_now_s();
            if (take_bytes(s, buf, (size_t)n) != 0) {
                serve_gone(s, "out of memory for the server's queries");
                return -1;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        serve_gone(s, n == 0 ? (s->state == SERVE_FINISHING ? "" : "the server closed the connection")
                             : "the connection to the server failed");
        return -1;
    }
}

/* Blocking as a client's send is, but reading the server's queries while it cannot take
 * more: a server that waits to send its queries before it reads again must not wait on us. */
int serve_send(struct tcs_serve *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    double stalled = 0;
    while (len) {
        if (s->fd < 0)
            return -1;
        ssize_t n = send(s->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            stalled = 0;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (stalled == 0)
                stalled = tcs_now_s();
            else if (tcs_now_s() - stalled > STALLED_S) {
                serve_gone(s, "the server took nothing for 10 s");
                return -1;
            }
            struct pollfd pfd = {s->fd, POLLIN | POLLOUT, 0};
            if (poll(&pfd, 1, 100) > 0 && (pfd.revents & POLLIN) && serve_receive(s) != 0)
                return -1;
            continue;
        }
        serve_gone(s, "the connection to the server failed");
        return -1;
    }
    return 0;
}

int serve_write(void *user, const void *data, size_t len)
{
    return serve_send(user, data, len);
}

/* Whose the program is: tracyc-capture, with the processes it shows in its host info. */
void serve_welcome(struct tcs_serve *s)
{
    if (s->welcome_sent || s->state != SERVE_RUNNING)
        return;
    s->welcome_sent = 1;
    uint8_t w82[TCW_WELCOME_SIZE] = {0}, msg[1 + 1178];
    double mul = 1.0; /* ticks are the trace's nanoseconds */
    int64_t zero = 0;
    uint64_t resolution = 1, epoch = (uint64_t)time(NULL), pid = (uint64_t)getpid();
    memcpy(w82 + TCW_WELCOME_TIMER_MUL, &mul, 8);
    memcpy(w82 + TCW_WELCOME_INIT_BEGIN, &zero, 8);
    memcpy(w82 + TCW_WELCOME_INIT_END, &zero, 8);
    memcpy(w82 + TCW_WELCOME_RESOLUTION, &resolution, 8);
    memcpy(w82 + TCW_WELCOME_EPOCH, &epoch, 8);
    memcpy(w82 + TCW_WELCOME_PID, &pid, 8);
    /* Several processes' frees and allocations: none of them is the server's to judge. */
    w82[TCW_WELCOME_FLAGS] = TCW_FLAG_IGNORE_MEM_FAULTS;
    w82[TCW_WELCOME_CPU_ARCH] = TCW_CPU_ARCH_HOST;
    extern char *program_invocation_short_name;
    snprintf((char *)w82 + TCW_WELCOME_PROGRAM_NAME, TCW_PROGRAM_NAME_SIZE, "%s",
             program_invocation_short_name && *program_invocation_short_name ? program_invocation_short_name
                                                                             : "tracyc-capture");
    struct utsname u;
    uname(&u);
    snprintf((char *)w82 + TCW_WELCOME_HOST_INFO, TCW_HOST_INFO_SIZE,
             "OS: %s %s\nArch: %s\nProcesses: every one tracyc-capture records, as program[pid] thread\n", u.sysname,
             u.release, u.machine);
    msg[0] = TCW_HANDSHAKE_WELCOME;
    tcw_welcome_to_version(msg + 1, w82, s->vi);
    serve_send(s, msg, 1u + tcw_versions[s->vi].welcome_size);
}
