/* A server that reads slowly (4 KiB every 5 ms, through a small receive buffer) while the
 * program records as fast as it can, until events are being dropped and for a while
 * after: the client's buffers never exceed their stated worst case, TRACYC_BUFFER_LIMIT
 * plus TC_BUFFER_RESERVE (checked on the budget's high-water mark, not on samples), and
 * drops are counted
 * exactly (the count the server receives equals tracyc_dropped_events(), and zones
 * received + events dropped = events recorded). The records have mixed sizes, so that
 * records sharing a chunk with a forced zone end are covered too. */
#include "client/stream.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "decode/decode.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LIMIT ((size_t)4 << 20)
#define READ_BYTES 4096
#define READ_PAUSE_NS 5000000L
#define AFTER_DROPS 500000 /* zones recorded after the first drop */

static const struct ___tracy_source_location_data loc = {"slow", "main", "slow_server.c", 1, 0};

struct slow_server {
    uint16_t port;
    int fd;
    struct tcd_decoder *dec;
    uint64_t begins, ends, texts, dropped_reports, dropped;
    enum tcd_state state;
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct slow_server *s = user;
    s->begins += ev->kind == TCD_ZONE_BEGIN;
    s->ends += ev->kind == TCD_ZONE_END;
    s->texts += ev->kind == TCD_ZONE_TEXT;
    if (ev->kind == TCD_DROPPED) {
        s->dropped_reports++;
        s->dropped = ev->value;
    }
}

static void on_query(void *user, const uint8_t packet[13])
{
    struct slow_server *s = user;
    send(s->fd, packet, TCW_QUERY_SIZE, MSG_NOSIGNAL);
}

static void *serve(void *arg)
{
    struct slow_server *s = arg;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(s->port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    int rcvbuf = 16 << 10;
    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    while (connect(s->fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        usleep(1000);
    uint8_t hello[12], buf[READ_BYTES];
    tcd_handshake_request(hello);
    send(s->fd, hello, sizeof hello, MSG_NOSIGNAL);
    s->state = TCD_STATE_HANDSHAKE;
    while (s->state == TCD_STATE_HANDSHAKE || s->state == TCD_STATE_RUNNING) {
        ssize_t n = recv(s->fd, buf, sizeof buf, 0);
        if (n <= 0) {
            s->state = tcd_decoder_close(s->dec);
            break;
        }
        s->state = tcd_decoder_feed(s->dec, buf, (size_t)n);
        nanosleep(&(struct timespec){0, READ_PAUSE_NS}, NULL); /* the throttle */
    }
    static const uint8_t terminate[TCW_QUERY_SIZE] = {TCW_QUERY_TERMINATE};
    send(s->fd, terminate, sizeof terminate, MSG_NOSIGNAL);
    close(s->fd);
    return NULL;
}

int main(void)
{
    struct slow_server server = {.port = tt_use_free_port()};
    static const struct tcd_callbacks callbacks = {on_event, on_query};
    server.dec = tcd_decoder_new(&callbacks, &server, NULL);
    setenv("TRACY_NO_EXIT", "1", 1);
    setenv("TRACYC_BUFFER_LIMIT", "4M", 1);
    /* The event buffers' bound is measured here, by resident memory: the kernel's data has
     * memory of its own (perf rings, the unwinder's DWARF tables, loaded at the first sample,
     * after the measure starts: 11 MiB more was seen once), bounded and measured by bench/. */
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    ___tracy_startup_profiler();
    pthread_t thread;
    pthread_create(&thread, NULL, serve, &server);
    tt_phase("waiting for the slow server to connect", 120);
    while (!___tracy_connected())
        usleep(1000);
    tt_phase_done();

    size_t rss_before = tt_rss_bytes(), rss_peak = rss_before;
    uint64_t zones = 0, recorded = 0, texts = 0;
    for (int i = 0, after = 0; after < AFTER_DROPS; i++, zones++) {
        after += tracyc_dropped_events() > 0;
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        recorded += z.active != 0;
        if (i % 3 == 0 && z.active) {
            ___tracy_emit_zone_text(z, "odd-sized text", 14); /* 32-byte record: breaks chunk alignment */
            texts++;
        }
        ___tracy_emit_zone_end(z);
        if (i % 4096 == 0) {
            size_t rss = tt_rss_bytes();
            rss_peak = rss > rss_peak ? rss : rss_peak;
        }
    }
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the slow server (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the slow server's thread: its capture ending", 120);
    pthread_join(thread, NULL);
    tt_phase_done();

    uint64_t dropped = tracyc_dropped_events();
    CHECK_EQ_INT(server.state, TCD_STATE_DONE);
    CHECK(dropped > 0);
    /* Every zone begin was either sent or dropped, and the server got exactly those sent. */
    CHECK_EQ_INT(server.begins, recorded);
    CHECK_EQ_INT(server.ends, recorded);
    CHECK(server.dropped_reports > 0);
    CHECK_EQ_INT(server.dropped, dropped);
    /* Drops are counted per event: each dropped zone begin, each dropped text. */
    CHECK_EQ_INT(dropped, (zones - recorded) + (texts - server.texts));
    /* The bound does not depend on timing: a zone end past the limit goes into the end of
     * the chunk its begin filled, or else into a small chunk from the fixed reserve. */
    size_t buffered_peak = atomic_load(&tc_buffer_peak);
    CHECK(buffered_peak <= LIMIT + TC_BUFFER_RESERVE);
#if !defined(__SANITIZE_THREAD__) &&                                                                                   \
    !defined(__SANITIZE_ADDRESS__) /* shadow memory and ASan's quarantine of freed chunks inflate RSS */
    CHECK(rss_peak - rss_before < LIMIT + TC_BUFFER_RESERVE + ((size_t)8 << 20));
#endif
    printf("slow server: %llu zones, %llu sent, %llu events dropped (client and server agree: %llu); "
           "buffers peaked at %zu bytes and RSS grew by %zu KiB with a limit of %zu KiB\n",
           (unsigned long long)zones, (unsigned long long)server.begins, (unsigned long long)dropped,
           (unsigned long long)server.dropped, buffered_peak, (rss_peak - rss_before) >> 10, LIMIT >> 10);
    tcd_decoder_free(server.dec);
    return tt_finish("test_fault_slow_server");
}
