/* The connection closes during the handshake, on either side.
 *  - Against the client (this program, recording all along): connections that close at
 *    once, after part of the server's hello, after a wrong hello, after a hello of
 *    another protocol version (answered with "protocol mismatch"), right after a valid
 *    hello, and right after the welcome. The program carries on, and a real server
 *    connecting afterwards gets every zone recorded since.
 *  - Against a server (tcs_capture): a client that closes at once, or in the middle of
 *    its welcome message. The capture ends with an error that says so. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ZONES_PER_STEP 1000

static const struct ___tracy_source_location_data loc = {"steady", "main", "handshake.c", 1, 0};

static struct sockaddr_in loopback(uint16_t port)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

static int connect_to(uint16_t port)
{
    struct sockaddr_in addr = loopback(port);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    while (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        usleep(1000);
    return fd;
}

/* Reads until the peer closes; returns the bytes received (up to cap kept). */
static size_t read_until_closed(int fd, uint8_t *buf, size_t cap)
{
    size_t got = 0;
    uint8_t scratch[4096];
    ssize_t n;
    while ((n = recv(fd, scratch, sizeof scratch, 0)) > 0) {
        size_t keep = got < cap ? (cap - got < (size_t)n ? cap - got : (size_t)n) : 0;
        memcpy(buf + got, scratch, keep);
        got += (size_t)n;
    }
    return got;
}

static void zones(int n)
{
    for (int i = 0; i < n; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
}

static void client_side(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    uint8_t hello[12], reply[16];
    tcd_handshake_request(hello);
    int steps = 0;

    zones(ZONES_PER_STEP), steps++;
    close(connect_to(port)); /* closes at once */

    zones(ZONES_PER_STEP), steps++;
    int fd = connect_to(port);
    send(fd, hello, 5, MSG_NOSIGNAL); /* part of the hello */
    close(fd);

    zones(ZONES_PER_STEP), steps++;
    fd = connect_to(port);
    send(fd, "NotTracy\x52\0\0\0", 12, MSG_NOSIGNAL); /* wrong shibboleth: no answer */
    CHECK_EQ_INT(read_until_closed(fd, reply, sizeof reply), 0);
    close(fd);

    zones(ZONES_PER_STEP), steps++;
    fd = connect_to(port);
    uint8_t old[12];
    memcpy(old, hello, 12);
    old[8] = TCW_PROTOCOL_VERSION - 1;
    send(fd, old, sizeof old, MSG_NOSIGNAL); /* another protocol version */
    CHECK_EQ_INT(read_until_closed(fd, reply, sizeof reply), 1);
    CHECK_EQ_INT(reply[0], TCW_HANDSHAKE_PROTOCOL_MISMATCH);
    close(fd);

    zones(ZONES_PER_STEP), steps++;
    fd = connect_to(port);
    send(fd, hello, sizeof hello, MSG_NOSIGNAL); /* valid, then gone before the welcome */
    close(fd);

    zones(ZONES_PER_STEP), steps++;
    fd = connect_to(port);
    send(fd, hello, sizeof hello, MSG_NOSIGNAL); /* valid, gone right after the welcome */
    uint8_t welcome[1 + TCW_WELCOME_SIZE];
    CHECK_EQ_INT(recv(fd, welcome, sizeof welcome, MSG_WAITALL), sizeof welcome);
    CHECK_EQ_INT(welcome[0], TCW_HANDSHAKE_WELCOME);
    /* Gone: the client sees the end of the stream. Waiting until it has closed its side
     * too means no later zone can be drained into this dead connection (waiting for
     * ___tracy_connected() to read 0 did not: it may not have read 1 yet). */
    shutdown(fd, SHUT_WR);
    read_until_closed(fd, reply, sizeof reply);
    close(fd);

    /* What is recorded from here on reaches the real server, all of it. */
    zones(ZONES_PER_STEP), steps++;
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    zones(ZONES_PER_STEP), steps++;
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    /* The servers that completed the handshake may have been sent zones before their
     * close was noticed; all later ones reach the real server. */
    size_t got = tt_count(cap, TCD_ZONE_BEGIN);
    CHECK(got <= (size_t)steps * ZONES_PER_STEP && got >= 2 * ZONES_PER_STEP);
    CHECK_EQ_INT(got, tt_count(cap, TCD_ZONE_END));
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    printf("client side: the real server got %zu of %d zones\n", got, steps * ZONES_PER_STEP);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
}

/* A fake client: accepts one server, reads its hello, sends `len` bytes of a welcome,
 * closes. */
struct fake_client {
    int listen_fd;
    size_t len;
};

static void *fake_client(void *arg)
{
    struct fake_client *f = arg;
    int fd = accept(f->listen_fd, NULL, NULL);
    uint8_t hello[12], welcome[1 + TCW_WELCOME_SIZE] = {TCW_HANDSHAKE_WELCOME};
    recv(fd, hello, sizeof hello, MSG_WAITALL);
    send(fd, welcome, f->len, MSG_NOSIGNAL);
    close(fd);
    return NULL;
}

static void server_side(size_t welcome_bytes)
{
    uint16_t port = tt_use_free_port();
    struct sockaddr_in addr = loopback(port);
    struct fake_client f = {socket(AF_INET, SOCK_STREAM, 0), welcome_bytes};
    int one = 1;
    setsockopt(f.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    CHECK(bind(f.listen_fd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(f.listen_fd, 1) == 0);
    pthread_t t;
    pthread_create(&t, NULL, fake_client, &f);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("joining the capture thread: a capture of a client gone during the handshake ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 2); /* TCS_ERROR */
    tt_phase("joining the fake client's thread", 120);
    pthread_join(t, NULL);
    tt_phase_done();
    CHECK(strstr(cap->err, "handshake") != NULL);
    printf("server side, client gone after %zu welcome bytes: %s\n", welcome_bytes, cap->err);
    close(f.listen_fd);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
}

int main(void)
{
    server_side(0);
    server_side(1 + TCW_WELCOME_SIZE / 2);
    client_side();
    return tt_finish("test_fault_handshake");
}
