/* libffi_sections.h - the parts of the libffi conformance test. Each part emits events
 * by calling manifest functions through libffi (emit_*), then, after the capture has
 * ended, checks that the decoder received exactly those events (check_*). */
#ifndef TRACYC_TEST_LIBFFI_SECTIONS_H
#define TRACYC_TEST_LIBFFI_SECTIONS_H

#include "ffi_call.h"
#include "test_capture.h"

/* Pointers to argument values of each manifest type, for CALL(). */
#define A_STR(x) (&(const char *){(x)})
#define A_PTR(x) (&(const void *){(x)})
#define A_SIZE(x) (&(size_t){(x)})
#define A_I8(x) (&(int8_t){(x)})
#define A_U8(x) (&(uint8_t){(x)})
#define A_U16(x) (&(uint16_t){(x)})
#define A_I32(x) (&(int32_t){(x)})
#define A_U32(x) (&(uint32_t){(x)})
#define A_I64(x) (&(int64_t){(x)})
#define A_U64(x) (&(uint64_t){(x)})
#define A_F32(x) (&(float){(x)})
#define A_F64(x) (&(double){(x)})

/* The begin and end times of the only zone at the static source location named name
 * (its ZONE_END is the next one on the same thread); 0 if it is missing. */
int zone_span(const struct tt_capture *c, const char *name, int64_t *begin, int64_t *end);
/* The n-th event of kind on the thread named thread_name, or NULL. */
const struct tcd_event *nth_on_thread(const struct tt_capture *c, enum tcd_event_kind kind, const char *thread_name,
                                      size_t n);
/* The first event of kind matching id, or NULL. */
const struct tcd_event *find_id(const struct tt_capture *c, enum tcd_event_kind kind, uint32_t id);

/* The first event of kind whose id resolves to name through name_of (tcd_plot_name,
 * tcd_frame_name...), or NULL. */
const struct tcd_event *find_named(const struct tt_capture *c, enum tcd_event_kind kind, const char *name,
                                   const char *(*name_of)(const struct tcd_decoder *, uint32_t));

/* Calls the lockable and shared-lockable functions. */
void emit_locks(void);
void check_locks(const struct tt_capture *c);

/* Calls every GPU function: contexts, zones, times, time syncs and calibrations. */
void emit_gpu(void);
void check_gpu(const struct tt_capture *c);

/* Records a sample of program-named frames with a resolver of the test's own. */
void emit_samples(void);
void check_samples(const struct tt_capture *c);

/* Calls every tracyc_ffi_* function from a thread of its own. */
void emit_shim(void);
void check_shim(const struct tt_capture *c);

#endif
