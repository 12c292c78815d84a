/* record.h - the in-memory records the hot path writes and the worker reads.
 *
 * A record is a fixed layout that depends only on its type (one struct below), then
 * `len` bytes of inline text rounded up to 8. Records are written into a thread's own
 * buffer (thread-bound events) or into the serial buffer (memory, locks, serial GPU
 * events, which need one global order). They are not the wire format: the worker turns
 * them into protocol items, per connection (conn.c).
 *
 * Every layout starts with the same 8 bytes, TC_REC_HEAD: the type, one byte and one
 * 32-bit word that each layout names for itself, and the text length. Reading `type` and
 * `len` through any member of union tc_rec is valid C (a common initial sequence).
 */
#ifndef TRACYC_CLIENT_RECORD_H
#define TRACYC_CLIENT_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct tc_fiber;

#define TC_REC_HEAD(byte, word)                                                                                        \
    uint8_t type;                                                                                                      \
    uint8_t byte;                                                                                                      \
    uint16_t len; /* inline text bytes after the layout */                                                             \
    uint32_t word

struct tc_rec_any {
    TC_REC_HEAD(byte, word);
};

struct tc_rec_zone_begin {
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
    uint64_t srcloc; /* address of a static ___tracy_source_location_data */
};

struct tc_rec_zone_begin_alloc {
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
    uint8_t *payload; /* heap source location (srcloc.c), freed by the worker */
};

struct tc_rec_zone_end {
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
};

struct tc_rec_zone_text { /* zone text or zone name: the text follows */
    TC_REC_HEAD(unused8, unused32);
};

struct tc_rec_zone_color {
    TC_REC_HEAD(unused8, color);
};

struct tc_rec_zone_value {
    TC_REC_HEAD(unused8, unused32);
    uint64_t value;
};

struct tc_rec_message { /* the text follows */
    TC_REC_HEAD(severity, color);
    int64_t time;
};

struct tc_rec_message_literal {
    TC_REC_HEAD(severity, color);
    int64_t time;
    const char *text; /* a string literal: its address is its identity */
};

struct tc_rec_app_info { /* serial; the text follows */
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
};

struct tc_rec_plot { /* double, float (in the low 32 bits) or int64 */
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
    const char *name;
    uint64_t value_bits;
};

struct tc_rec_plot_config { /* serial */
    TC_REC_HEAD(format, color);
    const char *name;
    uint8_t step, fill;
};

struct tc_rec_frame {            /* frame mark, start or end */
    TC_REC_HEAD(unused8, index); /* index: a main frame mark's number (1, 2, ...), else 0 */
    int64_t time;
    const char *name; /* NULL: the main frame set */
};

struct tc_rec_frame_image {
    TC_REC_HEAD(unused8, unused32);
    struct tc_frame_image *image; /* heap, freed by the worker */
};

struct tc_rec_fiber_enter {
    TC_REC_HEAD(unused8, seq); /* the how-many-th enter of the fiber (fiber.h) */
    int64_t time;
    struct tc_fiber *fiber; /* fiber.h: its name, and the worker's view of it */
};

struct tc_rec_fiber_leave {
    TC_REC_HEAD(unused8, unused32);
    int64_t time;
};

struct tc_rec_gpu_zone_begin {  /* serial */
    TC_REC_HEAD(alloc, thread); /* alloc: srcloc is a heap payload, freed by the worker */
    int64_t time;
    uint64_t srcloc;
    uint16_t query;
    uint8_t context;
};

struct tc_rec_gpu_zone_end { /* serial */
    TC_REC_HEAD(unused8, thread);
    int64_t time;
    uint16_t query;
    uint8_t context;
};

struct tc_rec_gpu_time { /* serial */
    TC_REC_HEAD(unused8, unused32);
    int64_t gpu_time;
    uint16_t query;
    uint8_t context;
};

struct tc_rec_gpu_new_context { /* serial */
    TC_REC_HEAD(context, thread);
    int64_t cpu_time;
    int64_t gpu_time;
    float period;
    uint8_t flags;
    uint8_t gpu_type;
};

struct tc_rec_gpu_context_name { /* serial; the name follows */
    TC_REC_HEAD(context, unused32);
};

struct tc_rec_gpu_calibration { /* serial */
    TC_REC_HEAD(context, unused32);
    int64_t cpu_time;
    int64_t gpu_time;
    int64_t cpu_delta;
};

struct tc_rec_gpu_time_sync { /* serial */
    TC_REC_HEAD(context, unused32);
    int64_t cpu_time;
    int64_t gpu_time;
};

struct tc_rec_mem_alloc { /* serial */
    TC_REC_HEAD(unused8, thread);
    int64_t time;
    uint64_t address;
    uint64_t size;    /* 48 bits on the wire */
    const char *pool; /* NULL: the default pool */
};

struct tc_rec_mem_free { /* serial */
    TC_REC_HEAD(unused8, thread);
    int64_t time;
    uint64_t address;
    const char *pool;
};

struct tc_rec_mem_discard { /* serial */
    TC_REC_HEAD(unused8, thread);
    int64_t time;
    const char *pool;
};

struct tc_rec_lock_announce { /* serial */
    TC_REC_HEAD(shared, lock);
    int64_t time;
    uint64_t srcloc;
};

struct tc_rec_lock_terminate { /* serial */
    TC_REC_HEAD(unused8, lock);
    int64_t time;
};

struct tc_rec_lock_event { /* wait, obtain or release; serial */
    TC_REC_HEAD(shared, lock);
    int64_t time;
    uint32_t thread;
};

struct tc_rec_lock_mark { /* serial */
    TC_REC_HEAD(unused8, lock);
    uint32_t thread;
    uint64_t srcloc;
};

struct tc_rec_lock_name { /* serial; the name follows */
    TC_REC_HEAD(unused8, lock);
};

struct tc_rec_section_enter { /* the text follows */
    TC_REC_HEAD(unused8, id);
    int64_t time;
    uint16_t category;
};

struct tc_rec_section_leave {
    TC_REC_HEAD(unused8, id);
    int64_t time;
};

struct tc_rec_section_setup { /* serial; the text follows */
    TC_REC_HEAD(unused8, category);
};

struct tc_rec_callstack { /* the return addresses follow, 8 bytes each (len / 8 of them) */
    TC_REC_HEAD(unused8, unused32);
    /* Written in the same reservation as, and directly before, the record it belongs to,
     * so the two are never split, dropped or drained apart. */
};

struct tc_rec_sample { /* a CPU sample of `thread`; its frames follow, innermost first */
    TC_REC_HEAD(unused8, thread);
    int64_t time;
};

struct tc_rec_context_switch { /* `thread` started (in = 1) or stopped running on `cpu` */
    TC_REC_HEAD(cpu, thread);
    int64_t time;
    uint8_t in;
    uint8_t stopped; /* a switch-out's TC_STOPPED_* */
};

/* How a thread stopped running. */
enum { TC_STOPPED_SLEEPING, TC_STOPPED_PREEMPTED /* while still runnable */, TC_STOPPED_EXITED };

/* Every record type and its layout. */
#define TC_RECORDS(X)                                                                                                  \
    X(ZONE_BEGIN, zone_begin)                                                                                          \
    X(ZONE_BEGIN_ALLOC, zone_begin_alloc)                                                                              \
    X(ZONE_END, zone_end)                                                                                              \
    X(ZONE_TEXT, zone_text)                                                                                            \
    X(ZONE_NAME, zone_text)                                                                                            \
    X(ZONE_COLOR, zone_color)                                                                                          \
    X(ZONE_VALUE, zone_value)                                                                                          \
    X(MESSAGE, message)                                                                                                \
    X(MESSAGE_LITERAL, message_literal)                                                                                \
    X(APP_INFO, app_info)                                                                                              \
    X(PLOT_DOUBLE, plot)                                                                                               \
    X(PLOT_FLOAT, plot)                                                                                                \
    X(PLOT_INT, plot)                                                                                                  \
    X(PLOT_CONFIG, plot_config)                                                                                        \
    X(FRAME_MARK, frame)                                                                                               \
    X(FRAME_START, frame)                                                                                              \
    X(FRAME_END, frame)                                                                                                \
    X(FRAME_IMAGE, frame_image)                                                                                        \
    X(FIBER_ENTER, fiber_enter)                                                                                        \
    X(FIBER_LEAVE, fiber_leave)                                                                                        \
    X(GPU_ZONE_BEGIN, gpu_zone_begin)                                                                                  \
    X(GPU_ZONE_END, gpu_zone_end)                                                                                      \
    X(GPU_TIME, gpu_time)                                                                                              \
    X(GPU_NEW_CONTEXT, gpu_new_context)                                                                                \
    X(GPU_CONTEXT_NAME, gpu_context_name)                                                                              \
    X(GPU_CALIBRATION, gpu_calibration)                                                                                \
    X(GPU_TIME_SYNC, gpu_time_sync)                                                                                    \
    X(MEM_ALLOC, mem_alloc)                                                                                            \
    X(MEM_FREE, mem_free)                                                                                              \
    X(MEM_DISCARD, mem_discard)                                                                                        \
    X(LOCK_ANNOUNCE, lock_announce)                                                                                    \
    X(LOCK_TERMINATE, lock_terminate)                                                                                  \
    X(LOCK_WAIT, lock_event)                                                                                           \
    X(LOCK_OBTAIN, lock_event)                                                                                         \
    X(LOCK_RELEASE, lock_event)                                                                                        \
    X(LOCK_MARK, lock_mark)                                                                                            \
    X(LOCK_NAME, lock_name)                                                                                            \
    X(SECTION_ENTER, section_enter)                                                                                    \
    X(SECTION_LEAVE, section_leave)                                                                                    \
    X(SECTION_SETUP, section_setup)                                                                                    \
    X(CALLSTACK, callstack)                                                                                            \
    X(SAMPLE, sample)                                                                                                  \
    X(CONTEXT_SWITCH, context_switch)

enum tc_rec_type {
#define TC_REC_ENUM(TYPE, layout) TC_REC_##TYPE,
    TC_RECORDS(TC_REC_ENUM)
#undef TC_REC_ENUM
        TC_REC_TYPE_COUNT
};

/* Every layout once. */
#define TC_REC_LAYOUTS(X)                                                                                              \
    X(zone_begin)                                                                                                      \
    X(zone_begin_alloc)                                                                                                \
    X(zone_end)                                                                                                        \
    X(zone_text)                                                                                                       \
    X(zone_color)                                                                                                      \
    X(zone_value)                                                                                                      \
    X(message)                                                                                                         \
    X(message_literal)                                                                                                 \
    X(app_info)                                                                                                        \
    X(plot)                                                                                                            \
    X(plot_config)                                                                                                     \
    X(frame)                                                                                                           \
    X(frame_image)                                                                                                     \
    X(fiber_enter)                                                                                                     \
    X(fiber_leave)                                                                                                     \
    X(gpu_zone_begin)                                                                                                  \
    X(gpu_zone_end)                                                                                                    \
    X(gpu_time)                                                                                                        \
    X(gpu_new_context)                                                                                                 \
    X(gpu_context_name)                                                                                                \
    X(gpu_calibration)                                                                                                 \
    X(gpu_time_sync)                                                                                                   \
    X(mem_alloc)                                                                                                       \
    X(mem_free)                                                                                                        \
    X(mem_discard)                                                                                                     \
    X(lock_announce)                                                                                                   \
    X(lock_terminate)                                                                                                  \
    X(lock_event)                                                                                                      \
    X(lock_mark)                                                                                                       \
    X(lock_name)                                                                                                       \
    X(section_enter)                                                                                                   \
    X(section_leave)                                                                                                   \
    X(section_setup)                                                                                                   \
    X(callstack)                                                                                                       \
    X(sample)                                                                                                          \
    X(context_switch)

union tc_rec {
    struct tc_rec_any any;
#define TC_REC_MEMBER(layout) struct tc_rec_##layout layout;
    TC_REC_LAYOUTS(TC_REC_MEMBER)
#undef TC_REC_MEMBER
};

/* Bytes of the fixed layout of a record type, a multiple of 8. A constant when type is:
 * the hot path reserves its records without a table lookup. */
static inline size_t tc_rec_fixed_size(unsigned type)
{
    switch (type) {
#define TC_REC_SIZE(TYPE, layout)                                                                                      \
    case TC_REC_##TYPE:                                                                                                \
        return (sizeof(struct tc_rec_##layout) + 7) & ~(size_t)7;
        TC_RECORDS(TC_REC_SIZE)
#undef TC_REC_SIZE
    }
    return sizeof(struct tc_rec_any);
}

static inline size_t tc_rec_size(unsigned type, size_t len)
{
    return tc_rec_fixed_size(type) + ((len + 7) & ~(size_t)7);
}

static inline char *tc_rec_text(const union tc_rec *r)
{
    return (char *)r + tc_rec_fixed_size(r->any.type);
}

/* Bytes of an allocated source location (srcloc.c): its first two bytes. */
static inline size_t tc_srcloc_payload_size(const void *payload)
{
    uint16_t size;
    __builtin_memcpy(&size, payload, 2);
    return size;
}

/* A frame image as queued: already DXT1-compressed. */
struct tc_frame_image {
    uint32_t frame;  /* the frame it shows, counted in main frame marks since start-up */
    uint32_t frames; /* main frame marks made before it was taken */
    uint16_t w, h;
    uint8_t flip;
    uint32_t size;
    uint8_t data[];
};

/* Longest text the protocol carries in one item (upstream asserts < 65535). */
#define TC_MAX_TEXT 65534u

#endif
