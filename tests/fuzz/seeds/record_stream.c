/* record_stream - records a real client's stream as seed inputs for the fuzz targets.
 *
 *   record_stream PROTOCOL PORT CORPUS_DIR NAME
 *       connects to a tracyc (or upstream Tracy) client on 127.0.0.1:PORT and runs a whole
 *       capture in that protocol version (the decoder's queries go to the client, as a
 *       server's do)
 *   record_stream PROTOCOL --replay CLIENT_BYTES CORPUS_DIR NAME
 *       reads a recorded client stream instead (tests/upstream/fixtures/<protocol>.client)
 *
 * and writes CORPUS_DIR/<target>/NAME for each target, every input but fuzz_export's
 * starting with the protocol number (the version byte of fuzz_util.h):
 *   fuzz_decode_handshake  every byte, from the handshake status on
 *   fuzz_decode            the bytes after the handshake (LZ4 frames)
 *   fuzz_decode_items      the decompressed frames in the item-frame format (fuzz_util.h)
 *   fuzz_export            the same, protocol 82 only (that target reads 82)
 *   fuzz_queries           the query packets the decoder sent
 * The welcome's host description is replaced by a fixed one: seeds name no machine.
 */
#include "decode/decode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

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
    int vi; /* protocol version index */
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
    if (r->fd >= 0 && send(r->fd, packet, TCW_QUERY_SIZE, MSG_NOSIGNAL) != TCW_QUERY_SIZE)
        fprintf(stderr, "record_stream: the client stopped reading queries\n");
}

/* Decompresses every whole frame after the handshake into the item-frame format. */
static void split_frames(struct recorder *r)
{
    const size_t hs = 1u + tcw_versions[r->vi].welcome_size;
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

/* Writes the seed, prefixed with the protocol number unless version is 0. */
static void write_seed(const char *dir, const char *target, const char *name, const struct buf *b, uint8_t version)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, target);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (version && fputc(version, f) == EOF) || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    printf("%-22s %-12s %6zu bytes\n", target, name, b->len);
}

static void scrub_host_info(struct buf *raw, int vi)
{
    static const char host[] = "OS: Linux\nCompiler: tracyc (C11)\nArch: x86_64\n";
    const struct tcw_version *v = &tcw_versions[vi];
    if (raw->len < 1u + v->welcome_size)
        return;
    uint8_t *info = raw->p + 1 + TCW_WELCOME_HOST_INFO + (v->welcome_delay ? 8 : 0);
    memset(info, 0, TCW_HOST_INFO_SIZE);
    memcpy(info, host, sizeof host - 1);
}

static int read_file(const char *path, struct buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(b, chunk, n);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    int replay = argc == 6 && !strcmp(argv[2], "--replay");
    if (argc != 5 && !replay) {
        fprintf(stderr, "usage: record_stream PROTOCOL PORT CORPUS_DIR NAME\n"
                        "       record_stream PROTOCOL --replay CLIENT_BYTES CORPUS_DIR NAME\n");
        return 2;
    }
    const char *corpus = argv[replay ? 4 : 3], *name = argv[replay ? 5 : 4];
    uint32_t protocol = (uint32_t)atoi(argv[1]);
    struct recorder r = {.ring = malloc(RING_SIZE), .fd = -1, .vi = tcw_version_index(protocol)};
    static const struct tcd_callbacks callbacks = {NULL, on_query};
    struct tcd_decoder *dec = tcd_decoder_new(&callbacks, &r, NULL);
    if (r.vi < 0 || !dec || !r.ring || tcd_decoder_set_version(dec, protocol) != 0) {
        fprintf(stderr, "record_stream: protocol %s is not one tracyc speaks\n", argv[1]);
        return 2;
    }
    LZ4_setStreamDecode(&r.lz4, NULL, 0);
    enum tcd_state state = TCD_STATE_HANDSHAKE;
    if (replay) {
        if (read_file(argv[3], &r.raw) != 0) {
            perror(argv[3]);
            return 2;
        }
        split_frames(&r);
        state = tcd_decoder_feed(dec, r.raw.p, r.raw.len);
    } else {
        r.fd = connect_retrying((uint16_t)atoi(argv[2]));
        if (r.fd < 0) {
            fprintf(stderr, "record_stream: cannot connect to port %s\n", argv[2]);
            return 2;
        }
        uint8_t hello[12];
        tcd_decoder_hello(dec, hello);
        send(r.fd, hello, sizeof hello, MSG_NOSIGNAL);
        uint8_t chunk[65536];
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
    }
    if (state != TCD_STATE_DONE) {
        fprintf(stderr, "record_stream: capture incomplete: %s\n", tcd_decoder_error(dec));
        return 1;
    }
    scrub_host_info(&r.raw, r.vi);
    size_t hs = 1u + tcw_versions[r.vi].welcome_size;
    struct buf after = {r.raw.p + hs, r.raw.len - hs, 0};
    uint8_t v = (uint8_t)protocol;
    write_seed(corpus, "fuzz_decode_handshake", name, &r.raw, v);
    write_seed(corpus, "fuzz_decode", name, &after, v);
    write_seed(corpus, "fuzz_decode_items", name, &r.items, v);
    if (protocol == TCW_PROTOCOL_VERSION)
        write_seed(corpus, "fuzz_export", name, &r.items, 0);
    write_seed(corpus, "fuzz_queries", name, &r.queries, v);
    tcd_decoder_free(dec);
    free(r.raw.p);
    free(r.items.p);
    free(r.queries.p);
    free(r.ring);
    return 0;
}
