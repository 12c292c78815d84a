/* test_session.c - tcs_capture() against a scripted fake client on loopback. */
#include <arpa/inet.h>
#include <lz4.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capture/session.h"
#include "trace/names.h"
#include "wire/protocol.h"

#include "test_util.h"

enum script {
    SCRIPT_FULL,     /* events, Terminate, answer every query */
    SCRIPT_MISMATCH, /* status 2 to every version */
    SCRIPT_HANG_UP,  /* events, then close without Terminate */
    SCRIPT_SILENT,   /* welcome, then nothing until the server leaves */
    SCRIPT_OLD,      /* like upstream's 0.13 client: status 2 to all but protocol 76, then FULL in 76 */
    SCRIPT_RUNNING,  /* events, no Terminate (the program runs on), answer every query */
    SCRIPT_MUTE,     /* events, no Terminate, answer no query */
    SCRIPT_ENDS,     /* like RUNNING, and sends Terminate with its first answer */
    SCRIPT_LEAVES,   /* like RUNNING, and hangs up after its first answer */
};

struct client {
    int listen_fd;
    uint16_t port;
    enum script script;
    int got_terminate_query;
    int refused;  /* connections answered with status 2 */
    int answered; /* queries answered */
    pthread_t thread;
};

static int read_all(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = recv(fd, (char *)buf + got, len - got, 0);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static void send_frame(int fd, const uint8_t *items, size_t len)
{
    char out[TCW_LZ4_SIZE + 4];
    int n = LZ4_compress_default((const char *)items, out + 4, (int)len, TCW_LZ4_SIZE);
    uint32_t csize = (uint32_t)n;
    memcpy(out, &csize, 4);
    send(fd, out, (size_t)n + 4, MSG_NOSIGNAL);
}

static size_t put(uint8_t *p, size_t at, const void *data, size_t len)
{
    memcpy(p + at, data, len);
    return at + len;
}

/* Like upstream's client, a refused server's connection is closed and the next one
 * accepted. Returns the connection of a server offering `protocol`, or -1. */
static int accept_protocol(struct client *c, uint8_t protocol)
{
    for (;;) {
        int fd = accept(c->listen_fd, NULL, NULL);
        if (fd < 0)
            return -1;
        uint8_t hello[12];
        if (read_all(fd, hello, sizeof hello) || memcmp(hello, "TracyPrf", 8)) {
            close(fd);
            return -1;
        }
        if (hello[8] == protocol && c->script != SCRIPT_MISMATCH)
            return fd;
        send(fd, "\x02", 1, MSG_NOSIGNAL);
        close(fd);
        c->refused++;
    }
}

static void *client_main(void *arg)
{
    struct client *c = arg;
    const int old = c->script == SCRIPT_OLD; /* protocol 76: other codes, no compact times */
    int fd = accept_protocol(c, old ? 76 : 82);
    if (fd < 0)
        return NULL;
    uint8_t hs[1 + TCW_WELCOME_SIZE] = {TCW_HANDSHAKE_WELCOME}; /* 76 has 82's layout */
    double mul = 1.0;
    memcpy(hs + 1 + TCW_WELCOME_TIMER_MUL, &mul, 8);
    send(fd, hs, sizeof hs, MSG_NOSIGNAL);

    uint8_t items[256];
    size_t n = 0;
    uint32_t tid = 77;
    uint64_t srcloc = 0x600;
    uint16_t d16 = 50;
    int64_t d64 = 50;
    n = put(items, n, old ? "\x3e" : "\x4b", 1); /* ThreadContext */
    n = put(items, n, &tid, 4);
    n = put(items, n, old ? "\x0f" : "\x13", 1); /* ZoneBegin, 64-bit: a negative delta */
    n = put(items, n, &(int64_t){-1}, 8);        /* is taken as is */
    n = put(items, n, &srcloc, 8);
    if (old) {
        n = put(items, n, "\x11", 1); /* ZoneEnd, the only form before 82: plain delta */
        n = put(items, n, &d64, 8);
    } else {
        n = put(items, n, "\x1b", 1); /* ZoneEnd16 */
        n = put(items, n, &d16, 2);
    }
    if (c->script == SCRIPT_FULL || old)
        n = put(items, n, old ? "\x3c" : "\x49", 1); /* Terminate */
    if (c->script != SCRIPT_SILENT)
        send_frame(fd, items, n);
    if (c->script == SCRIPT_HANG_UP) {
        close(fd);
        return NULL;
    }
    uint8_t q[13];
    while (read_all(fd, q, sizeof q) == 0) {
        uint64_t id;
        memcpy(&id, q + 1, 8);
        n = 0;
        if (q[0] == TCW_QUERY_TERMINATE) {
            c->got_terminate_query = 1;
            break;
        } else if (c->script == SCRIPT_MUTE) {
            continue;
        } else if (q[0] == TCW_QUERY_SOURCE_LOCATION) {
            uint64_t fn = 0x700, file = 0x708;
            uint32_t line = 3;
            n = put(items, n, old ? "\x4a\0\0\0\0\0\0\0\0" : "\x57\0\0\0\0\0\0\0\0", 9);
            n = put(items, n, &fn, 8);
            n = put(items, n, &file, 8);
            n = put(items, n, &line, 4);
            n = put(items, n, "\0\0\0", 3);
        } else {
            uint8_t type =
                q[0] == TCW_QUERY_THREAD_STRING ? (old ? 105 : TCW_ThreadName) : (old ? 104 : TCW_StringData);
            uint16_t len = 4;
            n = put(items, n, &type, 1);
            n = put(items, n, &id, 8);
            n = put(items, n, &len, 2);
            n = put(items, n, q[0] == TCW_QUERY_THREAD_STRING ? "work" : id == 0x700 ? "func" : "file", 4);
        }
        if (c->script == SCRIPT_ENDS && !c->answered)
            n = put(items, n, "\x49", 1); /* Terminate */
        send_frame(fd, items, n);
        c->answered++;
        if (c->script == SCRIPT_LEAVES)
            break;
    }
    close(fd);
    return NULL;
}

static void client_start(struct client *c, enum script script)
{
    memset(c, 0, sizeof *c);
    c->script = script;
    c->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    bind(c->listen_fd, (struct sockaddr *)&sa, sizeof sa);
    listen(c->listen_fd, 1);
    getsockname(c->listen_fd, (struct sockaddr *)&sa, &len);
    c->port = ntohs(sa.sin_port);
    pthread_create(&c->thread, NULL, client_main, c);
}

static void client_join(struct client *c)
{
    shutdown(c->listen_fd, SHUT_RDWR);
    pthread_join(c->thread, NULL);
    close(c->listen_fd);
}

struct sink {
    int zones, ends;
    int64_t begin_time;
    volatile int stop; /* the capture's stop flag: set at the first zone */
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct sink *s = user;
    if (ev->kind == TCD_ZONE_BEGIN) {
        s->zones++;
        s->begin_time = ev->time;
        s->stop = 1;
    }
    if (ev->kind == TCD_ZONE_END)
        s->ends++;
}

static int capture(enum script script, double time_limit, struct sink *sink, char *err, size_t errlen,
                   struct tcd_decoder **out)
{
    struct client c;
    client_start(&c, script);
    struct tcd_callbacks cb = {.on_event = on_event};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, sink, NULL);
    struct tcs_options opt = {
        .address = "127.0.0.1", .port = c.port, .connect_timeout_s = 2, .time_limit_s = time_limit};
    if (script >= SCRIPT_RUNNING)
        opt.stop_flag = &sink->stop; /* the user stops it once the first zone has come */
    int rc = tcs_capture(&opt, dec, err, errlen);
    client_join(&c);
    if (script != SCRIPT_MISMATCH && script != SCRIPT_HANG_UP && script != SCRIPT_SILENT && script != SCRIPT_LEAVES)
        tt_check(c.got_terminate_query, "the client received the Terminate query");
    if (script == SCRIPT_OLD)
        tt_check(c.refused == 1, "protocol 82 refused once, then 76 offered (%d refusals)", c.refused);
    if (script == SCRIPT_MISMATCH)
        tt_check(c.refused == 6, "every version offered once (%d refusals)", c.refused);
    *out = dec;
    return rc;
}

int main(void)
{
    char err[256];
    struct sink sink = {0};
    struct tcd_decoder *dec;

    int rc = capture(SCRIPT_FULL, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_COMPLETE && err[0] == 0, "full capture: complete (%s)", err);
    tt_check(sink.zones == 1 && sink.ends == 1 && sink.begin_time == -1, "one zone decoded, 64-bit negative delta");
    const struct tcd_srcloc *sl = tcd_srcloc(dec, 0);
    tt_check(!strcmp(tcd_thread_name(dec, 77), "work") && !strcmp(sl->function, "func") && !strcmp(sl->file, "file"),
             "names resolved through queries over TCP");
    tcd_decoder_free(dec);

    rc = capture(SCRIPT_MISMATCH, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_ERROR && strstr(err, "none of the protocol versions"), "status 2 to all: error (%s)", err);
    tcd_decoder_free(dec);

    /* A client of an older release: the capture tries the versions in turn. */
    sink = (struct sink){0};
    rc = capture(SCRIPT_OLD, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_COMPLETE && err[0] == 0, "protocol 76 client: complete (%s)", err);
    tt_check(tcd_decoder_version(dec) == 76, "settled on protocol 76 (%u)", tcd_decoder_version(dec));
    tt_check(sink.zones == 1 && sink.ends == 1 && sink.begin_time == -1, "one zone decoded in protocol 76");
    sl = tcd_srcloc(dec, 0);
    tt_check(!strcmp(tcd_thread_name(dec, 77), "work") && !strcmp(sl->function, "func") && !strcmp(sl->file, "file"),
             "names resolved with protocol 76's reply codes");
    tcd_decoder_free(dec);

    rc = capture(SCRIPT_HANG_UP, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "before the client sent Terminate"), "hang-up: incomplete (%s)", err);
    tcd_decoder_free(dec);

    rc = capture(SCRIPT_SILENT, 0.3, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "time limit"), "silent client: time limit (%s)", err);
    tcd_decoder_free(dec);

    /* Stopped by the user as its first zone came, before the client could answer the
     * queries for its names: the capture waits for the answers before it sends Terminate. */
    sink = (struct sink){0};
    rc = capture(SCRIPT_RUNNING, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "stopped by the user"), "stopped: incomplete (%s)", err);
    sl = tcd_srcloc(dec, 0);
    tt_check(sink.zones == 1 && sl && sl->function && !strcmp(sl->function, "func") &&
                 !strcmp(tcd_thread_name(dec, 77), "work"),
             "stopped at once, the zone still has its names");
    tcd_decoder_free(dec);

    /* ... for a second at most: a client that answers nothing is stopped all the same. */
    sink = (struct sink){0};
    rc = capture(SCRIPT_MUTE, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "stopped by the user"), "mute client stopped: incomplete (%s)", err);
    tt_check(sink.zones == 1, "its zone decoded (%d)", sink.zones);
    /* Its names never came: the outputs show Tracy's "???", not an empty name. */
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    sl = tcd_srcloc(dec, 0);
    tt_check(!strcmp(sl->name, "") && !strcmp(sl->function, "???") && !strcmp(sl->file, "???") &&
                 !strcmp(tct_srcloc_label(&names, 0), "???"),
             "the zone is labelled \"???\" (\"%s\")", tct_srcloc_label(&names, 0));
    tcd_decoder_free(dec);

    /* Whatever the client does while it answers, the capture was stopped, and says so: it
     * ends (Terminate) or hangs up. */
    sink = (struct sink){0};
    rc = capture(SCRIPT_ENDS, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "stopped by the user"), "stopped, then it ended: incomplete (%s)",
             err);
    tcd_decoder_free(dec);
    sink = (struct sink){0};
    rc = capture(SCRIPT_LEAVES, 0, &sink, err, sizeof err, &dec);
    tt_check(rc == TCS_INCOMPLETE && strstr(err, "stopped by the user"), "stopped, then it left: incomplete (%s)", err);
    tcd_decoder_free(dec);

    /* Nobody listens on a port we just closed. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd);
    dec = tcd_decoder_new(&(struct tcd_callbacks){0}, NULL, NULL);
    struct tcs_options opt = {.port = ntohs(sa.sin_port), .connect_timeout_s = 0.1};
    rc = tcs_capture(&opt, dec, err, sizeof err);
    tt_check(rc == TCS_ERROR && strstr(err, "cannot connect"), "nobody listening: error (%s)", err);
    tcd_decoder_free(dec);

    /* A peer that takes the connection and never sends a welcome: bounded by the handshake
     * limit, an error that says so (nothing answers on a socket that never accepts). */
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    len = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    listen(fd, 1);
    getsockname(fd, (struct sockaddr *)&sa, &len);
    dec = tcd_decoder_new(&(struct tcd_callbacks){0}, NULL, NULL);
    opt = (struct tcs_options){.port = ntohs(sa.sin_port), .connect_timeout_s = 2, .handshake_timeout_s = 0.2};
    rc = tcs_capture(&opt, dec, err, sizeof err);
    tt_check(rc == TCS_ERROR && strstr(err, "no welcome"), "a silent peer: error at the handshake limit (%s)", err);
    tcd_decoder_free(dec);
    close(fd);

    return tt_finish("test_session");
}
