/* record_stream - records a real client's stream as seed inputs for the fuzz targets.
 *
 *   record_stream PORT CORPUS_DIR NAME
 *
 * Connects to a tracyc (or Tracy 0.14) client on 127.0.0.1:PORT, runs a whole capture
 * (answering nothing itself: the decoder's queries go to the client, as a server's do),
 * and writes CORPUS_DIR/<target>/NAME for each target:
 *   fuzz_decode_handshake  every byte, from the handshake status on
 *   fuzz_decode            the bytes after the handshake (LZ4 frames)
 *   fuzz_decode_items      the decompressed frames in the item-frame format (fuzz_util.h)
 *   fuzz_export            the same
 *   fuzz_queries           the query packets the decoder sent
 * The welcome's host description is replaced by a fixed one: seeds name no machine.
 */
#include "wire/decode.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <lz4.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RING_SIZE (3 * TCW_TARGET_FRAME_SIZE + 1)

struct buf {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct buf *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(2);
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

struct recorder {
    int fd;
    struct buf raw, items, queries;
    size_t parsed; /* bytes of raw already split into frames */
    LZ4_streamDecode_t lz4;
    uint8_t *ring;
    size_t ring_off;
};

static void on_query(void *user, const uint8_t packet[13])
{
    struct recorder *r = user;
    put(&r->queries, packet, TCW_QUERY_SIZE);
    if (send(r->fd, packet, TCW_QUERY_SIZE, MSG_NOSIGNAL) != TCW_QUERY_SIZE)
        fprintf(stderr, "record_stream: the client stopped reading queries\n");
}

/* Decompresses every whole frame after the handshake into the item-frame format. */
static void split_frames(struct recorder *r)
{
    const size_t hs = 1 + TCW_WELCOME_SIZE;
    if (r->parsed < hs)
        r->parsed = hs;
    while (r->raw.len >= r->parsed + 4) {
        uint32_t csize;
        memcpy(&csize, r->raw.p + r->parsed, 4);
        if (r->raw.len < r->parsed + 4 + csize)
            return;
        char *out = (char *)r->ring + r->ring_off;
        int n = LZ4_decompress_safe_continue(&r->lz4, (const char *)r->raw.p + r->parsed + 4, out, (int)csize,
                                             TCW_TARGET_FRAME_SIZE);
        if (n <= 0) {
            fprintf(stderr, "record_stream: a frame does not decompress\n");
            exit(2);
        }
        uint32_t len = (uint32_t)n;
        put(&r->items, &len, 4);
        put(&r->items, out, len);
        r->ring_off += len;
        if (r->ring_off > 2 * (size_t)TCW_TARGET_FRAME_SIZE)
            r->ring_off = 0;
        r->parsed += 4 + csize;
    }
}

static int connect_retrying(uint16_t port)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
            return fd;
        close(fd);
        nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
    }
    return -1;
}

static void write_seed(const char *dir, const char *target, const char *name, const struct buf *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, target);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    printf("%-22s %-12s %6zu bytes\n", target, name, b->len);
}

static void scrub_host_info(struct buf *raw)
{
    static const char host[] = "OS: Linux\nCompiler: tracyc (C11)\nArch: x86_64\n";
    if (raw->len < 1 + TCW_WELCOME_SIZE)
        return;
    uint8_t *info = raw->p + 1 + TCW_WELCOME_HOST_INFO;
    memset(info, 0, TCW_HOST_INFO_SIZE);
    memcpy(info, host, sizeof host - 1);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: record_stream PORT CORPUS_DIR NAME\n");
        return 2;
    }
    struct recorder r = {.ring = malloc(RING_SIZE)};
    static const struct tcd_callbacks callbacks = {NULL, on_query};
    struct tcd_decoder *dec = tcd_decoder_new(&callbacks, &r, NULL);
    r.fd = connect_retrying((uint16_t)atoi(argv[1]));
    if (r.fd < 0 || !dec || !r.ring) {
        fprintf(stderr, "record_stream: cannot connect to port %s\n", argv[1]);
        return 2;
    }
    uint8_t hello[12];
    tcd_handshake_request(hello);
    send(r.fd, hello, sizeof hello, MSG_NOSIGNAL);
    LZ4_setStreamDecode(&r.lz4, NULL, 0);
    uint8_t chunk[65536];
    enum tcd_state state = TCD_STATE_HANDSHAKE;
    while (state == TCD_STATE_HANDSHAKE || state == TCD_STATE_RUNNING) {
        ssize_t n = recv(r.fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
            state = tcd_decoder_close(dec);
            break;
        }
        put(&r.raw, chunk, (size_t)n);
        split_frames(&r);
        state = tcd_decoder_feed(dec, chunk, (size_t)n);
    }
    static const uint8_t terminate[TCW_QUERY_SIZE] = {TCW_QUERY_TERMINATE};
    send(r.fd, terminate, sizeof terminate, MSG_NOSIGNAL);
    close(r.fd);
    if (state != TCD_STATE_DONE) {
        fprintf(stderr, "record_stream: capture incomplete: %s\n", tcd_decoder_error(dec));
        return 1;
    }
    scrub_host_info(&r.raw);
    struct buf after = {r.raw.p + 1 + TCW_WELCOME_SIZE, r.raw.len - 1 - TCW_WELCOME_SIZE, 0};
    write_seed(argv[2], "fuzz_decode_handshake", argv[3], &r.raw);
    write_seed(argv[2], "fuzz_decode", argv[3], &after);
    write_seed(argv[2], "fuzz_decode_items", argv[3], &r.items);
    write_seed(argv[2], "fuzz_export", argv[3], &r.items);
    write_seed(argv[2], "fuzz_queries", argv[3], &r.queries);
    tcd_decoder_free(dec);
    free(r.raw.p);
    free(r.items.p);
    free(r.queries.p);
    free(r.ring);
    return 0;
}
