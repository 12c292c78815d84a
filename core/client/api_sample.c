/* api_sample.c - samples of stacks the program names itself (tracyc_sample_record,
 * tracyc_frames_register) and names of other threads (tracyc_thread_name_set). */
#include "client/api.h"
#include "client/conn.h"
#include "client/state.h"

#include <stdlib.h>
#include <string.h>

/* The most addresses one CallstackPayload holds: its length is a u16 of bytes. */
#define MAX_SAMPLE_FRAMES 8191u

int tracyc_frames_register(uint64_t first, uint64_t last, const char *image, size_t image_len,
                           tracyc_frame_resolver resolve, void *user)
{
    const char *error;
    if (tc_frames_add(first, last, image, image_len, resolve, user, &error) != 0) {
        tc_set_error("%s", error);
        return -1;
    }
    return 0;
}

int tracyc_sample_record(uint32_t thread, int64_t time, const uint64_t *frames, uint32_t count)
{
    if (!frames || count == 0 || count > MAX_SAMPLE_FRAMES) {
        tc_set_error("tracyc_sample_record: 1 to %u frames are needed, not %u", MAX_SAMPLE_FRAMES, count);
        return -1;
    }
    size_t len = (size_t)count * 8;
    union tc_rec *r = tc_serial_reserve(TC_REC_SAMPLE, len, 0);
    if (!r)
        return -1;
    r->sample.thread = thread;
    r->sample.time = time;
    memcpy(tc_rec_text(r), frames, len);
    tc_serial_commit();
    return 0;
}

void tracyc_thread_name_set(uint32_t thread, const char *name, size_t len)
{
    if (!name || tc_profiler_ensure() != 0)
        return;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, name, len);
    copy[len] = 0;
    tc_names_set(thread, copy);
    free(copy);
}
