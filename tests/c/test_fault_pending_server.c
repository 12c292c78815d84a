/* Servers whose handshake is under way: the client must neither wait for a peer that
 * never speaks (issue 12, item 5) nor give up on a real server at exit (issue 16, item 12).
 *
 * Each case runs the profiled program in a child process; this process is the servers:
 * a "silent peer" that connects and never says a word, and a real server (a raw socket
 * pumped through tracyc's decoder) that sends its hello at once.
 *
 *  running  the silent peer connects first, then the server: the server is welcomed while
 *           the silent peer is still waiting (a blocking handshake would first have had to
 *           give up on it), and receives every zone.
 *  crowd    six silent peers, more than the client keeps handshakes for (4), then the
 *           server: the three silent for longest made room, so the server is welcomed
 *           while the three latest still wait.
 *  exit     the silent peer, then the server, then the program ends at once: the server
 *           receives every zone (a server whose hello arrived is served at exit).
 *  backlog  no silent peer: the server connects and sends its hello, and the program ends
 *           at once, before its worker may have accepted the connection (the report: the
 *           listening socket was closed on it, "connection closed during the handshake"). */
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "decode/decode.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ZONES 500

static const struct ___tracy_source_location_data loc = {"pending", "main", "pending.c", 1, 0};

/* ---- the program --------------------------------------------------------------------------- */

/* Records ZONES zones, says "ready" on `to_parent`, waits for "go", and ends. */
static void program(int to_parent, int from_parent)
{
    ___tracy_startup_profiler();
    for (int i = 0; i < ZONES; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
    char c = 'r';
    if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
        _exit(3);
    ___tracy_shutdown_profiler();
    _exit(0);
}

/* ---- the servers -------------------------------------------------------------------------- */

static int connect_to(uint16_t port)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

struct server {
    int fd;
    int zones;
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct server *s = user;
    s->zones += ev->kind == TCD_ZONE_BEGIN;
}

static void on_query(void *user, const uint8_t packet[13])
{
    struct server *s = user;
    send(s->fd, packet, 13, MSG_NOSIGNAL);
}

/* Feeds everything the client sends to a decoder, answering its queries, until the
 * decoder is done (then it says Terminate, as a server does) or the client closes.
 * Returns the decoder's final state. */
static enum tcd_state pump(struct server *s, struct tcd_decoder *dec, const uint8_t *already, size_t already_len)
{
    enum tcd_state st = tcd_decoder_feed(dec, already, already_len);
    uint8_t buf[65536];
    while (st == TCD_STATE_HANDSHAKE || st == TCD_STATE_RUNNING) {
        ssize_t n = recv(s->fd, buf, sizeof buf, 0);
        if (n <= 0)
            return tcd_decoder_close(dec);
        st = tcd_decoder_feed(dec, buf, (size_t)n);
    }
    static const uint8_t terminate[13] = {TCW_QUERY_TERMINATE};
    if (st == TCD_STATE_DONE)
        send(s->fd, terminate, sizeof terminate, MSG_NOSIGNAL);
    return st;
}

static int still_open(int fd)
{
    char c;
    return recv(fd, &c, 1, MSG_DONTWAIT) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static void run_case(const char *name)
{
    uint16_t port = tt_use_free_port();
    int up[2], down[2];
    if (pipe(up) != 0 || pipe(down) != 0)
        abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        program(up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    char c;
    /* the program listens and has recorded its zones */
    CHECK(tt_readable_within(up[0], TT_PROGRAM_WAIT_S) && read(up[0], &c, 1) == 1);

    int crowd = !strcmp(name, "crowd"), silent_peers[6], nsilent = crowd ? 6 : strcmp(name, "backlog") ? 1 : 0;
    for (int i = 0; i < nsilent; i++)
        silent_peers[i] = connect_to(port);
    int silent = nsilent ? silent_peers[0] : -1;
    struct server s = {connect_to(port), 0};
    CHECK(s.fd >= 0);
    struct tcd_callbacks cb = {on_event, on_query};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, &s, NULL);
    uint8_t hello[12];
    tcd_handshake_request(hello);
    send(s.fd, hello, sizeof hello, MSG_NOSIGNAL);

    uint8_t welcome[1 + TCW_WELCOME_SIZE];
    size_t got = 0;
    if (!strcmp(name, "running") || crowd) {
        /* Wait for the welcome; the silent peer must not have been needed out of the way. */
        while (got < sizeof welcome) {
            ssize_t n = recv(s.fd, welcome + got, sizeof welcome - got, 0);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        tt_check(got == sizeof welcome && welcome[0] == TCW_HANDSHAKE_WELCOME, "%s: the server is welcomed", name);
        if (crowd) {
            int open = 0;
            for (int i = 0; i < 6; i++)
                open |= still_open(silent_peers[i]) << i;
            tt_check(open == 0x38, "crowd: ...while the 3 latest silent peers still wait (open: 0x%x)", open);
        } else {
            tt_check(still_open(silent), "running: ...while the silent peer that connected before it still waits");
        }
    }
    c = 'g';
    CHECK(write(down[1], &c, 1) == 1); /* the program ends now */
    enum tcd_state st = pump(&s, dec, welcome, got);
    tt_check(st == TCD_STATE_DONE, "%s: the server's capture is complete (%s)", name, tcd_decoder_error(dec));
    tt_check(s.zones == ZONES, "%s: the server received all %d zones (%d)", name, ZONES, s.zones);
    int status = 0;
    tt_child_ended(pid, &status, 60);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the program ended normally", name);
    tcd_decoder_free(dec);
    close(s.fd);
    for (int i = 0; i < nsilent; i++)
        close(silent_peers[i]);
    close(up[0]);
    close(down[1]);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1) {
        run_case(argv[1]);
    } else {
        run_case("running");
        run_case("crowd");
        run_case("exit");
        run_case("backlog");
    }
    return tt_finish("test_fault_pending_server");
}
