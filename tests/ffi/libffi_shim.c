/* libffi_shim.c - the libffi test's part for the flat API (tracyc_ffi.h), run on a
 * thread of its own so its thread name does not replace the main thread's. Strings are
 * passed with lengths shorter than their buffers, so a shim that read up to a NUL would
 * be caught. */
#include "libffi_sections.h"
#include "test_util.h"

#include <pthread.h>
#include <string.h>

static uint32_t srcloc_id, plot_id, int_plot_id, frames_id, discont_id;
static uint64_t zone, unknown_zone;

static void *shim_thread(void *arg)
{
    (void)arg;
    CALL("tracyc_ffi_thread_name", A_STR("shim thread and more"), A_SIZE(11));
    srcloc_id = (uint32_t)CALL("tracyc_ffi_srcloc_register", A_STR("shim zone!"), A_SIZE(9), A_STR("shim_fn!"),
                               A_SIZE(7), A_STR("shim.c!"), A_SIZE(6), A_U32(77), A_U32(0x0a0b0c))
                    .word;
    plot_id = (uint32_t)CALL("tracyc_ffi_name_register", A_STR("shim plot!"), A_SIZE(9)).word;
    int_plot_id = (uint32_t)CALL("tracyc_ffi_name_register", A_STR("shim int plot"), A_SIZE(13)).word;
    frames_id = (uint32_t)CALL("tracyc_ffi_name_register", A_STR("shim frames"), A_SIZE(11)).word;
    discont_id = (uint32_t)CALL("tracyc_ffi_name_register", A_STR("shim discont"), A_SIZE(12)).word;

    zone = CALL("tracyc_ffi_zone_begin", A_U32(srcloc_id)).u64;
    CALL("tracyc_ffi_zone_text", A_U64(zone), A_STR("shim text!"), A_SIZE(9));
    CALL("tracyc_ffi_zone_name", A_U64(zone), A_STR("shim name!"), A_SIZE(9));
    CALL("tracyc_ffi_zone_color", A_U64(zone), A_U32(0x00ff00));
    CALL("tracyc_ffi_zone_value", A_U64(zone), A_U64(99));
    CALL("tracyc_ffi_message", A_STR("shim msg!"), A_SIZE(8), A_U32(0x0000ff));
    CALL("tracyc_ffi_plot", A_U32(plot_id), A_F64(3.5));
    CALL("tracyc_ffi_plot_int", A_U32(int_plot_id), A_I64(-7));
    CALL("tracyc_ffi_frame_mark", A_U32(frames_id));
    CALL("tracyc_ffi_frame_mark_start", A_U32(discont_id));
    CALL("tracyc_ffi_frame_mark_end", A_U32(discont_id));
    CALL("tracyc_ffi_zone_end", A_U64(zone));
    unknown_zone = CALL("tracyc_ffi_zone_begin", A_U32(60000)).u64;
    return NULL;
}

void emit_shim(void)
{
    pthread_t t;
    pthread_create(&t, NULL, shim_thread, NULL);
    pthread_join(t, NULL);
}

void check_shim(const struct tt_capture *c)
{
    CHECK(srcloc_id != 0 && plot_id != 0 && int_plot_id != 0 && frames_id != 0 && discont_id != 0);
    CHECK(zone != 0);
    CHECK_EQ_INT(unknown_zone, 0);
    const struct tcd_event *b = nth_on_thread(c, TCD_ZONE_BEGIN, "shim thread", 0);
    CHECK(b != NULL);
    if (b) {
        const struct tcd_srcloc *s = tcd_srcloc(c->dec, b->srcloc);
        CHECK_STR(s->name, "shim zone");
        CHECK_STR(s->function, "shim_fn");
        CHECK_STR(s->file, "shim.c");
        CHECK_EQ_INT(s->line, 77);
        CHECK_EQ_INT(s->color, 0x0a0b0c);
    }
    CHECK(nth_on_thread(c, TCD_ZONE_END, "shim thread", 0) != NULL);
    CHECK(tt_find_text(c, TCD_ZONE_TEXT, "shim text") != NULL);
    CHECK(tt_find_text(c, TCD_ZONE_NAME, "shim name") != NULL);
    const struct tcd_event *e = nth_on_thread(c, TCD_ZONE_COLOR, "shim thread", 0);
    CHECK(e && e->color == 0x00ff00);
    e = nth_on_thread(c, TCD_ZONE_VALUE, "shim thread", 0);
    CHECK(e && e->value == 99);
    e = tt_find_text(c, TCD_MESSAGE, "shim msg");
    CHECK(e && e->color == 0x0000ff);
    e = find_named(c, TCD_PLOT, "shim plot", tcd_plot_name);
    CHECK(e && !e->is_int && e->dvalue == 3.5);
    e = find_named(c, TCD_PLOT, "shim int plot", tcd_plot_name);
    CHECK(e && e->is_int && (int64_t)e->value == -7);
    CHECK(find_named(c, TCD_FRAME_MARK, "shim frames", tcd_frame_name) != NULL);
    CHECK(find_named(c, TCD_FRAME_START, "shim discont", tcd_frame_name) != NULL);
    CHECK(find_named(c, TCD_FRAME_END, "shim discont", tcd_frame_name) != NULL);
}
