/* api.h - helpers shared by the api_*.c files that implement the public functions. */
#ifndef TRACYC_CLIENT_API_H
#define TRACYC_CLIENT_API_H

#include "client/clock.h"
#include "client/lifecycle.h"
#include "client/record.h"
#include "tracyc.h"

#include <stddef.h>
#include <stdint.h>

/* Reserves a record in the calling thread's stream; NULL (counted as a drop) when the
 * library is inert or the buffer limit is reached. Commit with tc_thread_commit. */
static inline struct tc_rec *tc_thread_reserve(struct tc_thread **out, unsigned type, size_t len, int force)
{
    struct tc_thread *t = tc_thread_get();
    if (__builtin_expect(!t, 0))
        return NULL;
    struct tc_rec *r = (struct tc_rec *)tc_stream_reserve(&t->stream, tc_rec_size(type, len), force);
    if (__builtin_expect(!r, 0)) {
        tc_count_drop();
        return NULL;
    }
    r->type = (uint8_t)type;
    r->u8 = 0;
    r->len = (uint16_t)len;
    r->u32 = 0;
    *out = t;
    return r;
}

static inline void tc_thread_commit(struct tc_thread *t)
{
    tc_stream_commit(&t->stream);
}

/* Serial stream: memory, locks, serial GPU events. Reserve under the lock, write,
 * then tc_serial_commit (which releases the lock). NULL: dropped, lock not held. */
void *tc_serial_reserve(unsigned type, size_t len, int force);
void tc_serial_commit(void);

/* Length of text cut to at most max bytes without splitting a UTF-8 sequence. */
size_t tc_text_fit(const char *text, size_t len, size_t max);

/* Records a text record (zone text/name, message, app info) on the calling thread. */
void tc_emit_text(unsigned type, const char *text, size_t len, uint8_t u8, uint32_t u32, int with_time);

#endif
