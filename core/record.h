/* record.h - the in-memory records the hot path writes and the worker reads.
 *
 * A record is an 8-byte header, then a fixed number of 8-byte words that depends only
 * on its type, then `len` bytes of inline text rounded up to 8. Records are written into
 * a thread's own buffer (thread-bound events) or into the serial buffer (memory, locks,
 * serial GPU events, which need one global order). They are not the wire format: the
 * worker turns them into protocol items, per connection.
 */
#ifndef TRACYC_RECORD_H
#define TRACYC_RECORD_H

#include <stddef.h>
#include <stdint.h>

enum tc_rec_type {
    TC_REC_ZONE_BEGIN,       /* w0 time, w1 srcloc pointer */
    TC_REC_ZONE_BEGIN_ALLOC, /* w0 time, w1 heap srcloc payload (freed by the worker) */
    TC_REC_ZONE_END,         /* w0 time */
    TC_REC_ZONE_TEXT,        /* text */
    TC_REC_ZONE_NAME,        /* text */
    TC_REC_ZONE_COLOR,       /* u32 color */
    TC_REC_ZONE_VALUE,       /* w0 value */
    TC_REC_MESSAGE,          /* u8 severity, u32 color, w0 time, text */
    TC_REC_MESSAGE_LITERAL,  /* u8 severity, u32 color, w0 time, w1 text pointer */
    TC_REC_APP_INFO,         /* w0 time, text (serial) */
    TC_REC_PLOT_DOUBLE,      /* w0 time, w1 name, w2 value bits */
    TC_REC_PLOT_FLOAT,       /* w0 time, w1 name, w2 value bits (float in the low half) */
    TC_REC_PLOT_INT,         /* w0 time, w1 name, w2 value */
    TC_REC_PLOT_CONFIG,      /* u8 format|step<<4|fill<<5, u32 color, w0 name */
    TC_REC_FRAME_MARK,       /* w0 time, w1 name (0 = main) */
    TC_REC_FRAME_START,      /* w0 time, w1 name (serial) */
    TC_REC_FRAME_END,        /* w0 time, w1 name (serial) */
    TC_REC_FRAME_IMAGE,      /* w0 heap image (struct tc_frame_image) */
    TC_REC_FIBER_ENTER,      /* w0 time, w1 fiber name */
    TC_REC_FIBER_LEAVE,      /* w0 time */
    TC_REC_GPU_ZONE_BEGIN,   /* u8 flags (alloc, serial), u32 thread, w0 time, w1 srcloc, w2 query|ctx<<16 */
    TC_REC_GPU_ZONE_END,     /* u8 flags (serial), u32 thread, w0 time, w1 query|ctx<<16 */
    TC_REC_GPU_TIME,         /* w0 gpu time, w1 query|ctx<<16 */
    TC_REC_GPU_NEW_CONTEXT,  /* u8 ctx, u32 thread, w0 cpu time, w1 gpu time, w2 period bits|flags<<32|type<<40 */
    TC_REC_GPU_CONTEXT_NAME, /* u8 ctx, text */
    TC_REC_GPU_CALIBRATION,  /* u8 ctx, w0 cpu time, w1 gpu time, w2 cpu delta */
    TC_REC_GPU_TIME_SYNC,    /* u8 ctx, w0 cpu time, w1 gpu time */
    TC_REC_MEM_ALLOC,        /* u32 thread, w0 time, w1 address, w2 size, w3 pool name (0 = default) */
    TC_REC_MEM_FREE,         /* u32 thread, w0 time, w1 address, w2 pool name */
    TC_REC_MEM_DISCARD,      /* u32 thread, w0 time, w1 pool name */
    TC_REC_LOCK_ANNOUNCE,    /* u8 shared, u32 lock, w0 time, w1 srcloc */
    TC_REC_LOCK_TERMINATE,   /* u32 lock, w0 time */
    TC_REC_LOCK_WAIT,        /* u8 shared, u32 lock, w0 time, w1 thread */
    TC_REC_LOCK_OBTAIN,      /* u8 shared, u32 lock, w0 time, w1 thread */
    TC_REC_LOCK_RELEASE,     /* u8 shared, u32 lock, w0 time, w1 thread */
    TC_REC_LOCK_MARK,        /* u32 lock, w0 thread, w1 srcloc */
    TC_REC_LOCK_NAME,        /* u32 lock, text */
    TC_REC_SECTION_ENTER,    /* u32 id, w0 time, w1 category, text */
    TC_REC_SECTION_LEAVE,    /* u32 id, w0 time */
    TC_REC_SECTION_SETUP,    /* u32 category, text (serial) */
    TC_REC_TYPE_COUNT
};

struct tc_rec {
    uint8_t type;
    uint8_t u8;
    uint16_t len; /* inline text bytes */
    uint32_t u32;
    uint64_t w[];
};

extern const uint8_t tc_rec_words[TC_REC_TYPE_COUNT];

static inline size_t tc_rec_size(unsigned type, size_t len)
{
    return 8 + 8 * (size_t)tc_rec_words[type] + ((len + 7) & ~(size_t)7);
}

static inline const char *tc_rec_text(const struct tc_rec *r)
{
    return (const char *)(r->w + tc_rec_words[r->type]);
}

/* A frame image as queued: already DXT1-compressed. */
struct tc_frame_image {
    uint32_t frame;
    uint16_t w, h;
    uint8_t flip;
    uint32_t size;
    uint8_t data[];
};

/* Longest text the protocol carries in one item (upstream asserts < 65535). */
#define TC_MAX_TEXT 65534u

#endif
