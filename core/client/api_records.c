/* api_records.c - reserving records for the api_*.c files: text records and the serial
 * stream. */
#include "client/api.h"

#include <string.h>

size_t tc_text_fit(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return len;
    len = max;
    /* Back off over continuation bytes so a multi-byte character is never split. */
    while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
        len--;
    return len;
}

union tc_rec *tc_thread_reserve_text(struct tc_thread **out, unsigned type, const char *text, size_t *len)
{
    *len = tc_text_fit(text, *len, TC_MAX_TEXT);
    union tc_rec *r = tc_thread_reserve(out, type, *len, 0);
    if (r)
        memcpy(tc_rec_text(r), text, *len);
    return r;
}

/* Writes the callstack record at r; returns where the record it belongs to starts. */
static union tc_rec *put_callstack(union tc_rec *r, const uint64_t *frames, int n)
{
    size_t bytes = (size_t)n * 8;
    r->callstack = (struct tc_rec_callstack){.type = TC_REC_CALLSTACK, .len = (uint16_t)bytes};
    memcpy(tc_rec_text(r), frames, bytes);
    return (union tc_rec *)((uint8_t *)r + tc_rec_size(TC_REC_CALLSTACK, bytes));
}

union tc_rec *tc_thread_reserve_callstack(struct tc_thread **out, unsigned type, size_t len, const uint64_t *frames,
                                          int n)
{
    if (n <= 0)
        return tc_thread_reserve(out, type, len, 0);
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return NULL;
    size_t size = tc_rec_size(TC_REC_CALLSTACK, (size_t)n * 8) + tc_rec_size(type, len);
    union tc_rec *r = tc_stream_reserve(&t->stream, size, 0);
    if (!r) {
        tc_count_drop();
        return NULL;
    }
    r = put_callstack(r, frames, n);
    r->any = (struct tc_rec_any){.type = (uint8_t)type, .len = (uint16_t)len};
    *out = t;
    return r;
}

union tc_rec *tc_thread_reserve_text_callstack(struct tc_thread **out, unsigned type, const char *text, size_t *len,
                                               const uint64_t *frames, int n)
{
    *len = tc_text_fit(text, *len, TC_MAX_TEXT);
    union tc_rec *r = tc_thread_reserve_callstack(out, type, *len, frames, n);
    if (r)
        memcpy(tc_rec_text(r), text, *len);
    return r;
}

union tc_rec *tc_serial_reserve(unsigned type, size_t len, int force)
{
    if (tc_profiler_ensure() != 0)
        return NULL;
    pthread_mutex_lock(&tc_prof.serial_lock);
    union tc_rec *r = tc_stream_reserve(&tc_prof.serial, tc_rec_size(type, len), force);
    if (!r) {
        pthread_mutex_unlock(&tc_prof.serial_lock);
        tc_count_drop();
        return NULL;
    }
    r->any = (struct tc_rec_any){.type = (uint8_t)type, .len = (uint16_t)len};
    return r;
}

union tc_rec *tc_serial_reserve_callstack(unsigned type, size_t len, int force, const uint64_t *frames, int n)
{
    if (n <= 0)
        return tc_serial_reserve(type, len, force);
    size_t cs = tc_rec_size(TC_REC_CALLSTACK, (size_t)n * 8);
    /* Reserved as one record of the combined size, then split in two. */
    union tc_rec *r = tc_serial_reserve(type, cs + tc_rec_size(type, len) - tc_rec_fixed_size(type), force);
    if (!r)
        return NULL;
    r = put_callstack(r, frames, n);
    r->any = (struct tc_rec_any){.type = (uint8_t)type, .len = (uint16_t)len};
    return r;
}

union tc_rec *tc_serial_reserve_text(unsigned type, const char *text, size_t len, int force)
{
    len = tc_text_fit(text, len, TC_MAX_TEXT);
    union tc_rec *r = tc_serial_reserve(type, len, force);
    if (r)
        memcpy(tc_rec_text(r), text, len);
    return r;
}

void tc_serial_commit(void)
{
    tc_stream_commit(&tc_prof.serial);
    pthread_mutex_unlock(&tc_prof.serial_lock);
}
