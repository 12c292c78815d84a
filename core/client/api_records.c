/* api_records.c - writing records for the api_*.c files: text records and the serial
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

void tc_emit_text(unsigned type, const char *text, size_t len, uint8_t u8, uint32_t u32, int with_time)
{
    len = tc_text_fit(text, len, TC_MAX_TEXT);
    struct tc_thread *t;
    struct tc_rec *r = tc_thread_reserve(&t, type, len, 0);
    if (!r)
        return;
    r->u8 = u8;
    r->u32 = u32;
    if (with_time)
        r->w[0] = (uint64_t)tc_clock_now();
    memcpy((char *)tc_rec_text(r), text, len);
    tc_thread_commit(t);
}

void *tc_serial_reserve(unsigned type, size_t len, int force)
{
    if (tc_profiler_ensure() != 0)
        return NULL;
    pthread_mutex_lock(&tc_prof.serial_lock);
    struct tc_rec *r = tc_stream_reserve(&tc_prof.serial, tc_rec_size(type, len), force);
    if (!r) {
        pthread_mutex_unlock(&tc_prof.serial_lock);
        tc_count_drop();
        return NULL;
    }
    r->type = (uint8_t)type;
    r->len = (uint16_t)len;
    return r;
}

void tc_serial_commit(void)
{
    tc_stream_commit(&tc_prof.serial);
    pthread_mutex_unlock(&tc_prof.serial_lock);
}
