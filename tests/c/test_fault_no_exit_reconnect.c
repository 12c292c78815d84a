/* TRACY_NO_EXIT=1: the program waits at exit for a server; the first one to connect
 * hangs up right after the handshake. The program must keep waiting, and the next server
 * gets a complete capture. (Regression: the program exited once the first server had
 * gone, and the waiting server was refused.) */
#include "client/state.h"
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"waiting", "main", "no_exit_reconnect.c", 1, 0};

static uint16_t port;
static struct tt_capture *second;

/* Once the program is inside its exit wait: a server that leaves after the welcome, then
 * a real one. */
static void *servers(void *arg)
{
    (void)arg;
    while (atomic_load(&tc_prof.state) != TC_STATE_STOPPING)
        usleep(1000);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    while (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        usleep(1000);
    uint8_t hello[12], welcome[1 + TCW_WELCOME_SIZE];
    tcd_handshake_request(hello);
    send(fd, hello, sizeof hello, MSG_NOSIGNAL);
    ssize_t n = recv(fd, welcome, sizeof welcome, MSG_WAITALL);
    close(fd);
    CHECK_EQ_INT(n, sizeof welcome);
    second = tt_capture_start(port);
    return NULL;
}

int main(void)
{
    port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    for (int i = 0; i < 1000; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
    pthread_t t;
    pthread_create(&t, NULL, servers, NULL);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the second server (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler(); /* returns once a server has everything */
    tt_phase("joining the thread that starts the servers", 120);
    pthread_join(t, NULL);
    tt_phase_describe(tt_capture_describe, second);
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(second), 0);
    tt_phase_done();
    if (second->result)
        fprintf(stderr, "second server: %s\n", second->err);
    CHECK_EQ_INT(tcd_decoder_state(second->dec), TCD_STATE_DONE);
    CHECK_EQ_INT(tt_count(second, TCD_ZONE_BEGIN), tt_count(second, TCD_ZONE_END));
    printf("no exit: the second server got %zu zones\n", tt_count(second, TCD_ZONE_BEGIN));
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(second);
    return tt_finish("test_fault_no_exit_reconnect");
}
