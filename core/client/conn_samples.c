/* conn_samples.c - frames a program names itself (tracyc_frames_register): the registered
 * ranges, and the answers to the server's CallstackFrame and Symbol queries about their
 * addresses, given at once from the range's resolver (docs/protocol.md §26.7). The samples
 * that carry such frames (tracyc_sample_record) go out as every CPU sample does. */
#include "client/conn.h"

#include "tracyc.h"
#include "wire/protocol.h"

#include <pthread.h>
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
    if (!image)
        image_len = 0;
    char *copy = malloc(image_len + 1);
    if (!copy) {
        *error = "tracyc_frames_register: out of memory";
        return -1;
    }
    memcpy(copy, image ? image : "", image_len);
    copy[image_len] = 0;
    pthread_mutex_lock(&ranges_lock);
    const char *refused = nranges == MAX_RANGES ? "tracyc_frames_register: 8 ranges are registered already" : NULL;
    for (int i = 0; i < nranges && !refused; i++)
        if (first <= ranges[i].last && ranges[i].first <= last)
            refused = "tracyc_frames_register: the range overlaps one registered before";
    if (!refused)
        ranges[nranges++] = (struct range){first, last, copy, image_len, resolve, user};
    pthread_mutex_unlock(&ranges_lock);
    if (refused) {
        free(copy);
        *error = refused;
        return -1;
    }
    return 0;
}

void tc_frames_forget_after_fork(void)
{
    pthread_mutex_init(&ranges_lock, NULL);
}

/* The resolver's answer for address. 0 when address is in no range; *known says whether
 * the resolver knew it. The resolver is called without the lock held. */
static int ask(uint64_t address, struct tracyc_frame *f, const char **image, size_t *image_len, int *known)
{
    tracyc_frame_resolver resolve = NULL;
    void *user = NULL;
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < nranges && !resolve; i++) {
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

static size_t fit(size_t len)
{
    return len < TCW_MAX_STRING ? len : TCW_MAX_STRING;
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
    struct tcw_encoder *e = &c->enc;
    if (query == TCW_QUERY_SYMBOL) {
        tcw_enc_symbol_information(e, address, f.file, fit(f.file_len), f.line);
        return 1;
    }
    uint64_t symbol = f.symbol >= TC_FRAMES_LOWEST && f.symbol <= TC_FRAMES_HIGHEST ? f.symbol : 0;
    tcw_enc_callstack_frame_size(e, address, 1, image, fit(image_len));
    tcw_enc_callstack_frame(e, f.function, fit(f.function_len), f.file, fit(f.file_len), f.line, symbol, 0);
    return 1;
}
