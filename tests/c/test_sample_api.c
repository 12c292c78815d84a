/* Samples of program-named frames (tracyc_sample_record, tracyc_frames_register,
 * tracyc_thread_name_set) end to end: the decoder receives each sample with its callstack,
 * asks for every new frame and for each function's symbol, and the client answers from the
 * registered resolver. Bad arguments are refused with a message. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>

#define BASE 0x0C00000000000000ull
#define FUNCTION(id) (BASE | (uint64_t)(id) << 28)

static const char *const names[] = {NULL, "interp.main", "interp.step", "interp.helper"};
static int calls;

/* Frame address = function id << 28 | line; line 0 is the function itself. */
static int resolve(void *user, uint64_t address, struct tracyc_frame *frame)
{
    CHECK(user == &calls);
    calls++;
    uint64_t id = (address - BASE) >> 28, line = address & ((1u << 28) - 1);
    if (id == 0 || id > 3)
        return -1;
    frame->function = names[id];
    frame->function_len = strlen(names[id]);
    frame->file = "script.interp";
    frame->file_len = 13;
    frame->line = line ? (uint32_t)line : (uint32_t)(10 * id);
    frame->symbol = FUNCTION(id);
    return 0;
}

static void refusals(void)
{
    CHECK_EQ_INT(tracyc_frames_register(0x1000, 0x2000, "x", 1, resolve, &calls), -1); /* native addresses */
    CHECK(strstr(tracyc_last_error(), "0x0200000000000000") != NULL);
    CHECK_EQ_INT(tracyc_frames_register(BASE + 10, BASE, "x", 1, resolve, &calls), -1); /* first > last */
    CHECK_EQ_INT(tracyc_frames_register(BASE, BASE + 10, "x", 1, NULL, &calls), -1);
    CHECK_EQ_INT(tracyc_frames_register(0x0F00000000000000ull, 0x1000000000000000ull, "x", 1, resolve, &calls), -1);
    uint64_t frame = FUNCTION(1) | 5;
    CHECK_EQ_INT(tracyc_sample_record(1, ___tracy_get_time(), &frame, 0), -1);
    CHECK(strstr(tracyc_last_error(), "1 to 8191 frames") != NULL);
    CHECK_EQ_INT(tracyc_sample_record(1, ___tracy_get_time(), NULL, 1), -1);
    CHECK_EQ_INT(tracyc_sample_record(1, ___tracy_get_time(), &frame, 8192), -1);
}

static void emit(void)
{
    CHECK_EQ_INT(tracyc_frames_register(BASE, 0x0CFFFFFFFFFFFFFFull, "interp", 6, resolve, &calls), 0);
    CHECK_EQ_INT(tracyc_frames_register(BASE + 5, BASE + 6, "x", 1, resolve, &calls), -1); /* overlaps */
    CHECK(strstr(tracyc_last_error(), "overlaps") != NULL);
    tracyc_thread_name_set(4242, "interp worker", 13);
    /* main (line 3) -> step (line 21) -> helper (line 33), innermost first; then step alone,
     * then an address the resolver does not know, and a native one beside it */
    uint64_t deep[] = {FUNCTION(3) | 33, FUNCTION(2) | 21, FUNCTION(1) | 3};
    uint64_t shallow[] = {FUNCTION(2) | 22, FUNCTION(1) | 3};
    uint64_t unknown[] = {FUNCTION(9) | 1, (uint64_t)(uintptr_t)&emit};
    int64_t t = ___tracy_get_time();
    CHECK_EQ_INT(tracyc_sample_record(4242, t, deep, 3), 0);
    CHECK_EQ_INT(tracyc_sample_record(4242, t + 1000, shallow, 2), 0);
    CHECK_EQ_INT(tracyc_sample_record(4242, t + 2000, deep, 3), 0);
    CHECK_EQ_INT(tracyc_sample_record(4243, t + 500, unknown, 2), 0);
}

static const struct tcd_subframe *subframe(const struct tt_capture *c, const struct tcd_event *sample, uint32_t i)
{
    uint32_t depth;
    const uint32_t *frames = tcd_callstack(c->dec, sample->callstack, &depth);
    if (!frames || i >= depth)
        return NULL;
    const struct tcd_frame *f = tcd_frame(c->dec, frames[i]);
    return f && f->count ? &f->sub[0] : NULL;
}

static void check(const struct tt_capture *c)
{
    CHECK_EQ_INT(tt_count(c, TCD_SAMPLE), 4);
    const struct tcd_event *first = NULL, *unknown = NULL;
    for (size_t i = 0; i < tt_count(c, TCD_SAMPLE); i++) {
        const struct tcd_event *e = tt_nth(c, TCD_SAMPLE, i);
        if (e->thread == 4243)
            unknown = e;
        else if (!first)
            first = e;
    }
    CHECK(first && unknown);
    if (!first || !unknown)
        return;
    uint32_t depth;
    CHECK(tcd_callstack(c->dec, first->callstack, &depth) && depth == 3);
    const struct tcd_subframe *leaf = subframe(c, first, 0), *root = subframe(c, first, 2);
    CHECK(leaf && root);
    if (leaf && root) {
        CHECK_STR(leaf->function, "interp.helper");
        CHECK_STR(leaf->file, "script.interp");
        CHECK_EQ_INT(leaf->line, 33);
        CHECK_STR(root->function, "interp.main");
        CHECK(leaf->symbol == FUNCTION(3));
        const char *file;
        uint32_t line;
        CHECK(tcd_symbol(c->dec, leaf->symbol, &file, &line)); /* the function's definition */
        CHECK_STR(file, "script.interp");
        CHECK_EQ_INT(line, 30);
        const struct tcd_frame *frame = tcd_frame(c->dec, tcd_callstack(c->dec, first->callstack, &depth)[0]);
        CHECK_STR(frame->image, "interp");
    }
    const struct tcd_subframe *unknown_leaf = subframe(c, unknown, 0);
    CHECK(unknown_leaf && strcmp(unknown_leaf->function, "[unknown]") == 0);
    CHECK_STR(tcd_thread_name(c->dec, 4242), "interp worker");
    CHECK(calls >= 5); /* four frames, three symbols, the unknown one */
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    /* The samples counted are the program's own: the profiler's CPU samples of this process
     * (some, while a loaded machine keeps it busy) are not among them. */
    setenv("TRACY_NO_SAMPLING", "1", 1);
    refusals();
    emit(); /* before the server connects: kept and sent on connect */
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    check(cap);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_sample_api");
}
