/* fuzz_util.c - decoder runs, digests and item-frame streams for the fuzz targets. */
#include "fuzz_util.h"

#include "wire/encode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_DECODER_MEMORY ((size_t)64 << 20)

int fz_version(const uint8_t **data, size_t *len)
{
    if (*len == 0)
        return TCW_V82;
    uint8_t b = **data;
    (*data)++;
    (*len)--;
    int vi = tcw_version_index(b);
    return vi >= 0 ? vi : b % TCW_VERSION_COUNT;
}

size_t fz_handshake(uint8_t *out, size_t cap, int vi)
{
    if (cap < FZ_HANDSHAKE_MAX)
        abort();
    uint8_t w[TCW_WELCOME_SIZE];
    double timer_mul = 1.0;
    int64_t init_begin = 1000, init_end = 2000;
    uint64_t resolution = 10, epoch = 1735689600, pid = 4242;
    memset(w, 0, sizeof w);
    out[0] = TCW_HANDSHAKE_WELCOME;
    memcpy(w + TCW_WELCOME_TIMER_MUL, &timer_mul, 8);
    memcpy(w + TCW_WELCOME_INIT_BEGIN, &init_begin, 8);
    memcpy(w + TCW_WELCOME_INIT_END, &init_end, 8);
    memcpy(w + TCW_WELCOME_RESOLUTION, &resolution, 8);
    memcpy(w + TCW_WELCOME_EPOCH, &epoch, 8);
    memcpy(w + TCW_WELCOME_PID, &pid, 8);
    w[TCW_WELCOME_CPU_ARCH] = 2;
    memcpy(w + TCW_WELCOME_PROGRAM_NAME, "fuzz", 4);
    memcpy(w + TCW_WELCOME_HOST_INFO, "OS: Linux\n", 10);
    tcw_welcome_to_version(out + 1, w, vi);
    return 1u + tcw_versions[vi].welcome_size;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static void on_event(void *user, const struct tcd_event *ev)
{
    struct fz_run *run = user;
    uint64_t h = run->hash, bits;
    h = mix(h, ev->kind);
    h = mix(h, ev->thread);
    h = mix(h, (uint64_t)ev->time);
    h = mix(h, (uint64_t)ev->time2);
    h = mix(h, ((uint64_t)ev->srcloc << 32) | ev->id);
    h = mix(h, ((uint64_t)ev->color << 32) | ((uint64_t)ev->query << 16) | ev->severity);
    h = mix(h, ((uint64_t)ev->format << 16) | ((uint64_t)ev->flags << 8) | ev->is_int);
    h = mix(h, ev->value);
    h = mix(h, ev->address);
    memcpy(&bits, &ev->dvalue, 8);
    h = mix(h, bits);
    h = mix(h, ev->text_len);
    for (size_t i = 0; i < ev->text_len; i++) /* reads every byte: ASan checks the span */
        h = mix(h, (uint8_t)ev->text[i]);
    run->hash = h;
    run->events++;
    if (run->forward)
        run->forward(run->forward_user, ev);
}

static void on_query(void *user, const uint8_t packet[13])
{
    struct fz_run *run = user;
    for (int i = 0; i < TCW_QUERY_SIZE; i++)
        run->hash = mix(run->hash, packet[i]);
    run->queries++;
}

struct tcd_decoder *fz_decoder_new(struct fz_run *run, int vi)
{
    static const struct tcd_callbacks callbacks = {on_event, on_query};
    struct tcd_limits limits = {.max_memory = FUZZ_DECODER_MEMORY};
    struct tcd_decoder *dec = tcd_decoder_new(&callbacks, run, &limits);
    if (!dec || tcd_decoder_set_version(dec, tcw_versions[vi].protocol) != 0)
        abort();
    return dec;
}

void fz_feed(struct tcd_decoder *dec, const uint8_t *data, size_t len, size_t chunk)
{
    if (chunk == 0)
        chunk = len;
    for (size_t off = 0; off < len; off += chunk)
        tcd_decoder_feed(dec, data + off, len - off < chunk ? len - off : chunk);
    tcd_decoder_close(dec);
}

void fz_finish(struct tcd_decoder *dec, struct fz_run *run)
{
    run->state = tcd_decoder_state(dec);
    snprintf(run->error, sizeof run->error, "%s", tcd_decoder_error(dec));
}

void fz_check_same(const struct fz_run *a, const struct fz_run *b)
{
    if (a->events == b->events && a->queries == b->queries && a->hash == b->hash && a->state == b->state &&
        strcmp(a->error, b->error) == 0)
        return;
    fprintf(stderr,
            "decoding depends on chunking:\n  whole:   %llu events, %llu queries, state %d, \"%s\"\n"
            "  chunked: %llu events, %llu queries, state %d, \"%s\"\n",
            (unsigned long long)a->events, (unsigned long long)a->queries, a->state, a->error,
            (unsigned long long)b->events, (unsigned long long)b->queries, b->state, b->error);
    abort();
}

struct sink {
    uint8_t *p;
    size_t len, cap;
};

static int sink_write(void *user, const void *data, size_t len)
{
    struct sink *s = user;
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len)
            cap *= 2;
        uint8_t *p = realloc(s->p, cap);
        if (!p)
            abort();
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, data, len);
    s->len += len;
    return 0;
}

uint8_t *fz_items_to_stream(const uint8_t *data, size_t len, size_t *out_len)
{
    struct sink out = {0};
    struct tcw_encoder enc;
    if (tcw_enc_init(&enc, sink_write, &out) != 0)
        abort();
    while (len >= 4) {
        uint32_t n;
        memcpy(&n, data, 4);
        data += 4;
        len -= 4;
        if (n > len)
            n = (uint32_t)len;
        if (n > TCW_TARGET_FRAME_SIZE)
            n = TCW_TARGET_FRAME_SIZE;
        if (n == 0)
            continue;
        memcpy(tcw_enc_item(&enc, n), data, n);
        tcw_enc_flush(&enc);
        data += n;
        len -= n;
    }
    tcw_enc_free(&enc);
    *out_len = out.len;
    return out.p;
}
