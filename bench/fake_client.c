/* fake_client.c - a synthetic Tracy client for capture benchmarks (bench/capture_scale.sh).
 *
 * Listens on 127.0.0.1 like a Tracy client of protocol 82, takes one server (tracyc-capture,
 * upstream's tracy-capture), and streams a game-like program of THREADS threads that run
 * ticks of 16 zones each (9 static source locations, nested 3 deep, text on some zones, a
 * value and a colour on others), messages (inline and literal), two plots, a frame mark per
 * round of ticks and CPU samples over 48 distinct stacks of 24 functions. Every item is
 * generated on the fly with tracyc's own encoder and sent as fast as the socket takes it:
 * TCP backpressure paces it and nothing queues beyond the encoder's ring. Every query the
 * server sends is answered, while streaming (the socket is polled both ways whenever a send
 * would block), then the Terminate item goes out and the client answers until the server's
 * Terminate query or its close.
 *
 *   fake_client [-p PORT | --connect HOST:PORT] [-n ZONES] [-t THREADS] [--dry-run] [--record FILE]
 *
 * -p 0 (the default) listens on a free port and prints it on stdout. --connect dials out to
 * a collector instead (tracyc-capture --listen), as a tracyc client with TRACYC_CONNECT
 * does, retrying for 10 s until it listens; the collector speaks first. --dry-run writes the
 * frames nowhere and prints how fast the client generates them alone. --record also writes
 * FILE: the welcome and every byte sent after it, answers to the server's queries included
 * where they went, which a decoder reads back as the same capture (bench/capture_formats.c:
 * a replay asks the same queries at the same places, so each answer finds its query). At the end a line
 * of key=value pairs on stderr says what was sent: zones, events (zone begins and ends,
 * texts, values, colours, messages, plot points, frame marks, samples), bytes, seconds,
 * queries answered. Exit status 0 when the server took everything and said goodbye.
 */
#include "wire/encode.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ZONES_PER_TICK 16
#define TID_BASE 1001u
#define SAMPLE_EVERY 4 /* ticks */
/* Unanswered queries at once: upstream allows min(SO_SNDBUF / 13, 8192) - 4. */
#define MAX_PENDING_QUERIES 16384

/* ---- what the program is made of: its names, answered when the server asks ------------- */

/* String ids are the table's index plus this; source locations, plots, functions their own. */
#define STRING_ID 0x100000u
static const char *const strings[] = {
    "run_tick",     "game/loop.c",    "tick",       "update",    "game/update.c",
    "step_physics", "game/physics.c", "think",      "game/ai.c", "render_frame",
    "gfx/render.c", "draw_batch",     "gfx/draw.c", "mix_audio", "audio/mix.c",
    "poll_io",      "net/io.c",       "collect",    "mem/gc.c",  "checkpoint reached",
    "GC",
};
enum {
    S_RUN_TICK,
    S_LOOP_C,
    S_TICK,
    S_UPDATE,
    S_UPDATE_C,
    S_PHYSICS,
    S_PHYSICS_C,
    S_THINK,
    S_AI_C,
    S_RENDER,
    S_RENDER_C,
    S_DRAW,
    S_DRAW_C,
    S_MIX,
    S_MIX_C,
    S_POLL,
    S_IO_C,
    S_COLLECT,
    S_GC_C,
    S_CHECKPOINT,
    S_GC
};
#define STRING_COUNT (sizeof strings / sizeof *strings)

struct srcloc {
    int name, function, file; /* string indexes, name -1: none */
    uint32_t line, color;
};
#define SRCLOC_ID 0x2000u
enum { L_TICK, L_UPDATE, L_PHYSICS, L_AI, L_RENDER, L_DRAW, L_AUDIO, L_IO, L_GC, L_COUNT };
static const struct srcloc srclocs[L_COUNT] = {
    [L_TICK] = {S_TICK, S_RUN_TICK, S_LOOP_C, 40, 0},
    [L_UPDATE] = {-1, S_UPDATE, S_UPDATE_C, 12, 0},
    [L_PHYSICS] = {-1, S_PHYSICS, S_PHYSICS_C, 88, 0x3060c0},
    [L_AI] = {-1, S_THINK, S_AI_C, 230, 0},
    [L_RENDER] = {-1, S_RENDER, S_RENDER_C, 17, 0xc03030},
    [L_DRAW] = {-1, S_DRAW, S_DRAW_C, 301, 0},
    [L_AUDIO] = {-1, S_MIX, S_MIX_C, 55, 0},
    [L_IO] = {-1, S_POLL, S_IO_C, 140, 0},
    [L_GC] = {S_GC, S_COLLECT, S_GC_C, 9, 0x30c030},
};

#define PLOT_QUEUE 0x3000u
#define PLOT_BYTES 0x3001u

/* Functions of the sampled stacks: function f starts at FN_BASE + f * FN_SIZE. */
#define FN_COUNT 24
#define FN_BASE 0x401000u
#define FN_SIZE 0x100u
#define STACK_COUNT 48
#define STACK_MAX 10
static const char *const image = "/usr/bin/fake_game";

struct stack {
    uint64_t frames[STACK_MAX]; /* innermost first */
    size_t n;
};
static struct stack stacks[STACK_COUNT];

static void stacks_build(void)
{
    for (int s = 0; s < STACK_COUNT; s++) {
        struct stack *st = &stacks[s];
        st->n = 3 + (size_t)(s % 7);
        for (size_t j = 0; j < st->n; j++) {
            size_t depth = st->n - 1 - j; /* 0 = outermost: main, then the thread's loop */
            unsigned f = depth == 0 ? 0 : depth == 1 ? 1 : 2 + (unsigned)(s * 7 + depth * 3) % (FN_COUNT - 2);
            st->frames[j] = FN_BASE + f * FN_SIZE + 0x10 + 8 * (uint64_t)((s + depth) % 8);
        }
    }
}

/* ---- the connection -------------------------------------------------------------------- */

struct client {
    int fd;
    struct tcw_encoder enc;
    uint8_t queries[MAX_PENDING_QUERIES * TCW_QUERY_SIZE];
    size_t qhead, qtail;
    int terminated; /* the server sent its Terminate query */
    int closed;     /* or closed the connection */
    uint64_t answered, bytes;
    FILE *record; /* --record: every byte sent, or NULL */
};

/* Takes what the server sent into the query queue: 0, or -1 when it closed or the queue
 * is full (the server broke its own flow control). */
static int take_queries(struct client *c)
{
    for (;;) {
        if (c->qhead == c->qtail)
            c->qhead = c->qtail = 0;
        if (c->qtail == sizeof c->queries && c->qhead) {
            memmove(c->queries, c->queries + c->qhead, c->qtail - c->qhead);
            c->qtail -= c->qhead;
            c->qhead = 0;
        }
        if (c->qtail == sizeof c->queries) {
            fprintf(stderr, "fake_client: more than %d queries unanswered\n", MAX_PENDING_QUERIES);
            return -1;
        }
        ssize_t n = recv(c->fd, c->queries + c->qtail, sizeof c->queries - c->qtail, MSG_DONTWAIT);
        if (n > 0) {
            c->qtail += (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            c->closed = 1;
            return -1;
        }
        return 0;
    }
}

/* The encoder's transport: every byte sent, reading queries whenever the socket is full. */
static int send_frame(void *user, const void *data, size_t len)
{
    struct client *c = user;
    const uint8_t *p = data;
    if (c->record && fwrite(data, 1, len, c->record) != len)
        return -1;
    while (len) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            c->bytes += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        struct pollfd pfd = {c->fd, POLLIN | POLLOUT, 0};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            return -1;
        if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) && take_queries(c) != 0)
            return -1;
    }
    return 0;
}

static int count_frame(void *user, const void *data, size_t len)
{
    (void)data;
    ((struct client *)user)->bytes += len;
    return 0;
}

static void reply_string(struct client *c, uint8_t type, uint64_t id, const char *s)
{
    tcw_enc_string_reply(&c->enc, type, id, s, strlen(s));
}

static void answer(struct client *c, uint8_t type, uint64_t ptr)
{
    struct tcw_encoder *e = &c->enc;
    char buf[64];
    switch (type) {
    case TCW_QUERY_TERMINATE:
    case TCW_QUERY_DISCONNECT:
        c->terminated = 1;
        return;
    case TCW_QUERY_STRING:
        reply_string(c, TCW_StringData, ptr,
                     ptr >= STRING_ID && ptr < STRING_ID + STRING_COUNT ? strings[ptr - STRING_ID] : "?");
        break;
    case TCW_QUERY_THREAD_STRING:
        if (ptr >= TID_BASE && ptr < TID_BASE + 64)
            snprintf(buf, sizeof buf, "worker %u", (unsigned)(ptr - TID_BASE));
        else
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)ptr);
        reply_string(c, TCW_ThreadName, ptr, buf);
        break;
    case TCW_QUERY_SOURCE_LOCATION:
        if (ptr >= SRCLOC_ID && ptr < SRCLOC_ID + L_COUNT) {
            const struct srcloc *l = &srclocs[ptr - SRCLOC_ID];
            tcw_enc_srcloc_reply(e, l->name < 0 ? 0 : STRING_ID + (uint64_t)l->name, STRING_ID + (uint64_t)l->function,
                                 STRING_ID + (uint64_t)l->file, l->line, l->color);
        } else {
            tcw_enc_srcloc_reply(e, 0, 0x1, 0x1, 0, 0); /* "?" (id 1 is answered as unknown) */
        }
        break;
    case TCW_QUERY_PLOT_NAME:
        reply_string(c, TCW_PlotName, ptr, ptr == PLOT_QUEUE ? "queue depth" : ptr == PLOT_BYTES ? "bytes read" : "?");
        break;
    case TCW_QUERY_FRAME_NAME:
        reply_string(c, TCW_FrameName, ptr, "?");
        break;
    case TCW_QUERY_FIBER_NAME:
        reply_string(c, TCW_FiberName, ptr, "?");
        break;
    case TCW_QUERY_EXTERNAL_NAME:
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)ptr);
        reply_string(c, TCW_ExternalThreadName, ptr, buf);
        reply_string(c, TCW_ExternalName, ptr, "fake_game");
        break;
    case TCW_QUERY_CALLSTACK_FRAME: {
        uint64_t f = (ptr - FN_BASE) / FN_SIZE;
        if (ptr < FN_BASE || f >= FN_COUNT) {
            tcw_enc_callstack_frame_size(e, ptr, 1, "[unknown]", 9);
            tcw_enc_callstack_frame(e, "[unknown]", 9, "[unknown]", 9, 0, 0, 0);
            break;
        }
        int len = snprintf(buf, sizeof buf, "game_fn_%llu", (unsigned long long)f);
        static const char file[] = "game/functions.c";
        tcw_enc_callstack_frame_size(e, ptr, 1, image, strlen(image));
        tcw_enc_callstack_frame(e, buf, (size_t)len, file, sizeof file - 1,
                                (uint32_t)(100 * f + (ptr - FN_BASE) % FN_SIZE / 8), FN_BASE + f * FN_SIZE, FN_SIZE);
        break;
    }
    case TCW_QUERY_SYMBOL: {
        static const char file[] = "game/functions.c";
        tcw_enc_symbol_information(e, ptr, file, sizeof file - 1,
                                   ptr >= FN_BASE ? (uint32_t)(100 * ((ptr - FN_BASE) / FN_SIZE)) : 0);
        break;
    }
    case TCW_QUERY_SYMBOL_CODE:
        tcw_enc_byte(e, TCW_AckSymbolCodeNotAvailable);
        break;
    case TCW_QUERY_SOURCE_CODE:
        tcw_enc_source_unavailable(e, (uint32_t)ptr);
        break;
    default:
        tcw_enc_byte(e, TCW_AckServerQueryNoop);
        break;
    }
    c->answered++;
}

/* Answers the queries taken so far; flushing may take more, answered in the same loop. */
static void answer_queries(struct client *c)
{
    while (c->qtail - c->qhead >= TCW_QUERY_SIZE && !c->terminated) {
        const uint8_t *q = c->queries + c->qhead;
        uint64_t ptr;
        memcpy(&ptr, q + 1, 8);
        c->qhead += TCW_QUERY_SIZE;
        answer(c, q[0], ptr);
    }
}

/* ---- the program ------------------------------------------------------------------------ */

struct counts {
    uint64_t zones, texts, values, colors, messages, plots, frames, samples;
};

/* Durations vary with the tick but not with the thread, so every thread's tick k ends at
 * the same time (plus the thread's offset): frame marks and samples stay in time order. */
static uint32_t jitter(uint64_t tick, unsigned slot)
{
    uint64_t x = tick * 0x9E3779B97F4A7C15ull + slot * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    return (uint32_t)(x >> 40) & 0xff;
}

static void zone(struct client *c, struct counts *n, int64_t *t, int loc, uint32_t ns)
{
    tcw_enc_zone_begin(&c->enc, *t, SRCLOC_ID + (uint64_t)loc);
    *t += ns;
    tcw_enc_zone_end(&c->enc, *t);
    *t += 20;
    n->zones++;
}

/* One tick of one thread: 16 zones, tick > (update > physics, ai), (render > 8 draws),
 * audio, io, gc. */
static void tick(struct client *c, struct counts *n, unsigned th, uint64_t k, int64_t *t)
{
    struct tcw_encoder *e = &c->enc;
    char text[64];
    tcw_enc_thread(e, TID_BASE + th);
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_TICK);
    *t += 30;
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_UPDATE);
    *t += 25;
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_PHYSICS);
    tcw_enc_zone_value(e, 100 + k % 50);
    n->values++;
    *t += 400 + jitter(k, 0);
    tcw_enc_zone_end(e, *t);
    *t += 20;
    n->zones++;
    zone(c, n, t, L_AI, 150 + jitter(k, 1));
    tcw_enc_zone_end(e, *t); /* update */
    *t += 20;
    n->zones++;
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_RENDER);
    *t += 25;
    for (unsigned d = 0; d < 8; d++) {
        tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_DRAW);
        if (d == 0 && k % 4 == 0) {
            int len =
                snprintf(text, sizeof text, "batch %llu: %u meshes", (unsigned long long)k, 8 + jitter(k, 9) % 64);
            tcw_enc_zone_text(e, TCW_ZoneText, text, (size_t)len);
            n->texts++;
        }
        *t += 60 + jitter(k, 2 + d) % 64;
        tcw_enc_zone_end(e, *t);
        *t += 20;
        n->zones++;
    }
    tcw_enc_zone_end(e, *t); /* render */
    *t += 20;
    n->zones++;
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_AUDIO);
    tcw_enc_zone_color(e, 0x208020);
    n->colors++;
    *t += 120;
    tcw_enc_zone_end(e, *t);
    *t += 20;
    n->zones++;
    tcw_enc_zone_begin(e, *t, SRCLOC_ID + L_IO);
    int len = snprintf(text, sizeof text, "read %u bytes", 512u * (1 + jitter(k, 10) % 16));
    tcw_enc_zone_text(e, TCW_ZoneText, text, (size_t)len);
    n->texts++;
    *t += 200 + jitter(k, 11);
    tcw_enc_zone_end(e, *t);
    *t += 20;
    n->zones++;
    zone(c, n, t, L_GC, 50 + jitter(k, 12) % 32);
    tcw_enc_zone_end(e, *t); /* tick */
    n->zones++;
    if (th == 0) {
        double depth = (double)(jitter(k, 13) % 32);
        uint64_t bits;
        memcpy(&bits, &depth, 8);
        tcw_enc_plot(e, TCW_PlotDataDouble, PLOT_QUEUE, *t, bits);
        n->plots++;
        if (k % 4 == 0) {
            tcw_enc_plot(e, TCW_PlotDataInt, PLOT_BYTES, *t, 512u * (1 + jitter(k, 10) % 16));
            n->plots++;
        }
    }
    if (k % 64 == 63) {
        len = snprintf(text, sizeof text, "worker %u finished tick %llu", th, (unsigned long long)k);
        tcw_enc_message(e, *t, text, (size_t)len, 0, TCW_MESSAGE_META(2));
        n->messages++;
    }
    if (th == 0 && k % 1024 == 1023) {
        tcw_enc_message_literal(e, *t, STRING_ID + S_CHECKPOINT, 0, TCW_MESSAGE_META(3));
        n->messages++;
    }
    *t += 40;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void welcome(uint8_t out[1 + TCW_WELCOME_SIZE])
{
    memset(out, 0, 1 + TCW_WELCOME_SIZE);
    out[0] = TCW_HANDSHAKE_WELCOME;
    uint8_t *w = out + 1;
    double mul = 1.0;
    memcpy(w + TCW_WELCOME_TIMER_MUL, &mul, 8);
    tcu_wr64(w + TCW_WELCOME_INIT_BEGIN, 0);
    tcu_wr64(w + TCW_WELCOME_INIT_END, 1000);
    tcu_wr64(w + TCW_WELCOME_RESOLUTION, 1);
    tcu_wr64(w + TCW_WELCOME_EPOCH, (uint64_t)time(NULL));
    tcu_wr64(w + TCW_WELCOME_PID, (uint64_t)getpid());
    tcu_wr64(w + TCW_WELCOME_SAMPLING, 100000); /* 10 kHz */
    w[TCW_WELCOME_FLAGS] = TCW_FLAG_IGNORE_MEM_FAULTS;
    w[TCW_WELCOME_CPU_ARCH] = 2;
    strcpy((char *)w + TCW_WELCOME_PROGRAM_NAME, "fake_game");
    strcpy((char *)w + TCW_WELCOME_HOST_INFO, "OS: synthetic (bench/fake_client.c)\nCPU cores: 4\n");
}

/* Reads exactly len bytes (blocking). */
static int read_all(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = recv(fd, (uint8_t *)buf + got, len - got, 0);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            return -1;
        if (n > 0)
            got += (size_t)n;
    }
    return 0;
}

/* Listens, accepts servers until one asks for protocol 82, and answers its hello. */
static int serve_handshake(int port, int *fd_out, FILE *record)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 4) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &alen) != 0) {
        perror("fake_client: listen");
        return -1;
    }
    printf("%u\n", ntohs(a.sin_port));
    fflush(stdout);
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            perror("fake_client: accept");
            return -1;
        }
        uint8_t hello[12];
        if (read_all(fd, hello, sizeof hello) != 0 || memcmp(hello, TCW_SHIBBOLETH, 8) != 0) {
            close(fd);
            continue;
        }
        if (tcu_rd32(hello + 8) != TCW_PROTOCOL_VERSION) {
            uint8_t status = TCW_HANDSHAKE_PROTOCOL_MISMATCH;
            send(fd, &status, 1, MSG_NOSIGNAL);
            close(fd);
            continue;
        }
        static uint8_t w[1 + TCW_WELCOME_SIZE];
        welcome(w);
        if (send(fd, w, sizeof w, MSG_NOSIGNAL) != (ssize_t)sizeof w) {
            close(fd);
            continue;
        }
        if (record && fwrite(w, 1, sizeof w, record) != sizeof w) {
            perror("fake_client: --record");
            return -1;
        }
        close(ls);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        *fd_out = fd;
        return 0;
    }
}

/* Dials out to a collector at host:port (numeric IPv4), retrying for 10 s, and answers its hello. */
static int dial_handshake(const char *where, int *fd_out)
{
    char host[64];
    int port;
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (sscanf(where, "%63[^:]:%d", host, &port) != 2 || port < 1 || port > 65535 ||
        inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        fprintf(stderr, "fake_client: --connect %s: not IPV4:PORT\n", where);
        return -1;
    }
    a.sin_port = htons((uint16_t)port);
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            if (fd >= 0)
                close(fd);
            nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
            continue;
        }
        uint8_t hello[12];
        static uint8_t w[1 + TCW_WELCOME_SIZE];
        if (read_all(fd, hello, sizeof hello) != 0 || memcmp(hello, TCW_SHIBBOLETH, 8) != 0 ||
            tcu_rd32(hello + 8) != TCW_PROTOCOL_VERSION) {
            fprintf(stderr, "fake_client: the collector at %s did not offer protocol %d\n", where,
                    TCW_PROTOCOL_VERSION);
            close(fd);
            return -1;
        }
        welcome(w);
        if (send(fd, w, sizeof w, MSG_NOSIGNAL) != (ssize_t)sizeof w) {
            close(fd);
            return -1;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        *fd_out = fd;
        return 0;
    }
    fprintf(stderr, "fake_client: no collector listened at %s within 10 s\n", where);
    return -1;
}

int main(int argc, char **argv)
{
    int port = 0, dry_run = 0;
    const char *dial = NULL;
    const char *record = NULL;
    unsigned threads = 4;
    uint64_t zones = 10000000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            port = atoi(argv[++i]);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            zones = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--connect") == 0 && i + 1 < argc)
            dial = argv[++i];
        else if (strcmp(argv[i], "--dry-run") == 0)
            dry_run = 1;
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
            record = argv[++i];
        else {
            fprintf(stderr, "usage: fake_client [-p PORT | --connect HOST:PORT] [-n ZONES] [-t THREADS] [--dry-run] "
                            "[--record FILE]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 64 || port < 0 || port > 65535 || (record && (dry_run || dial))) {
        fprintf(stderr, "fake_client: 1 to 64 threads, a port 0 to 65535, --record without --dry-run or --connect\n");
        return 2;
    }
    stacks_build();
    static struct client c;
    c.fd = -1;
    if (record && !(c.record = fopen(record, "wb"))) {
        perror(record);
        return 1;
    }
    if (!dry_run && (dial ? dial_handshake(dial, &c.fd) : serve_handshake(port, &c.fd, c.record)) != 0)
        return 1;
    if (tcw_enc_init(&c.enc, dry_run ? count_frame : send_frame, &c) != 0)
        return 1;

    struct counts n = {0};
    double t0 = now_s();
    tcw_enc_plot_config(&c.enc, PLOT_BYTES, 1 /* memory */, 0, 1, 0);
    uint64_t rounds = zones / ZONES_PER_TICK / threads;
    int64_t clock[64];
    for (unsigned th = 0; th < threads; th++)
        clock[th] = 10000 + 37 * th;
    for (uint64_t k = 0; k < rounds && !c.enc.failed && !c.terminated; k++) {
        int64_t end = 0;
        for (unsigned th = 0; th < threads; th++) {
            tick(&c, &n, th, k, &clock[th]);
            end = clock[th];
        }
        tcw_enc_frame_mark(&c.enc, TCW_FrameMarkMsg, end, 0);
        n.frames++;
        if (k % SAMPLE_EVERY == 0) {
            for (unsigned th = 0; th < threads; th++) {
                const struct stack *s = &stacks[(k / SAMPLE_EVERY * 5 + th * 11) % STACK_COUNT];
                tcw_enc_callstack_sample(&c.enc, TID_BASE + th, clock[th] - 10, s->frames, s->n);
                n.samples++;
            }
        }
        answer_queries(&c);
    }
    tcw_enc_byte(&c.enc, TCW_Terminate);
    tcw_enc_flush(&c.enc);
    double sent_s = now_s() - t0;
    /* Answer until the server has everything (its Terminate query) or hangs up. */
    while (!dry_run && !c.enc.failed) {
        answer_queries(&c); /* the Terminate query may have come with the close */
        tcw_enc_flush(&c.enc);
        if (c.terminated || c.closed)
            break;
        struct pollfd pfd = {c.fd, POLLIN, 0};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            break;
        take_queries(&c);
    }
    double total_s = now_s() - t0;
    uint64_t events = 2 * n.zones + n.texts + n.values + n.colors + n.messages + n.plots + n.frames + n.samples;
    fprintf(stderr,
            "fake_client: zones=%llu events=%llu texts=%llu messages=%llu plots=%llu frames=%llu samples=%llu "
            "bytes=%llu send_s=%.3f total_s=%.3f queries=%llu terminated=%d failed=%d\n",
            (unsigned long long)n.zones, (unsigned long long)events, (unsigned long long)n.texts,
            (unsigned long long)n.messages, (unsigned long long)n.plots, (unsigned long long)n.frames,
            (unsigned long long)n.samples, (unsigned long long)c.bytes, sent_s, total_s, (unsigned long long)c.answered,
            c.terminated, c.enc.failed);
    if (dry_run)
        printf("fake_client alone: %.1f M events/s, %.1f M zones/s, %.1f MB/s of frames\n", events / sent_s / 1e6,
               n.zones / sent_s / 1e6, c.bytes / sent_s / 1e6);
    int ok = dry_run || (c.terminated && !c.enc.failed);
    if (c.record && fclose(c.record) != 0) {
        perror(record);
        ok = 0;
    }
    tcw_enc_free(&c.enc);
    if (c.fd >= 0)
        close(c.fd);
    return ok ? 0 : 1;
}
