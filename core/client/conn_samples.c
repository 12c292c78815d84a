/* conn_samples.c - samples recorded with tracyc_sample_record on the wire, and the
 * answers about frames in the ranges registered with tracyc_frames_register
 * (docs/protocol.md §25.6).
 *
 * A sample is a CallstackPayload (its frame addresses) then a CallstackSample item, whose
 * time rides the context-switch chain (R_ctx, §25.4). A CallstackFrame or Symbol query for
 * a registered address is answered from the range's resolver: the image, one frame
 * (function, file, line, the function's symbol address), or the symbol's file and line.
 */
#include "client/conn.h"

#include "client/record.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 8

struct range {
    uint64_t first, last;
    char *image;
    size_t image_len;
    tracyc_frame_resolver resolve;
    void *user;
};

static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static struct range ranges[MAX_RANGES];
static int nranges;

int tc_frames_add(uint64_t first, uint64_t last, const char *image, size_t image_len,
                  int (*resolve)(void *, uint64_t, struct tracyc_frame *), void *user, const char **error)
{
    if (first > last || first < TC_FRAMES_LOWEST || last > TC_FRAMES_HIGHEST || !resolve) {
        *error = "tracyc_frames_register: the range must lie within [0x0200000000000000, 0x0FFFFFFFFFFFFFFF], "
                 "first <= last, with a resolver";
        return -1;
    }
    char *copy = malloc(image_len + 1);
    if (!copy) {
        *error = "tracyc_frames_register: out of memory";
        return -1;
    }
    memcpy(copy, image ? image : "", image ? image_len : 0);
    copy[image ? image_len : 0] = 0;
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < nranges; i++) {
        if (first <= ranges[i].last && ranges[i].first <= last) {
            pthread_mutex_unlock(&ranges_lock);
            free(copy);
            *error = "tracyc_frames_register: the range overlaps one registered before";
            return -1;
        }
    }
    if (nranges == MAX_RANGES) {
        pthread_mutex_unlock(&ranges_lock);
        free(copy);
        *error = "tracyc_frames_register: 8 ranges are registered already";
        return -1;
    }
    ranges[nranges++] = (struct range){first, last, copy, image ? image_len : 0, resolve, user};
    pthread_mutex_unlock(&ranges_lock);
    return 0;
}

static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

void tc_conn_sample(struct tc_conn *c, const struct tc_rec_sample *r)
{
    struct tc_encoder *e = &c->enc;
    const uint8_t *frames = (const uint8_t *)tc_rec_text((const union tc_rec *)r);
    uint8_t *p = tc_enc_item(e, 11 + r->len);
    p[0] = TCW_CallstackPayload;
    wr64(p + 1, 0);
    memcpy(p + 9, &r->len, 2);
    memcpy(p + 11, frames, r->len);
    /* the compact time of §8.3, on the context-switch chain */
    int64_t d = r->time - e->ref_ctx;
    e->ref_ctx = r->time;
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        p = tc_enc_item(e, 7);
        p[0] = TCW_CallstackSample16;
        uint16_t v = (uint16_t)d;
        memcpy(p + 5, &v, 2);
    } else if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        p = tc_enc_item(e, 9);
        p[0] = TCW_CallstackSample32;
        wr32(p + 5, (uint32_t)(d - TCW_DELTA16_LIMIT));
    } else {
        p = tc_enc_item(e, 13);
        p[0] = TCW_CallstackSample;
        wr64(p + 5, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    }
    wr32(p + 1, r->thread);
}

static void put_string(struct tc_encoder *e, uint8_t type8, uint8_t type16, const char *text, size_t len)
{
    if (len > TCW_MAX_STRING)
        len = TCW_MAX_STRING;
    if (len <= 255) {
        uint8_t *p = tc_enc_item(e, 2 + len);
        p[0] = type8;
        p[1] = (uint8_t)len;
        memcpy(p + 2, text, len);
    } else {
        uint8_t *p = tc_enc_item(e, 3 + len);
        p[0] = type16;
        uint16_t v = (uint16_t)(len - 256);
        memcpy(p + 1, &v, 2);
        memcpy(p + 3, text, len);
    }
}

/* The resolver's answer for address, copied out under the lock (the registry is fixed
 * once made, but its resolvers may be called from any thread). 0 when address is in no
 * range; *known says whether the resolver knew it. */
static int ask(uint64_t address, struct tracyc_frame *f, const char **image, size_t *image_len, int *known)
{
    tracyc_frame_resolver resolve = NULL;
    void *user = NULL;
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < nranges; i++) {
        if (address >= ranges[i].first && address <= ranges[i].last) {
            resolve = ranges[i].resolve;
            user = ranges[i].user;
            *image = ranges[i].image;
            *image_len = ranges[i].image_len;
        }
    }
    pthread_mutex_unlock(&ranges_lock);
    if (!resolve)
        return 0;
    memset(f, 0, sizeof *f);
    *known = resolve(user, address, f) == 0 && f->function && f->file;
    return 1;
}

int tc_conn_answer_frame(struct tc_conn *c, uint8_t query, uint64_t address)
{
    struct tracyc_frame f;
    const char *image;
    size_t image_len;
    int known;
    if (!ask(address, &f, &image, &image_len, &known))
        return 0;
    if (!known)
        f = (struct tracyc_frame){"[unknown]", 9, "[unknown]", 9, 0, 0};
    struct tc_encoder *e = &c->enc;
    if (query == TCW_QUERY_SYMBOL) {
        put_string(e, TCW_SingleStringData8, TCW_SingleStringData, f.file, f.file_len);
        uint8_t *p = tc_enc_item(e, 13);
        p[0] = TCW_SymbolInformation;
        wr32(p + 1, f.line);
        wr64(p + 5, address);
        return 1;
    }
    put_string(e, TCW_SingleStringData8, TCW_SingleStringData, image, image_len);
    uint8_t *p = tc_enc_item(e, 10);
    p[0] = TCW_CallstackFrameSize;
    wr64(p + 1, address);
    p[9] = 1;
    put_string(e, TCW_SingleStringData8, TCW_SingleStringData, f.function, f.function_len);
    put_string(e, TCW_SecondStringData8, TCW_SecondStringData, f.file, f.file_len);
    p = tc_enc_item(e, 17);
    p[0] = TCW_CallstackFrame;
    wr32(p + 1, f.line);
    wr64(p + 5, f.symbol >= TC_FRAMES_LOWEST && f.symbol <= TC_FRAMES_HIGHEST ? f.symbol : 0);
    wr32(p + 13, 0);
    return 1;
}
