/* test_decode_callstacks.c - the decoder's callstack, sampling and system-tracing items
 * (docs/protocol.md §25) on hand-built streams: every item that carries or consumes a
 * callstack, the queries the server sends for frames, symbols and external threads and
 * the room they take, the answers, and hostile input. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_stream.h"
#include "test_util.h"

#define T0 ((uint64_t)INIT_BEGIN)

/* ---- writers for the items of §25 ------------------------------------------------------------ */

static void it_callstack_payload(struct buf *b, size_t n, const uint64_t *addresses)
{
    it_transfer(b, TCW_CallstackPayload, 0, addresses, n * 8);
}

/* CallstackPayload then Callstack (the current thread's next item). */
static void it_callstack(struct buf *b, size_t n, const uint64_t *addresses)
{
    it_callstack_payload(b, n, addresses);
    u8(b, TCW_Callstack);
}

static void it_zone_begin_cs(struct buf *b, int64_t d, uint64_t srcloc)
{
    it_delta(b, TCW_ZoneBeginCallstack, TCW_ZoneBeginCallstack32, TCW_ZoneBeginCallstack16, d);
    u64(b, srcloc);
}

static void it_callstack_serial(struct buf *b, size_t n, const uint64_t *addresses)
{
    it_callstack_payload(b, n, addresses);
    u8(b, TCW_CallstackSerial);
}

/* CallstackSample(ContextSwitch) in the compact form for delta d on the context chain. */
static void it_sample(struct buf *b, bool switched_out, uint32_t thread, int64_t d)
{
    uint8_t t64 = switched_out ? TCW_CallstackSampleContextSwitch : TCW_CallstackSample;
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        u8(b, (uint8_t)(t64 + 2));
        u32(b, thread);
        u16(b, (uint16_t)d);
    } else if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        u8(b, (uint8_t)(t64 + 1));
        u32(b, thread);
        u32(b, (uint32_t)(d - TCW_DELTA16_LIMIT));
    } else {
        u8(b, t64);
        u32(b, thread);
        u64(b, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    }
}

static void it_context_switch(struct buf *b, int64_t d, uint32_t old_thread, uint32_t new_thread, uint8_t cpu,
                              uint8_t state)
{
    u8(b, TCW_ContextSwitch);
    u64(b, (uint64_t)d);
    u32(b, old_thread);
    u32(b, new_thread);
    u8(b, cpu);
    u8(b, 100); /* wait reason */
    u8(b, state);
    u8(b, 0);
    u8(b, 120);
    u8(b, 120);
}

static void it_wakeup(struct buf *b, int64_t d, uint32_t thread, uint8_t cpu)
{
    u8(b, TCW_ThreadWakeup);
    u64(b, (uint64_t)d);
    u32(b, thread);
    u8(b, cpu);
    u8(b, 0xff);
    u8(b, 0);
}

static void it_message(struct buf *b, uint8_t type, uint64_t time, const char *text)
{
    it_single(b, text);
    u8(b, type);
    u64(b, time);
    u8(b, TCW_MESSAGE_META(2));
}

static void it_mem(struct buf *b, uint8_t type, uint64_t delta, uint32_t thread, uint64_t address, uint32_t size)
{
    u8(b, type);
    u64(b, delta);
    u32(b, thread);
    u64(b, address);
    if (type == TCW_MemAlloc || type == TCW_MemAllocCallstack) {
        u32(b, size);
        u16(b, 0);
    }
}

/* One custom frame of a CallstackAllocPayload. */
static void alloc_frame(struct buf *p, uint32_t line, const char *name, const char *file)
{
    u32(p, line);
    u16(p, (uint16_t)strlen(name));
    put(p, name, strlen(name));
    u16(p, (uint16_t)strlen(file));
    put(p, file, strlen(file));
}

static size_t count_queries(const struct recorder *r, uint8_t type)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nq; i++)
        n += r->queries[i][0] == type;
    return n;
}

static uint64_t query_arg(const struct recorder *r, size_t i)
{
    uint64_t v;
    memcpy(&v, r->queries[i] + 1, 8);
    return v;
}

/* The expanded frames of callstack id as "function@file:line" joined by " < " (leaf first). */
static const char *stack_text(const struct tcd_decoder *dec, uint32_t id)
{
    static char out[1024];
    out[0] = 0;
    uint32_t depth;
    const uint32_t *frames = tcd_callstack(dec, id, &depth);
    for (uint32_t i = 0; frames && i < depth; i++) {
        const struct tcd_frame *f = tcd_frame(dec, frames[i]);
        for (uint32_t s = 0; s < f->count; s++) {
            size_t len = strlen(out);
            snprintf(out + len, sizeof out - len, "%s%s@%s:%" PRIu32, len ? " < " : "", f->sub[s].function,
                     f->sub[s].file, f->sub[s].line);
        }
        if (!f->count) {
            size_t len = strlen(out);
            snprintf(out + len, sizeof out - len, "%s[0x%" PRIx64 "]", len ? " < " : "", f->address);
        }
    }
    return out;
}

/* ---- zones, messages, memory, GPU, crash ------------------------------------------------------- */

static void zone_callstacks(void)
{
    static const uint64_t stack_a[] = {0x401001, 0x402010, 0x403020};
    static const uint64_t stack_b[] = {0x401001, 0x404030};
    struct buf b = {0};
    it_thread(&b, 7);
    it_callstack(&b, 3, stack_a);
    it_zone_begin_cs(&b, (int64_t)T0 + 1000, 0x5000);
    it_zone_begin(&b, 10, 0x5000); /* a plain ZoneBegin in between has none */
    it_zone_end(&b, 10);
    it_callstack(&b, 3, stack_a); /* the same stack again: the same id, no new query */
    it_zone_begin_cs(&b, 10, 0x5000);
    it_zone_end(&b, 0);
    it_callstack(&b, 2, stack_b);
    it_zone_begin_cs(&b, 100000, 0x5000); /* 32-bit form */
    it_zone_end(&b, 10);
    it_zone_end(&b, 10);
    it_callstack(&b, 2, stack_b);
    it_payload(&b, 0, 12, "fn", "alloc.c", "allocated");
    u8(&b, TCW_ZoneBeginAllocSrcLocCallstack);
    u64(&b, 10);
    it_zone_end(&b, 10);
    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    tt_check(st == TCD_STATE_DONE, "zone callstacks: DONE (%s)", tcd_decoder_error(r.dec));
    const struct rec_event *z0 = find_event(&r, TCD_ZONE_BEGIN, 0), *z1 = find_event(&r, TCD_ZONE_BEGIN, 1),
                           *z2 = find_event(&r, TCD_ZONE_BEGIN, 2), *z3 = find_event(&r, TCD_ZONE_BEGIN, 3),
                           *z4 = find_event(&r, TCD_ZONE_BEGIN, 4);
    tt_check(z0 && z0->ev.callstack == 1 && z1 && z1->ev.callstack == 0 && z2 && z2->ev.callstack == 1 && z3 &&
                 z3->ev.callstack == 2 && z4 && z4->ev.callstack == 2,
             "zone callstacks 1, none, 1 (deduplicated), 2, 2 (allocated source location)");
    tt_check(z3 && z3->ev.time == 1000 + 10 + 10 + 10 + 0 + 100000, "32-bit ZoneBeginCallstack time: %" PRId64,
             z3 ? z3->ev.time : 0);
    tt_check(tcd_callstack_count(r.dec) == 2, "two distinct callstacks");
    /* Queries: names first, then one CallstackFrame per distinct address, then symbols. */
    tt_check(r.queries[0][0] == TCW_QUERY_THREAD_STRING && r.queries[1][0] == TCW_QUERY_SOURCE_LOCATION &&
                 r.queries[2][0] == TCW_QUERY_CALLSTACK_FRAME && query_arg(&r, 2) == 0x401001 &&
                 r.queries[3][0] == TCW_QUERY_CALLSTACK_FRAME && query_arg(&r, 3) == 0x402010 &&
                 r.queries[4][0] == TCW_QUERY_CALLSTACK_FRAME && query_arg(&r, 4) == 0x403020,
             "first burst: thread name, source location, then the frames of the payload in order");
    tt_check(count_queries(&r, TCW_QUERY_CALLSTACK_FRAME) == 4, "4 distinct addresses, 4 CallstackFrame queries");
    tt_check(count_queries(&r, TCW_QUERY_SYMBOL) == 4, "4 distinct symbols (one shared by an inlined frame): %zu",
             count_queries(&r, TCW_QUERY_SYMBOL));
    tt_check(tcd_frame_count(r.dec) == 4 && count_events(&r, TCD_CALLSTACK_FRAME) == 4, "4 frames, each resolved once");
    tt_check(!strcmp(stack_text(r.dec, 1), "inl401001@src.c:4097 < f401001@src.c:4098 < f402010@src.c:8208 < "
                                           "f403020@src.c:12320"),
             "callstack 1 resolved with its inlined frame: %s", stack_text(r.dec, 1));
    const struct tcd_frame *f = tcd_frame(r.dec, 0);
    tt_check(f && f->state == TCD_FRAME_RESOLVED && f->address == 0x401001 && !strcmp(f->image, "img401") &&
                 f->count == 2 && f->sub[1].symbol == 0x401000,
             "frame 0: address, image, 2 subframes, symbol");
    const char *file = NULL;
    uint32_t line = 0;
    tt_check(tcd_symbol(r.dec, 0x401000, &file, &line) && !strcmp(file, "sym401000.c") && line == 5,
             "symbol 0x401000 is defined in sym401000.c:5");
    tt_check(!tcd_symbol(r.dec, 0x999000, &file, &line), "an unknown symbol is unknown");
    uint32_t depth = 1;
    tt_check(!tcd_callstack(r.dec, 3, &depth) && depth == 0 && !tcd_callstack(r.dec, 0, &depth) && !tcd_frame(r.dec, 4),
             "unknown callstack ids and frame indices give NULL");
    rec_free(&r);
    free(b.p);
}

static void other_callstack_items(void)
{
    static const uint64_t stack[] = {0x501000, 0x502000};
    struct buf b = {0};
    it_thread(&b, 7);
    it_callstack(&b, 2, stack);
    it_message(&b, TCW_MessageCallstack, T0 + 100, "with stack");
    it_callstack(&b, 1, stack);
    it_single(&b, "coloured");
    u8(&b, TCW_MessageColorCallstack);
    u64(&b, T0 + 110);
    u8(&b, 1), u8(&b, 2), u8(&b, 3);
    u8(&b, TCW_MESSAGE_META(3));
    it_callstack(&b, 1, stack);
    u8(&b, TCW_MessageLiteralCallstack);
    u64(&b, T0 + 120);
    u64(&b, (uint64_t)0x7000 << 8 | TCW_MESSAGE_META(2));
    it_callstack_serial(&b, 2, stack);
    it_mem(&b, TCW_MemAllocCallstack, T0 + 200, 7, 0x1000, 64);
    it_callstack_serial(&b, 1, stack);
    it_mem(&b, TCW_MemFreeCallstack, 10, 7, 0x1000, 0);
    it_callstack_serial(&b, 1, stack + 1);
    it_mem(&b, TCW_MemFreeCallstack, 10, 7, 0, 0); /* free(NULL) still takes its callstack */
    /* Custom frames (a Lua-style callstack) in front of a native one. */
    it_callstack_payload(&b, 1, stack);
    struct buf p = {0};
    u8(&p, 2);
    alloc_frame(&p, 10, "lua_fn", "script.lua");
    alloc_frame(&p, 20, "lua_main", "script.lua");
    it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len);
    u8(&b, TCW_CallstackAlloc);
    it_message(&b, TCW_MessageCallstack, T0 + 300, "lua");
    it_callstack(&b, 1, stack + 1);
    u8(&b, TCW_CrashReport);
    u64(&b, T0 + 400);
    u64(&b, 0x7100);
    u8(&b, TCW_Crash);
    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    tt_check(st == TCD_STATE_DONE, "other callstack items: DONE (%s)", tcd_decoder_error(r.dec));
    const struct rec_event *m0 = find_event(&r, TCD_MESSAGE, 0), *m1 = find_event(&r, TCD_MESSAGE, 1),
                           *m2 = find_event(&r, TCD_MESSAGE, 2), *m3 = find_event(&r, TCD_MESSAGE, 3);
    tt_check(m0 && m0->ev.callstack == 1 && !strcmp(m0->text, "with stack") && m1 && m1->ev.callstack == 2 &&
                 m1->ev.color == 0x030201 && m2 && m2->ev.callstack == 2,
             "messages with callstacks (plain, coloured, literal)");
    const struct rec_event *a = find_event(&r, TCD_MEM_ALLOC, 0), *fr = find_event(&r, TCD_MEM_FREE, 0);
    tt_check(a && a->ev.callstack == 1 && a->ev.value == 64 && fr && fr->ev.callstack == 2 &&
                 count_events(&r, TCD_MEM_FREE) == 1,
             "memory events with serial callstacks; free(NULL) gives no event");
    tt_check(m3 && m3->ev.callstack == 4 &&
                 !strcmp(stack_text(r.dec, 4), "lua_fn@script.lua:10 < lua_main@script.lua:20 < f501000@src.c:4096"),
             "custom frames go in front of the native callstack: %s", m3 ? stack_text(r.dec, m3->ev.callstack) : "");
    uint32_t depth;
    const uint32_t *frames = tcd_callstack(r.dec, 4, &depth);
    tt_check(frames && depth == 3 && tcd_frame(r.dec, frames[0])->state == TCD_FRAME_CUSTOM &&
                 tcd_frame(r.dec, frames[0])->address == 0,
             "custom frames have no address");
    const struct rec_event *crash = find_event(&r, TCD_CRASH, 0);
    tt_check(crash && crash->ev.callstack == 3, "the crash report takes the thread's callstack");
    tt_check(count_queries(&r, TCW_QUERY_CALLSTACK_FRAME) == 2, "custom frames are never queried");
    rec_free(&r);
    free(b.p);
    free(p.p);
}

static void gpu_callstacks(void)
{
    static const uint64_t stack[] = {0x601000};
    struct buf b = {0};
    it_thread(&b, 7);
    u8(&b, TCW_GpuNewContext);
    u64(&b, T0);
    u64(&b, 0);
    u32(&b, 7);
    f32(&b, 1.0f);
    u8(&b, 0); /* context */
    u8(&b, 0);
    u8(&b, 1);
    it_callstack(&b, 1, stack);
    u8(&b, TCW_GpuZoneBeginCallstack);
    u64(&b, 100);
    u32(&b, 7);
    u16(&b, 1);
    u8(&b, 0);
    u64(&b, 0x5000);
    u8(&b, TCW_GpuZoneEnd);
    u64(&b, 10);
    u32(&b, 7);
    u16(&b, 2);
    u8(&b, 0);
    it_callstack_serial(&b, 1, stack);
    u8(&b, TCW_GpuZoneBeginCallstackSerial);
    u64(&b, T0 + 300);
    u32(&b, 7);
    u16(&b, 3);
    u8(&b, 0);
    u64(&b, 0x5000);
    u8(&b, TCW_GpuZoneEndSerial);
    u64(&b, 10);
    u32(&b, 7);
    u16(&b, 4);
    u8(&b, 0);
    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    const struct rec_event *g0 = find_event(&r, TCD_GPU_ZONE_BEGIN, 0), *g1 = find_event(&r, TCD_GPU_ZONE_BEGIN, 1);
    tt_check(st == TCD_STATE_DONE && g0 && g0->ev.callstack == 1 && g1 && g1->ev.callstack == 1,
             "GPU zones take the thread's and the serial callstack (%s)", tcd_decoder_error(r.dec));
    rec_free(&r);
    free(b.p);
}

/* ---- sampling and system tracing ---------------------------------------------------------------- */

static void samples_and_switches(void)
{
    static const uint64_t leaf_a[] = {0x701000, 0x702000}, leaf_b[] = {0x703000, 0x702000};
    struct buf b = {0};
    it_thread(&b, 7);
    /* The context-switch chain starts at 0: the first delta is the absolute time. */
    it_callstack_payload(&b, 2, leaf_a);
    it_sample(&b, false, 7, (int64_t)T0 + 1000);
    it_callstack_payload(&b, 2, leaf_b);
    it_sample(&b, false, 7, 500); /* 16-bit */
    it_callstack_payload(&b, 2, leaf_a);
    it_sample(&b, false, 8, 70000); /* 32-bit, another thread */
    it_context_switch(&b, 10, 7, 9, 1, 104);
    it_callstack_payload(&b, 2, leaf_b);
    it_sample(&b, true, 7, 0); /* the stack where thread 7 was switched out */
    it_wakeup(&b, 100, 7, 1);
    it_context_switch(&b, 100, 9, 7, 1, 103);
    it_context_switch(&b, 100, 7, 0, 1, 104); /* to idle: no external name query for 0 */
    it_context_switch(&b, 100, 0, 9, 0, 103); /* thread 9 again: queried once */
    u8(&b, TCW_TidToPid);
    u64(&b, 9);
    u64(&b, 4321);
    u8(&b, TCW_TidToPid);
    u64(&b, 9);
    u64(&b, 1); /* the first answer stays */
    it_callstack_payload(&b, 1, leaf_a);
    it_sample(&b, false, 7, -(int64_t)(T0 + 1000 + 500 + 70000 + 410)); /* back to 0: "no time" */
    it_callstack_payload(&b, 2, leaf_b);
    it_sample(&b, false, 7, 5000000000); /* 64-bit */
    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    tt_check(st == TCD_STATE_DONE, "samples and switches: DONE (%s)", tcd_decoder_error(r.dec));
    const struct rec_event *s0 = find_event(&r, TCD_SAMPLE, 0), *s1 = find_event(&r, TCD_SAMPLE, 1),
                           *s2 = find_event(&r, TCD_SAMPLE, 2), *s3 = find_event(&r, TCD_SAMPLE, 3),
                           *s4 = find_event(&r, TCD_SAMPLE, 4), *s5 = find_event(&r, TCD_SAMPLE, 5);
    tt_check(s0 && s0->ev.thread == 7 && s0->ev.time == 1000 && s0->ev.callstack == 1 && s0->ev.flags == 0,
             "sample at 1000 ns, callstack 1");
    tt_check(s1 && s1->ev.time == 1500 && s1->ev.callstack == 2, "16-bit sample delta");
    tt_check(s2 && s2->ev.thread == 8 && s2->ev.time == 71500 && s2->ev.callstack == 1, "32-bit sample delta");
    tt_check(s3 && s3->ev.time == 71510 && s3->ev.flags == TCD_SAMPLE_SWITCH && s3->ev.callstack == 2,
             "context-switch sample, on the same chain as the switch before it");
    tt_check(s4 && s4->ev.time == 0 && s4->ev.callstack == 3, "a sample whose time is 0 keeps time 0");
    tt_check(s5 && s5->ev.time == 5000000000 - INIT_BEGIN, "64-bit sample delta");
    const struct rec_event *c0 = find_event(&r, TCD_CONTEXT_SWITCH, 0), *c1 = find_event(&r, TCD_CONTEXT_SWITCH, 1);
    tt_check(c0 && c0->ev.time == 71510 && c0->ev.id == 7 && c0->ev.thread == 9 && c0->ev.query == 1 &&
                 c0->ev.format == 104 && c0->ev.flags == 100,
             "context switch 7 -> 9 on cpu 1, old thread sleeping");
    tt_check(c1 && c1->ev.time == 71710 && c1->ev.id == 9 && c1->ev.thread == 7, "second switch 100 ns later");
    const struct rec_event *w = find_event(&r, TCD_THREAD_WAKEUP, 0);
    tt_check(w && w->ev.time == 71610 && w->ev.thread == 7 && w->ev.query == 1, "wakeup on the same chain");
    tt_check(count_queries(&r, TCW_QUERY_EXTERNAL_NAME) == 2, "an ExternalName query per new switched-in thread");
    tt_check(!strcmp(tcd_external_thread_name(r.dec, 9), "et9") &&
                 !strcmp(tcd_external_process_name(r.dec, 9), "ep9") &&
                 !strcmp(tcd_external_thread_name(r.dec, 12345), ""),
             "external thread and process names");
    tt_check(tcd_thread_pid(r.dec, 9) == 4321 && tcd_thread_pid(r.dec, 7) == 0, "TidToPid: the first answer stays");
    tt_check(count_queries(&r, TCW_QUERY_THREAD_STRING) == 2, "sampled threads 7 and 8 are named");
    struct tcd_stats stats;
    tcd_decoder_stats(r.dec, &stats);
    tt_check(stats.samples == 5, "5 CPU samples counted (the switch sample is not one)");
    rec_free(&r);
    free(b.p);
}

static void lost_samples_message(void)
{
    struct buf b = {0};
    it_thread(&b, 7);
    const char *text = "tracyc: lost 42 samples in total: the kernel's buffer overflowed";
    it_single(&b, text);
    u8(&b, TCW_Message);
    u64(&b, T0 + 10);
    u8(&b, TCW_MESSAGE_META(3) | TCW_MESSAGE_SOURCE_TRACY);
    it_single(&b, "tracyc: lost 7 samples from a user");
    u8(&b, TCW_Message);
    u64(&b, T0 + 20);
    u8(&b, TCW_MESSAGE_META(3)); /* a user's message: not a counter */
    struct recorder r;
    run_stream(&r, &b, NULL);
    const struct rec_event *e = find_event(&r, TCD_SAMPLES_LOST, 0);
    tt_check(e && e->ev.value == 42 && e->ev.time == 10 && count_events(&r, TCD_SAMPLES_LOST) == 1,
             "\"tracyc: lost 42 samples\" from the client gives TCD_SAMPLES_LOST 42; a user's message does not");
    rec_free(&r);
    free(b.p);
}

/* ---- queries: room, order, completion -------------------------------------------------------------- */

static void frame_query_room(void)
{
    static const uint64_t stack[] = {0x801000, 0x802000, 0x803000, 0x804000, 0x805000};
    struct buf items = {0}, wire = {0}, term = {0};
    it_thread(&items, 7);
    it_callstack_payload(&items, 5, stack);
    it_sample(&items, false, 7, (int64_t)T0 + 10);
    u8(&term, TCW_Terminate);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    frame(&wire, &items);
    frame(&wire, &term);
    struct recorder r;
    struct tcd_limits limits = {.max_queries = 2};
    rec_init(&r, &limits);
    feed(&r, &wire);
    tt_check(r.nq == 2 && r.queries[0][0] == TCW_QUERY_THREAD_STRING && r.queries[1][0] == TCW_QUERY_CALLSTACK_FRAME,
             "room for 2 queries: the thread name first, then one frame");
    size_t answered = 0;
    answer_queries(&r, &answered); /* ThreadName and one frame answer: both give room back */
    tt_check(r.nq == 4 && tcd_decoder_state(r.dec) == TCD_STATE_RUNNING,
             "CallstackFrameSize gives its room back, CallstackFrame items do not: 2 more queries (%zu)", r.nq);
    for (int round = 0; round < 10 && answered < r.nq; round++)
        answer_queries(&r, &answered);
    tt_check(tcd_decoder_state(r.dec) == TCD_STATE_DONE && count_queries(&r, TCW_QUERY_CALLSTACK_FRAME) == 5 &&
                 count_queries(&r, TCW_QUERY_SYMBOL) == 5,
             "DONE once every frame and symbol is answered (%s)", tcd_decoder_error(r.dec));
    rec_free(&r);

    /* Terminate with a frame unanswered: not done; closing the connection ends it anyway. */
    rec_init(&r, NULL);
    feed(&r, &wire);
    tt_check(tcd_decoder_state(r.dec) == TCD_STATE_RUNNING, "frames unanswered: still running after Terminate");
    tt_check(tcd_decoder_close(r.dec) == TCD_STATE_DONE, "closing leaves the frames unresolved, DONE");
    const struct tcd_frame *f = tcd_frame(r.dec, 0);
    tt_check(f && f->state == TCD_FRAME_UNRESOLVED && f->count == 0 && !strcmp(f->image, ""),
             "an unanswered frame stays unresolved");
    rec_free(&r);

    /* A frame answer split across frames: the first frames arrive, Terminate, the rest later. */
    rec_init(&r, NULL);
    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    clear(&items);
    it_thread(&items, 7);
    it_callstack_payload(&items, 1, stack + 1);
    it_sample(&items, false, 7, (int64_t)T0 + 10);
    frame(&wire, &items);
    feed(&r, &wire);
    clear(&wire);
    clear(&items);
    it_string(&items, TCW_ThreadName, 7, "main");
    it_single(&items, "img");
    u8(&items, TCW_CallstackFrameSize);
    u64(&items, 0x802000);
    u8(&items, 2);
    it_single(&items, "inner");
    it_second(&items, "a.c");
    u8(&items, TCW_CallstackFrame);
    u32(&items, 1);
    u64(&items, 0);
    u32(&items, 0);
    u8(&items, TCW_Terminate);
    frame(&wire, &items);
    feed(&r, &wire);
    tt_check(tcd_decoder_state(r.dec) == TCD_STATE_RUNNING, "half-answered frame: still running after Terminate");
    clear(&wire);
    clear(&items);
    it_single(&items, "outer");
    it_second(&items, "a.c");
    u8(&items, TCW_CallstackFrame);
    u32(&items, 2);
    u64(&items, 0); /* no symbol: no Symbol query */
    u32(&items, 0);
    frame(&wire, &items);
    feed(&r, &wire);
    tt_check(tcd_decoder_state(r.dec) == TCD_STATE_DONE && !strcmp(stack_text(r.dec, 1), "inner@a.c:1 < outer@a.c:2"),
             "the rest of the answer completes the frame and the capture: %s", stack_text(r.dec, 1));
    rec_free(&r);
    free(items.p);
    free(wire.p);
    free(term.p);
}

/* ---- hostile input ----------------------------------------------------------------------------------- */

static void hostile_callstacks(void)
{
    static const uint64_t stack[] = {0x901000, 0x902000};
    struct buf b = {0};

#define FAILS(what, needle, ...)                                                                                       \
    do {                                                                                                               \
        clear(&b);                                                                                                     \
        it_thread(&b, 7);                                                                                              \
        __VA_ARGS__;                                                                                                   \
        u8(&b, TCW_Terminate);                                                                                         \
        expect_items_failure(what, &b, needle);                                                                        \
    } while (0)

    FAILS("Callstack without a payload", "no callstack payload precedes", u8(&b, TCW_Callstack));
    FAILS("CallstackSerial without a payload", "no callstack payload precedes", u8(&b, TCW_CallstackSerial));
    FAILS("sample without a payload", "no callstack payload precedes", it_sample(&b, false, 7, 10));
    FAILS("two payloads in a row", "previous callstack was not consumed", it_callstack_payload(&b, 2, stack);
          it_callstack_payload(&b, 2, stack));
    FAILS("ZoneBeginCallstack without Callstack", "no Callstack item precedes", it_zone_begin_cs(&b, 10, 0x5000));
    FAILS("ZoneBeginCallstack with another thread's Callstack", "no Callstack item precedes",
          it_callstack(&b, 2, stack);
          it_thread(&b, 8); it_zone_begin_cs(&b, 10, 0x5000));
    FAILS("MessageCallstack without Callstack", "no Callstack item precedes",
          it_message(&b, TCW_MessageCallstack, T0, "x"));
    FAILS("MemAllocCallstack without CallstackSerial", "no CallstackSerial item precedes",
          it_mem(&b, TCW_MemAllocCallstack, T0, 7, 0x10, 8));
    FAILS("MemAllocCallstack after a thread Callstack", "no CallstackSerial item precedes", it_callstack(&b, 2, stack);
          it_mem(&b, TCW_MemAllocCallstack, T0, 7, 0x10, 8));
    FAILS("MemDiscardCallstack without CallstackSerial", "no CallstackSerial item precedes",
          it_mem(&b, TCW_MemDiscardCallstack, T0, 7, 0x10, 0));
    FAILS("two Callstacks for one thread's next item", "already waiting", it_callstack(&b, 2, stack);
          it_callstack(&b, 1, stack));
    FAILS("two CallstackSerials", "previous one was not consumed", it_callstack_serial(&b, 2, stack);
          it_callstack_serial(&b, 1, stack));
    FAILS("empty callstack payload", "callstack payload of 0 bytes", it_callstack_payload(&b, 0, stack));
    FAILS("callstack payload of 12 bytes", "callstack payload of 12 bytes",
          it_transfer(&b, TCW_CallstackPayload, 0, stack, 12));

    struct buf p = {0};
    u8(&p, 65);
    FAILS("65 custom frames", "CallstackAllocPayload with 65 frames",
          it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len));
    clear(&p);
    u8(&p, 2);
    alloc_frame(&p, 1, "a", "b.lua");
    FAILS("custom frames cut short", "overruns the payload", it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len));
    clear(&p);
    u8(&p, 1);
    alloc_frame(&p, 1, "a", "b.lua");
    u8(&p, 0);
    FAILS("bytes after the custom frames", "bytes after its last frame",
          it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len));
    clear(&p);
    u8(&p, 0);
    FAILS("no custom frames and no native callstack", "no frames and no callstack",
          it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len));
    clear(&p);
    u8(&p, 1);
    u32(&p, 1);
    u16(&p, 60000);
    FAILS("custom frame name longer than the payload", "overruns the payload",
          it_transfer(&b, TCW_CallstackAllocPayload, 0, p.p, p.len));

    FAILS("frame answer for an address never queried", "never queried", it_frame_answer(&b, 0x123000));
    FAILS("frame answered twice", "answered before", it_callstack_payload(&b, 1, stack); it_sample(&b, false, 7, 1);
          it_frame_answer(&b, stack[0]); it_frame_answer(&b, stack[0]));
    FAILS("frame answer with no frames", "with no frames", it_callstack_payload(&b, 1, stack);
          it_sample(&b, false, 7, 1); it_single(&b, "img"); u8(&b, TCW_CallstackFrameSize); u64(&b, stack[0]);
          u8(&b, 0));
    FAILS("a frame answer inside another", "still expects 1 CallstackFrame", it_callstack_payload(&b, 2, stack);
          it_sample(&b, false, 7, 1); it_single(&b, "img"); u8(&b, TCW_CallstackFrameSize); u64(&b, stack[0]);
          u8(&b, 1); it_frame_answer(&b, stack[1]));
    FAILS("CallstackFrame without its size", "without a CallstackFrameSize", it_single(&b, "f"); it_second(&b, "a.c");
          u8(&b, TCW_CallstackFrame); u32(&b, 1); u64(&b, 0); u32(&b, 0));
    FAILS("CallstackFrame without its file", "no second string", it_callstack_payload(&b, 1, stack);
          it_sample(&b, false, 7, 1); it_single(&b, "img"); u8(&b, TCW_CallstackFrameSize); u64(&b, stack[0]);
          u8(&b, 1); it_single(&b, "f"); u8(&b, TCW_CallstackFrame); u32(&b, 1); u64(&b, 0); u32(&b, 0));
    FAILS("CallstackFrameSize without its image", "no single string", u8(&b, TCW_CallstackFrameSize); u64(&b, stack[0]);
          u8(&b, 1));
    FAILS("SymbolInformation never asked for", "unsolicited SymbolInformation", it_single(&b, "x.c");
          u8(&b, TCW_SymbolInformation); u32(&b, 1); u64(&b, 0x401000));
    FAILS("ExternalName never asked for", "unsolicited ExternalName", it_string(&b, TCW_ExternalName, 9, "p"));
    FAILS("ExternalThreadName twice", "unsolicited ExternalThreadName", it_context_switch(&b, 1, 0, 9, 0, 103);
          it_string(&b, TCW_ExternalThreadName, 9, "t"); it_string(&b, TCW_ExternalThreadName, 9, "t"));
    FAILS("SymbolCode (never asked for)", "never asks for it", u8(&b, TCW_SymbolCode); u64(&b, 0x401000); u32(&b, 1);
          u8(&b, 0x90));
    FAILS("SourceCode (never asked for)", "never asks for it", u8(&b, TCW_SourceCode); u64(&b, 1); u32(&b, 1);
          u8(&b, 'x'));
#undef FAILS
    free(p.p);
    free(b.p);
}

/* Distinct callstacks without end hit the decoder's memory limit, not the machine's. */
static void callstack_memory_limit(void)
{
    struct buf items = {0}, wire = {0};
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    uint64_t stack[64];
    for (uint64_t i = 0; i < 2000; i++) {
        if (i % 400 == 0) { /* 400 payloads of 64 addresses fit one frame */
            if (items.len)
                frame(&wire, &items);
            clear(&items);
            it_thread(&items, 7);
        }
        for (int k = 0; k < 64; k++)
            stack[k] = 0x100000 + i * 64 + (uint64_t)k;
        it_callstack_payload(&items, 64, stack);
        it_sample(&items, false, 7, 10);
    }
    frame(&wire, &items);
    struct recorder r;
    struct tcd_limits limits = {.max_memory = 2u << 20};
    rec_init(&r, &limits);
    enum tcd_state st = feed(&r, &wire);
    struct tcd_stats stats;
    tcd_decoder_stats(r.dec, &stats);
    tt_check(st == TCD_STATE_FAILED && strstr(tcd_decoder_error(r.dec), "memory limit") &&
                 stats.memory <= limits.max_memory,
             "128,000 distinct frames in 2 MiB: FAILED \"%s\", %zu bytes held", tcd_decoder_error(r.dec), stats.memory);
    rec_free(&r);
    free(items.p);
    free(wire.p);
}

int main(void)
{
    zone_callstacks();
    other_callstack_items();
    gpu_callstacks();
    samples_and_switches();
    lost_samples_message();
    frame_query_room();
    hostile_callstacks();
    callstack_memory_limit();
    return tt_finish("test_decode_callstacks");
}
