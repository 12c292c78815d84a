/* libffi_samples.c - the libffi test's part for samples of program-named frames:
 * tracyc_frames_register (with a resolver called back by the client), tracyc_sample_record
 * tracyc_thread_name_set and tracyc_own_threads, called through the manifest. */
#include "libffi_sections.h"
#include "test_util.h"

#include <string.h>

#define BASE 0x0D00000000000000ull

static int resolve(void *user, uint64_t address, struct tracyc_frame *frame)
{
    static const char file[] = "ffi.script";
    frame->function = address == (BASE | 7) ? "ffi_leaf" : "ffi_root";
    frame->function_len = strlen(frame->function);
    frame->file = file;
    frame->file_len = sizeof file - 1;
    frame->line = (uint32_t)(address & 0xff);
    frame->symbol = address;
    return user == (void *)resolve ? 0 : -1;
}

void emit_samples(void)
{
    CHECK_EQ_INT(CALL("tracyc_frames_register", A_U64(BASE), A_U64(BASE | 0xff), A_STR("ffi image"), A_SIZE(9),
                      A_PTR((void *)resolve), A_PTR((void *)resolve))
                     .sword,
                 0);
    CALL("tracyc_thread_name_set", A_U32(777), A_STR("ffi sampled thread"), A_SIZE(18));
    static const uint64_t frames[] = {BASE | 7, BASE | 9};
    int64_t t = CALL0("___tracy_get_time").i64;
    CHECK_EQ_INT(CALL("tracyc_sample_record", A_U32(777), A_I64(t), A_PTR(frames), A_U32(2)).sword, 0);
    /* the profiler runs: its worker thread at least */
    uint32_t own[8] = {0};
    uint64_t n = CALL("tracyc_own_threads", A_PTR(own), A_SIZE(8)).u64;
    CHECK(n >= 1 && n <= 8 && own[0] != 0);
}

void check_samples(const struct tt_capture *c)
{
    const struct tcd_event *sample = NULL;
    for (size_t i = 0; i < tt_count(c, TCD_SAMPLE); i++)
        if (tt_nth(c, TCD_SAMPLE, i)->thread == 777)
            sample = tt_nth(c, TCD_SAMPLE, i);
    CHECK(sample != NULL);
    uint32_t depth = 0;
    const uint32_t *frames = sample ? tcd_callstack(c->dec, sample->callstack, &depth) : NULL;
    CHECK(frames && depth == 2);
    if (frames && depth == 2) {
        const struct tcd_frame *leaf = tcd_frame(c->dec, frames[0]), *root = tcd_frame(c->dec, frames[1]);
        CHECK(leaf->count == 1 && strcmp(leaf->sub[0].function, "ffi_leaf") == 0 && leaf->sub[0].line == 7);
        CHECK(root->count == 1 && strcmp(root->sub[0].function, "ffi_root") == 0 && root->sub[0].line == 9);
        CHECK_STR(leaf->image, "ffi image");
    }
    CHECK_STR(tcd_thread_name(c->dec, 777), "ffi sampled thread");
}
