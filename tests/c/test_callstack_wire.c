/* Callstacks on the wire, checked byte by byte with a raw server (tests/support/
 * raw_server.c), independent of tracyc's decoder: every _callstack function sends a
 * CallstackPayload, then Callstack (thread-bound) or CallstackSerial (serial events), then
 * the Callstack form of its event; the frames start at the caller; depth <= 0 sends none,
 * depth past 62 is cut to 62; CallstackFrame and Symbol queries are answered with names,
 * files and lines, inlined frames expanded, and "[unknown]" for addresses in no image.
 * docs/protocol.md §26. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <stdlib.h>
#include <string.h>

static struct tr_server srv;
static size_t scan; /* log offset where the next search starts */

static const struct ___tracy_source_location_data loc = {"cs zone", "cs_fn", "cs.c", 1, 0};

/* Source lines of the calls the frames must point at, set just before each call. */
static int line_api, line_outer;

/* ---- reading the log ---------------------------------------------------------------------- */

/* The next item of `type` from *pos (pumping the connection for up to 5 s). */
static int find(size_t *pos, uint8_t type, struct tr_item *out)
{
    for (int round = 0; round < 100; round++) {
        struct tr_item it;
        while (tr_next(&srv, pos, &it))
            if (it.type == type) {
                *out = it;
                return 1;
            }
        if (tr_pump(&srv, 50) < 0)
            return 0;
    }
    return 0;
}

struct event_cs {
    uint64_t frames[64];
    int count;
    uint8_t marker;   /* Callstack or CallstackSerial */
    uint8_t consumer; /* the event that took it */
};

/* The next callstack payload and what follows it up to its event: only strings and payloads
 * (single string, source location, memory pool) may come between. */
static int next_callstack_event(struct event_cs *cs)
{
    struct tr_item it;
    if (!find(&scan, TCW_CallstackPayload, &it))
        return 0;
    uint16_t bytes = tcu_rd16(it.p + 9);
    cs->count = bytes / 8;
    memcpy(cs->frames, it.p + 11, bytes);
    if (!tr_next(&srv, &scan, &it))
        return 0;
    cs->marker = it.type;
    while (tr_next(&srv, &scan, &it)) {
        if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData ||
            it.type == TCW_SourceLocationPayload || it.type == TCW_MemNamePayload)
            continue;
        cs->consumer = it.type;
        return 1;
    }
    return 0;
}

/* The next item that is a zone begin of any form; its type. */
static int next_zone_begin(void)
{
    for (int round = 0; round < 100; round++) {
        struct tr_item it;
        while (tr_next(&srv, &scan, &it))
            if ((it.type >= TCW_ZoneBegin && it.type <= TCW_ZoneBeginCallstack16) ||
                it.type == TCW_ZoneBeginAllocSrcLoc || it.type == TCW_ZoneBeginAllocSrcLocCallstack)
                return it.type;
        if (tr_pump(&srv, 50) < 0)
            break;
    }
    return -1;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* ---- the program whose callstacks are taken --------------------------------------------- */

__attribute__((noinline)) static void api_zone(int depth)
{
    line_api = __LINE__ + 1;
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, depth, 1);
    ___tracy_emit_zone_end(z);
}

__attribute__((noinline)) static void outer_zone(int depth)
{
    line_outer = __LINE__ + 1;
    api_zone(depth);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int recurse(int levels, int depth)
{
    if (levels == 0) {
        api_zone(depth);
        return 0;
    }
    int r = recurse(levels - 1, depth);
    __asm__ volatile("" : "+r"(r));
    return r + 1;
}

static inline __attribute__((always_inline)) void inlined_message(void)
{
    line_api = __LINE__ + 1;
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 3, "from an inlined function");
}

__attribute__((noinline)) static void host_of_inline(void)
{
    line_outer = __LINE__ + 1;
    inlined_message();
    __asm__ volatile("" ::: "memory");
}

/* ---- checks -------------------------------------------------------------------------- */

static void check_zone_frames(void)
{
    outer_zone(4);
    struct event_cs cs;
    CHECK(next_callstack_event(&cs));
    CHECK_EQ_INT(cs.count, 4);
    CHECK_EQ_INT(cs.marker, TCW_Callstack);
    CHECK(cs.consumer >= TCW_ZoneBeginCallstack && cs.consumer <= TCW_ZoneBeginCallstack16);

    struct tr_frames r;
    CHECK(tr_ask_frame(&srv, cs.frames[0], &r));
    CHECK_EQ_INT(r.count, 1);
    CHECK_STR(r.frames[0].name, "api_zone");
    tt_check(ends_with(r.frames[0].file, "test_callstack_wire.c"), "frame 0 file %s", r.frames[0].file);
    CHECK_EQ_INT(r.frames[0].line, line_api);
    CHECK(r.frames[0].sym_addr != 0 && r.frames[0].sym_addr <= cs.frames[0] &&
          cs.frames[0] < r.frames[0].sym_addr + r.frames[0].sym_len);
    tt_check(ends_with(r.image, "test_callstack_wire"), "image %s", r.image);

    CHECK(tr_ask_frame(&srv, cs.frames[1], &r));
    CHECK_STR(r.frames[0].name, "outer_zone");
    CHECK_EQ_INT(r.frames[0].line, line_outer);

    char file[256];
    uint32_t line = 0;
    CHECK(tr_ask_symbol(&srv, r.frames[0].sym_addr, file, sizeof file, &line));
    tt_check(ends_with(file, "test_callstack_wire.c") && line > 0 && (int)line <= line_outer,
             "symbol of outer_zone at %s:%u", file, line);
}

static void check_depth_limits(void)
{
    /* depth 0 and below: the plain event, no callstack */
    size_t before = scan;
    api_zone(0);
    int type = next_zone_begin();
    CHECK(type >= TCW_ZoneBegin && type <= TCW_ZoneBegin16);
    api_zone(-3);
    type = next_zone_begin();
    CHECK(type >= TCW_ZoneBegin && type <= TCW_ZoneBegin16);
    size_t pos = before;
    struct tr_item it;
    int payloads = 0;
    while (tr_next(&srv, &pos, &it) && pos <= scan)
        payloads += it.type == TCW_CallstackPayload;
    CHECK_EQ_INT(payloads, 0);

    /* past the cap: 62 frames from a stack 80 calls deep */
    recurse(80, 1000);
    struct event_cs cs;
    CHECK(next_callstack_event(&cs));
    CHECK_EQ_INT(cs.count, 62);
    /* shallower than asked: what the stack has (main and libc's start-up under it) */
    recurse(2, 62);
    CHECK(next_callstack_event(&cs));
    tt_check(cs.count > 3 && cs.count < 20, "a stack of %d frames for a shallow call chain", cs.count);
}

static void check_every_consumer(void)
{
    static const struct ___tracy_source_location_data gloc = {"gpu cs", "gpu_fn", "gpu.c", 2, 0};
    struct event_cs cs;
    uint64_t srcloc = ___tracy_alloc_srcloc(5, "a.c", 3, "alloc_fn", 8, 0);
    TracyCZoneCtx z = ___tracy_emit_zone_begin_alloc_callstack(srcloc, 5, 1);
    ___tracy_emit_zone_end(z);
    CHECK(next_callstack_event(&cs) && cs.marker == TCW_Callstack && cs.consumer == TCW_ZoneBeginAllocSrcLocCallstack);

    static const struct {
        int literal;
        uint32_t color;
        uint8_t item;
    } messages[] = {{0, 0, TCW_MessageCallstack},
                    {0, 0x102030, TCW_MessageColorCallstack},
                    {1, 0, TCW_MessageLiteralCallstack},
                    {1, 0x102030, TCW_MessageLiteralColorCallstack}};
    for (size_t i = 0; i < sizeof messages / sizeof *messages; i++) {
        if (messages[i].literal)
            ___tracy_emit_logStringL(TracyMessageSeverityInfo, (int32_t)messages[i].color, 2, "literal");
        else
            ___tracy_emit_logString(TracyMessageSeverityInfo, (int32_t)messages[i].color, 2, 4, "text");
        CHECK(next_callstack_event(&cs));
        CHECK_EQ_INT(cs.marker, TCW_Callstack);
        CHECK_EQ_INT(cs.consumer, messages[i].item);
        CHECK_EQ_INT(cs.count, 2);
    }
    ___tracy_emit_message("compat", 6, 2);
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MessageCallstack);
    ___tracy_emit_messageLC("compat literal", 0x010101, 2);
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MessageLiteralColorCallstack);

    int block;
    ___tracy_emit_memory_alloc_callstack(&block, 16, 3);
    CHECK(next_callstack_event(&cs) && cs.marker == TCW_CallstackSerial && cs.consumer == TCW_MemAllocCallstack);
    ___tracy_emit_memory_free_callstack(&block, 3);
    CHECK(next_callstack_event(&cs) && cs.marker == TCW_CallstackSerial && cs.consumer == TCW_MemFreeCallstack);
#ifdef TRACYC_MEMORY_ABI_0_13
    ___tracy_emit_memory_alloc_callstack_named(&block, 16, 3, 0, "cs pool");
    ___tracy_emit_memory_free_callstack_named(&block, 3, 0, "cs pool");
    ___tracy_emit_memory_discard_callstack("cs pool", 0, 3);
#else
    ___tracy_emit_memory_alloc_callstack_named(&block, 16, 3, "cs pool");
    ___tracy_emit_memory_free_callstack_named(&block, 3, "cs pool");
    ___tracy_emit_memory_discard_callstack("cs pool", 3);
#endif
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MemAllocCallstackNamed);
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MemFreeCallstackNamed);
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MemDiscardCallstack);

    ___tracy_emit_gpu_new_context((struct ___tracy_gpu_new_context_data){0, 1.0f, 3, 0, 1});
    /* Every GPU event is serial (core/client/api_gpu.c): the plain forms too. */
    static const struct {
        void (*begin)(const struct ___tracy_gpu_zone_begin_callstack_data);
        void (*end)(const struct ___tracy_gpu_zone_end_data);
        int alloc;
        uint8_t marker, item;
    } gpu[] = {
        {___tracy_emit_gpu_zone_begin_callstack, ___tracy_emit_gpu_zone_end, 0, TCW_CallstackSerial,
         TCW_GpuZoneBeginCallstackSerial},
        {___tracy_emit_gpu_zone_begin_alloc_callstack, ___tracy_emit_gpu_zone_end, 1, TCW_CallstackSerial,
         TCW_GpuZoneBeginAllocSrcLocCallstackSerial},
        {___tracy_emit_gpu_zone_begin_callstack_serial, ___tracy_emit_gpu_zone_end_serial, 0, TCW_CallstackSerial,
         TCW_GpuZoneBeginCallstackSerial},
        {___tracy_emit_gpu_zone_begin_alloc_callstack_serial, ___tracy_emit_gpu_zone_end_serial, 1, TCW_CallstackSerial,
         TCW_GpuZoneBeginAllocSrcLocCallstackSerial},
    };
    for (uint16_t i = 0; i < sizeof gpu / sizeof *gpu; i++) {
        uint64_t where = gpu[i].alloc ? ___tracy_alloc_srcloc(9, "g.c", 3, "gpu_alloc", 9, 0) : (uint64_t)&gloc;
        gpu[i].begin((struct ___tracy_gpu_zone_begin_callstack_data){where, 4, (uint16_t)(2 * i), 3});
        gpu[i].end((struct ___tracy_gpu_zone_end_data){(uint16_t)(2 * i + 1), 3});
        CHECK(next_callstack_event(&cs));
        CHECK_EQ_INT(cs.marker, gpu[i].marker);
        CHECK_EQ_INT(cs.consumer, gpu[i].item);
        CHECK_EQ_INT(cs.count, 4);
    }
}

static void check_inlined_frames(void)
{
    host_of_inline();
    struct event_cs cs;
    CHECK(next_callstack_event(&cs) && cs.consumer == TCW_MessageLiteralCallstack);
    struct tr_frames r;
    CHECK(tr_ask_frame(&srv, cs.frames[0], &r));
    CHECK_EQ_INT(r.count, 2);
    CHECK_STR(r.frames[0].name, "inlined_message");
    CHECK_EQ_INT(r.frames[0].line, line_api);
    CHECK_EQ_INT(r.frames[0].sym_len, 0); /* an inlined instance has no size of its own */
    CHECK_STR(r.frames[1].name, "host_of_inline");
    CHECK_EQ_INT(r.frames[1].line, line_outer);
    CHECK(r.frames[1].sym_len > 0);
    /* the next frame up is the caller of the host, not the host again */
    CHECK(tr_ask_frame(&srv, cs.frames[1], &r));
    CHECK_STR(r.frames[r.count - 1].name, "check_inlined_frames");
}

static void check_unknown_address(void)
{
    struct tr_frames r;
    CHECK(tr_ask_frame(&srv, 0x1000, &r)); /* nothing is mapped there */
    CHECK_EQ_INT(r.count, 1);
    CHECK_STR(r.image, "[unknown]");
    CHECK_STR(r.frames[0].name, "[unknown]");
    CHECK_EQ_INT(r.frames[0].sym_addr, 0); /* so the server asks no Symbol question */
    char file[64];
    uint32_t line = 1;
    CHECK(tr_ask_symbol(&srv, 0x2000, file, sizeof file, &line));
    CHECK_STR(file, "[unknown]");
    CHECK_EQ_INT(line, 0);
}

static int consumes_single(uint8_t type)
{
    switch (type) {
    case TCW_ZoneText:
    case TCW_ZoneName:
    case TCW_Message:
    case TCW_MessageColor:
    case TCW_MessageCallstack:
    case TCW_MessageColorCallstack:
    case TCW_MessageAppInfo:
    case TCW_LockName:
    case TCW_GpuContextName:
    case TCW_CallstackFrameSize:
    case TCW_CallstackFrame:
    case TCW_SymbolInformation:
        return 1;
    default:
        return 0;
    }
}

static int is_callstack_consumer(uint8_t type)
{
    return (type >= TCW_ZoneBeginCallstack && type <= TCW_ZoneBeginCallstack16) ||
           type == TCW_ZoneBeginAllocSrcLocCallstack || type == TCW_MessageCallstack ||
           type == TCW_MessageColorCallstack || type == TCW_MessageLiteralCallstack ||
           type == TCW_MessageLiteralColorCallstack ||
           (type >= TCW_MemAllocCallstack && type <= TCW_MemFreeCallstackNamed) || type == TCW_MemDiscardCallstack ||
           type == TCW_GpuZoneBeginCallstack || type == TCW_GpuZoneBeginAllocSrcLocCallstack ||
           type == TCW_GpuZoneBeginCallstackSerial || type == TCW_GpuZoneBeginAllocSrcLocCallstackSerial;
}

/* The whole stream parses, every string has its consumer, every payload its Callstack
 * item, every Callstack item its event, with nothing else in between (what the server
 * asserts, docs/protocol.md §21.3). */
static void check_stream_discipline(void)
{
    size_t pos = 0, items = 0;
    int single = 0, payload = 0, marker = 0;
    int bad = 0;
    struct tr_item it;
    while (tr_next(&srv, &pos, &it)) {
        items++;
        if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData) {
            bad += single;
            single = 1;
        } else if (it.type == TCW_SecondStringData8 || it.type == TCW_SecondStringData) {
            continue;
        } else if (consumes_single(it.type)) {
            bad += !single;
            single = 0;
        }
        if (it.type == TCW_CallstackPayload) {
            bad += payload || marker;
            payload = 1;
        } else if (it.type >= TCW_CallstackSample && it.type <= TCW_CallstackSampleContextSwitch16) {
            bad += !payload; /* a sample takes its payload itself */
            payload = 0;
        } else if (it.type == TCW_Callstack || it.type == TCW_CallstackSerial) {
            bad += !payload;
            payload = 0;
            marker = 1;
        } else if (is_callstack_consumer(it.type)) {
            bad += !marker;
            marker = 0;
        } else if (marker && !(it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData ||
                               it.type == TCW_SourceLocationPayload || it.type == TCW_MemNamePayload)) {
            bad++;
        } else if (payload && it.type != TCW_CallstackPayload) {
            bad++;
        }
        if (bad) {
            fprintf(stderr, "stream broken at item %zu (type %u, offset %zu)\n", items, it.type, it.offset);
            break;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(pos, srv.log_len); /* parsed to the last byte */
}

int main(void)
{
    unsetenv("DEBUGINFOD_URLS"); /* no network for debug information */
    /* Only the program's own callstacks here (test_sampling_wire checks samples). */
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0) {
        fprintf(stderr, "could not connect to the client\n");
        return 1;
    }
    check_zone_frames();
    check_depth_limits();
    check_every_consumer();
    check_inlined_frames();
    check_unknown_address();
    tr_pump(&srv, 200);
    check_stream_discipline();
    tr_finish(&srv, 5);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return tt_finish("test_callstack_wire");
}
