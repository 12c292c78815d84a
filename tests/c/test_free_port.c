/* tt_use_free_port keeps its port: a socket bound to it without SO_REUSEADDR (another test's
 * server, a connection's own end) is refused, so nothing can take it between the pick and
 * the client's listen; and the client still listens there and a capture records it. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* 0, or the errno of binding a plain socket (no SO_REUSEADDR) to 127.0.0.1:port. */
static int plain_bind_error(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int err = bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 ? 0 : errno;
    close(fd);
    return err;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    tt_check(atoi(getenv("TRACY_PORT")) == port, "TRACY_PORT is the port (%u)", port);
    int err = plain_bind_error(port);
    tt_check(err == EADDRINUSE, "another socket cannot take the port before the client listens (errno %d)", err);
    tt_check(tt_use_free_port() != port, "the next pick is another port (a sanity check: the kernel's picks vary)");

    char text[16];
    snprintf(text, sizeof text, "%u", port);
    setenv("TRACY_PORT", text, 1); /* the first port again (the second pick set its own) */
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    TracyCMessageL("on the kept port");
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    int rc = tt_capture_join(cap);
    tt_phase_done();
    tt_check(rc == 0, "the client listened on the kept port: a capture is complete (%s)", cap->err);
    const struct tcd_welcome *w = tcd_decoder_welcome(cap->dec);
    tt_check(w && w->pid == (uint64_t)getpid(), "from this process");
    tt_check(tt_find_text(cap, TCD_MESSAGE, "on the kept port") != NULL, "with its message");
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_free_port");
}
