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
