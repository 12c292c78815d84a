/* test_decode.c - the protocol-82 decoder against the reference session of docs/protocol.md §23.6 and
 * hand-built streams: every item kind, the time encodings, framing, and hostile input. */
#include <inttypes.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include "test_util.h"

#include "decode_stream.h"

/* ---- docs/protocol.md §23.6: the reference session ------------------------------------------ */

static void worked_example(size_t chunk)
{
    static const char frame_a[] = "4B 92 10 00 00 14 40 D7 9C 3B 00 60 55 55 55 55 00 00 1B 50 C3"
                                  " 5B A0 C1 9E 3B 00 00 00 00 20 10 70 55 55 55 55 00"
                                  " 53 E0 5D 9F 3B 00 00 00 00 00 00 00 00 00 00 00 00";
    static const char frame_a_wire[] =
        "35 00 00 00 F1 12 4B 92 10 00 00 14 40 D7 9C 3B 00 60 55 55 55 55 00 00 1B 50 C3 5B A0 C1 9E 3B"
        " 00 00 00 00 20 10 70 15 00 41 53 E0 5D 9F 11 00 80 00 00 00 00 00 00 00 00";
    static const char frame_b_wire[] = "02 00 00 00 10 49";
    static const char burst1[] = "03 00 60 55 55 55 55 00 00 00 00 00 00"
                                 " 02 92 10 00 00 00 00 00 00 00 00 00 00"
                                 " 01 10 70 55 55 55 55 00 00 00 00 00 00";
    static const char frame_c[] =
        "57 00 00 00 00 00 00 00 00 00 70 55 55 55 55 00 00 08 70 55 55 55 55 00 00 0A 00 00 00 00 00 00"
        " 78 92 10 00 00 00 00 00 00 04 00 6D 61 69 6E"
        " 77 10 70 55 55 55 55 00 00 05 00 48 65 6C 6C 6F";
    static const char burst2[] = "01 08 70 55 55 55 55 00 00 00 00 00 00"
                                 " 01 00 70 55 55 55 55 00 00 00 00 00 00";
    static const char frame_d[] = "77 08 70 55 55 55 55 00 00 09 00 65 78 61 6D 70 6C 65 2E 63"
                                  " 77 00 70 55 55 55 55 00 00 04 00 6D 61 69 6E";

    struct buf hs = {0}, items = {0}, wire = {0}, expect = {0}, tmp = {0};
    uint8_t req[12];
    tcd_handshake_request(req);
    tt_check(!memcmp(req, "TracyPrf\x52\0\0\0", 12), "handshake request is TracyPrf + 82");

    welcome(&hs, 1.0, INIT_BEGIN, 0);
    hex(&items, frame_a);
    tt_check(items.len == 55, "frame A is 55 bytes");
    frame(&wire, &items);
    hex(&expect, frame_a_wire);
    tt_check(
        wire.len == expect.len && !memcmp(wire.p, expect.p, wire.len),
        "frame A compressed with LZ4_compress_default equals the reference session's bytes (docs/protocol.md §23.6)");
    hex(&wire, frame_b_wire);

    struct recorder r;
    rec_init(&r, NULL);
    struct buf all = {0};
    put(&all, hs.p, hs.len);
    put(&all, wire.p, wire.len);
    enum tcd_state st = TCD_STATE_HANDSHAKE;
    for (size_t off = 0; off < all.len; off += chunk)
        st = tcd_decoder_feed(r.dec, all.p + off, all.len - off < chunk ? all.len - off : chunk);
    tt_check(st == TCD_STATE_RUNNING, "[chunk %zu] running after frames A and B (waits for its queries)", chunk);
    clear(&expect);
    hex(&expect, burst1);
    tt_check(r.nq == 3 && !memcmp(r.queries, expect.p, 39),
             "[chunk %zu] first query burst is byte-identical to the reference session's (§23.6)", chunk);

    const struct tcd_welcome *w = tcd_decoder_welcome(r.dec);
    tt_check(w->timer_mul == 1.0 && w->init_begin == INIT_BEGIN && w->resolution == 20 && w->pid == 1234 &&
                 !strcmp(w->program_name, "example") && !strcmp(w->host_info, "OS: Linux\n"),
             "welcome fields");

    tt_check(r.count == 4, "4 events from frame A (got %zu)", r.count);
    const struct tcd_event *zb = &r.events[0].ev, *ze = &r.events[1].ev, *msg = &r.events[2].ev, *fm = &r.events[3].ev;
    tt_check(zb->kind == TCD_ZONE_BEGIN && zb->thread == 4242 && zb->time == 200000 && zb->srcloc == 0,
             "zone begin: thread 4242, 200000 ns");
    tt_check(ze->kind == TCD_ZONE_END && ze->thread == 4242 && ze->time == 250000, "zone end at 250000 ns");
    tt_check(msg->kind == TCD_MESSAGE && msg->thread == 4242 && msg->time == 260000 && msg->severity == 2 &&
                 msg->format == 0 && msg->id != 0,
             "literal message at 260000 ns, severity Info");
    tt_check(fm->kind == TCD_FRAME_MARK && fm->id == 0 && fm->time == 300000, "main frame mark at 300000 ns");

    clear(&tmp);
    clear(&items);
    hex(&items, frame_c);
    tt_check(items.len == 63, "frame C is 63 bytes");
    frame(&tmp, &items);
    for (size_t off = 0; off < tmp.len; off += chunk)
        st = tcd_decoder_feed(r.dec, tmp.p + off, tmp.len - off < chunk ? tmp.len - off : chunk);
    clear(&expect);
    hex(&expect, burst2);
    tt_check(st == TCD_STATE_RUNNING && r.nq == 5 && !memcmp(r.queries[3], expect.p, 26),
             "[chunk %zu] second query burst is byte-identical to the reference session's (§23.6)", chunk);

    clear(&tmp);
    clear(&items);
    hex(&items, frame_d);
    tt_check(items.len == 35, "frame D is 35 bytes");
    frame(&tmp, &items);
    for (size_t off = 0; off < tmp.len; off += chunk)
        st = tcd_decoder_feed(r.dec, tmp.p + off, tmp.len - off < chunk ? tmp.len - off : chunk);
    tt_check(st == TCD_STATE_DONE, "[chunk %zu] DONE once every query is answered", chunk);

    const struct tcd_srcloc *sl = tcd_srcloc(r.dec, 0);
    tt_check(tcd_srcloc_count(r.dec) == 1 && !strcmp(sl->name, "") && !strcmp(sl->function, "main") &&
                 !strcmp(sl->file, "example.c") && sl->line == 10 && sl->color == 0,
             "source location main, example.c:10");
    tt_check(!strcmp(tcd_thread_name(r.dec, 4242), "main"), "thread 4242 is named \"main\"");
    tt_check(!strcmp(tcd_string(r.dec, msg->id), "Hello"), "message text resolves to \"Hello\"");
    tt_check(!strcmp(tcd_frame_name(r.dec, 0), "Frame"), "frame set 0 is \"Frame\"");

    struct tcd_stats stats;
    tcd_decoder_stats(r.dec, &stats);
    tt_check(stats.zones == 1 && stats.events == 4 && stats.queries_sent == 5 &&
                 stats.bytes_decoded == 55 + 1 + 63 + 35,
             "stats: 1 zone, 4 events, 5 queries, 154 bytes decoded");
    rec_free(&r);
    free(hs.p);
    free(items.p);
    free(wire.p);
    free(expect.p);
    free(tmp.p);
    free(all.p);
}

/* ---- every item kind ---------------------------------------------------------------------------- */

static void every_item_kind(void)
{
    struct buf b = {0};
    const int64_t T = INIT_BEGIN;
    it_thread(&b, 7);
    /* Validated zone (C-API style) with text, name, colour and value. */
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    it_zone_begin(&b, T + 1000, 0x5000);
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    it_single(&b, "some text");
    u8(&b, TCW_ZoneText);
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    it_single(&b, "renamed");
    u8(&b, TCW_ZoneName);
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    u8(&b, TCW_ZoneColor);
    u8(&b, 0x03);
    u8(&b, 0x02);
    u8(&b, 0x01);
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    u8(&b, TCW_ZoneValue);
    u64(&b, 42);
    /* Inline source location zone, nested, with a long zone text (16-bit single string). */
    it_payload(&b, 0x00aabbcc, 99, "fn", "file.c", "inline zone");
    u8(&b, TCW_ZoneBeginAllocSrcLoc);
    u64(&b, 10);
    char long_text[300];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = 0;
    it_single(&b, long_text);
    u8(&b, TCW_ZoneText);
    it_zone_end(&b, 20);
    u8(&b, TCW_ZoneValidation);
    u32(&b, 1);
    it_zone_end(&b, 30);
    /* Messages. */
    it_single(&b, "plain");
    u8(&b, TCW_Message);
    u64(&b, T + 5000);
    u8(&b, TCW_MESSAGE_META(3));
    it_single(&b, "coloured");
    u8(&b, TCW_MessageColor);
    u64(&b, T + 5001);
    u8(&b, 0x30);
    u8(&b, 0x20);
    u8(&b, 0x10);
    u8(&b, TCW_MESSAGE_META(4));
    u8(&b, TCW_MessageLiteralColor);
    u64(&b, T + 5002);
    u8(&b, 1);
    u8(&b, 2);
    u8(&b, 3);
    u64(&b, (0x7000ull << 8) | TCW_MESSAGE_META(5));
    it_single(&b, "tracyc: dropped 1234 events at the buffer limit");
    u8(&b, TCW_Message);
    u64(&b, T + 5003);
    u8(&b, TCW_MESSAGE_META(3) | TCW_MESSAGE_SOURCE_TRACY);
    it_single(&b, "app info");
    u8(&b, TCW_MessageAppInfo);
    u64(&b, T + 5004);
    /* Plots: they consume the thread-delta chain (R_thread is 1000+10+20+30 = 1060 past T). */
    u8(&b, TCW_PlotDataInt);
    u64(&b, 0x8000);
    u64(&b, 100);
    u64(&b, (uint64_t)-5);
    u8(&b, TCW_PlotDataFloat);
    u64(&b, 0x8000);
    u64(&b, 100);
    f32(&b, 1.5f);
    u8(&b, TCW_PlotDataDouble);
    u64(&b, 0x8008);
    u64(&b, 100);
    f64(&b, 2.25);
    u8(&b, TCW_PlotDataDouble);
    u64(&b, 0x8008);
    u64(&b, 1000000);
    f64(&b, 0.0 / 0.0); /* dropped, delta too */
    u8(&b, TCW_PlotConfig);
    u64(&b, 0x8000);
    u8(&b, 1);
    u8(&b, 1);
    u8(&b, 0);
    u32(&b, 0xff123456);
    /* Frames. */
    u8(&b, TCW_FrameMarkMsg);
    u64(&b, T + 6000);
    u64(&b, 0);
    u8(&b, TCW_FrameMarkMsgStart);
    u64(&b, T + 6001);
    u64(&b, 0x9000);
    u8(&b, TCW_FrameMarkMsgEnd);
    u64(&b, T + 6002);
    u64(&b, 0x9000);
    it_transfer(&b, TCW_FrameImageData, 0, "", 0);
    b.len -= 2;
    u32(&b, 8);
    put(&b, "DXT1DATA", 8); /* FrameImageData has a u32 length */
    u8(&b, TCW_FrameImage);
    u32(&b, 3);
    u16(&b, 4);
    u16(&b, 4);
    u8(&b, 1);
    /* Memory: serial-delta chain. */
    u8(&b, TCW_MemAlloc);
    u64(&b, (uint64_t)(T + 7000));
    u32(&b, 7);
    u64(&b, 0xabc0);
    u32(&b, 64);
    u16(&b, 1);
    u8(&b, TCW_MemFree);
    u64(&b, 10);
    u32(&b, 8);
    u64(&b, 0xabc0);
    u8(&b, TCW_MemNamePayload);
    u64(&b, 0xa000);
    u8(&b, TCW_MemAllocNamed);
    u64(&b, 10);
    u32(&b, 7);
    u64(&b, 0xdef0);
    u32(&b, 16);
    u16(&b, 0);
    u8(&b, TCW_MemDiscard);
    u64(&b, 10);
    u32(&b, 7);
    u64(&b, 0xa000);
    u8(&b, TCW_MemDiscard);
    u64(&b, 999999);
    u32(&b, 7);
    u64(&b, 0xb000); /* unknown pool: ignored, no delta */
    /* Locks (serial chain continues at T + 7030). */
    u8(&b, TCW_LockAnnounce);
    u32(&b, 5);
    u64(&b, (uint64_t)(T + 7100));
    u64(&b, 0x5100);
    u8(&b, 1);
    u8(&b, TCW_LockWait);
    u32(&b, 7);
    u32(&b, 5);
    u64(&b, 70);
    u8(&b, TCW_LockObtain);
    u32(&b, 7);
    u32(&b, 5);
    u64(&b, 10);
    u8(&b, TCW_LockMark);
    u32(&b, 7);
    u32(&b, 5);
    u64(&b, 0x5200);
    u8(&b, TCW_LockRelease);
    u32(&b, 5);
    u64(&b, 10);
    u8(&b, TCW_LockSharedWait);
    u32(&b, 9);
    u32(&b, 5);
    u64(&b, 10);
    u8(&b, TCW_LockSharedObtain);
    u32(&b, 9);
    u32(&b, 5);
    u64(&b, 10);
    u8(&b, TCW_LockSharedRelease);
    u32(&b, 5);
    u64(&b, 10);
    u32(&b, 9);
    it_single(&b, "mutex");
    u8(&b, TCW_LockName);
    u32(&b, 5);
    u8(&b, TCW_LockTerminate);
    u32(&b, 5);
    u64(&b, (uint64_t)(T + 8000));
    /* GPU: context 2, period 2 ns per tick, gpu 1000 ticks at cpu T + 9000. */
    u8(&b, TCW_GpuNewContext);
    u64(&b, (uint64_t)(T + 9000));
    u64(&b, 1000);
    u32(&b, 0);
    f32(&b, 2.0f);
    u8(&b, 2);
    u8(&b, 0);
    u8(&b, 2);
    it_single(&b, "gpu ctx");
    u8(&b, TCW_GpuContextName);
    u8(&b, 2);
    u8(&b, TCW_GpuZoneBeginSerial);
    u64(&b, 2000);
    u32(&b, 7);
    u16(&b, 11);
    u8(&b, 2);
    u64(&b, 0x5300);
    u8(&b, TCW_GpuZoneEndSerial);
    u64(&b, 100);
    u32(&b, 0);
    u16(&b, 12);
    u8(&b, 2);
    u8(&b, TCW_GpuTime);
    u64(&b, 1010);
    u16(&b, 11);
    u8(&b, 2);
    u8(&b, TCW_GpuTime);
    u64(&b, 5);
    u16(&b, 12);
    u8(&b, 2);
    /* Fibers: the fiber's zones go to its virtual thread. */
    it_thread(&b, 7); /* R_thread := 0 */
    u8(&b, TCW_FiberEnter);
    u64(&b, (uint64_t)(T + 10000));
    u64(&b, 0xf1be);
    u32(&b, 7);
    u32(&b, 0);
    it_zone_begin(&b, 10, 0x5000);
    it_zone_end(&b, 10);
    u8(&b, TCW_FiberLeave);
    u64(&b, 10);
    u32(&b, 7);
    /* Informational and system items are parsed for their size. */
    u8(&b, TCW_KeepAlive);
    u8(&b, TCW_CpuTopology);
    u32(&b, 0);
    u32(&b, 0);
    u32(&b, 0);
    u32(&b, 0);
    u8(&b, TCW_SysTimeReport);
    u64(&b, (uint64_t)T);
    f32(&b, 10.0f);
    u8(&b, TCW_ContextSwitch);
    u64(&b, 1);
    u32(&b, 1);
    u32(&b, 2);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, TCW_ThreadWakeup);
    u64(&b, 1);
    u32(&b, 1);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, 0);
    u8(&b, TCW_FrameVsync);
    u64(&b, (uint64_t)T);
    u32(&b, 1);
    u8(&b, TCW_TidToPid);
    u64(&b, 1);
    u64(&b, 2);
    u8(&b, TCW_HwSampleCpuCycle);
    u64(&b, 1);
    u64(&b, 0);
    u8(&b, TCW_ThreadGroupHint);
    u32(&b, 7);
    u32(&b, 1);
    it_single(&b, "section");
    u8(&b, TCW_SectionEnter);
    u64(&b, 10);
    u32(&b, 1);
    u16(&b, 0);
    u8(&b, TCW_SectionLeave);
    u64(&b, 10);
    u32(&b, 1);
    it_transfer(&b, TCW_CallstackPayload, 0, "\x01\0\0\0\0\0\0\0", 8);
    u8(&b, TCW_Callstack);
    /* Crash report, then the crash. */
    u8(&b, TCW_CrashReport);
    u64(&b, (uint64_t)(T + 20000));
    u64(&b, 0x7100);
    u8(&b, TCW_Crash);

    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    tt_check(st == TCD_STATE_DONE, "every item kind: DONE (%s)", tcd_decoder_error(r.dec));
    const struct rec_event *e;

    e = find_event(&r, TCD_ZONE_BEGIN, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.time == 1000, "validated zone begins at 1000");
    e = find_event(&r, TCD_ZONE_TEXT, 0);
    tt_check(e && !strcmp(e->text, "some text") && e->ev.thread == 7, "zone text");
    e = find_event(&r, TCD_ZONE_NAME, 0);
    tt_check(e && !strcmp(e->text, "renamed"), "zone name");
    e = find_event(&r, TCD_ZONE_COLOR, 0);
    tt_check(e && e->ev.color == 0x010203, "zone colour 0x010203 from b,g,r bytes");
    e = find_event(&r, TCD_ZONE_VALUE, 0);
    tt_check(e && e->ev.value == 42, "zone value 42");
    e = find_event(&r, TCD_ZONE_BEGIN, 1);
    const struct tcd_srcloc *sl = e ? tcd_srcloc(r.dec, e->ev.srcloc) : NULL;
    tt_check(e && e->ev.time == 1010 && sl && !strcmp(sl->name, "inline zone") && !strcmp(sl->function, "fn") &&
                 !strcmp(sl->file, "file.c") && sl->line == 99 && sl->color == 0xaabbcc,
             "inline source location zone");
    e = find_event(&r, TCD_ZONE_TEXT, 1);
    tt_check(e && strlen(e->text) == 127 && e->ev.text_len == 299, "299-byte zone text via SingleStringData");
    e = find_event(&r, TCD_ZONE_END, 1);
    tt_check(e && e->ev.time == 1060, "outer zone ends at 1060");
    sl = tcd_srcloc(r.dec, find_event(&r, TCD_ZONE_BEGIN, 0)->ev.srcloc);
    tt_check(!strcmp(sl->name, "s5001") && !strcmp(sl->function, "s5002") && !strcmp(sl->file, "s5003") &&
                 sl->line == 7 && sl->color == 0x112233,
             "static source location resolved through queries");

    e = find_event(&r, TCD_MESSAGE, 0);
    tt_check(e && !strcmp(e->text, "plain") && e->ev.time == 5000 && e->ev.severity == 3 && e->ev.color == 0,
             "message");
    e = find_event(&r, TCD_MESSAGE, 1);
    tt_check(e && !strcmp(e->text, "coloured") && e->ev.color == 0x102030 && e->ev.severity == 4, "coloured message");
    e = find_event(&r, TCD_MESSAGE, 2);
    tt_check(e && e->ev.color == 0x030201 && e->ev.severity == 5 && !strcmp(tcd_string(r.dec, e->ev.id), "s7000"),
             "literal coloured message");
    e = find_event(&r, TCD_DROPPED, 0);
    tt_check(e && e->ev.value == 1234 && count_events(&r, TCD_MESSAGE) == 4, "tracyc drop report -> TCD_DROPPED 1234");
    e = find_event(&r, TCD_APP_INFO, 0);
    tt_check(e && !strcmp(e->text, "app info") && e->ev.time == 5004, "app info");

    e = find_event(&r, TCD_PLOT, 0);
    tt_check(e && e->ev.is_int && (int64_t)e->ev.value == -5 && e->ev.dvalue == -5.0 && e->ev.time == 1160 &&
                 !strcmp(tcd_plot_name(r.dec, e->ev.id), "p8000"),
             "int plot at 1160 (thread-delta chain)");
    e = find_event(&r, TCD_PLOT, 1);
    tt_check(e && e->ev.dvalue == 1.5 && e->ev.time == 1260, "float plot");
    e = find_event(&r, TCD_PLOT, 2);
    tt_check(e && e->ev.dvalue == 2.25 && e->ev.time == 1360 && count_events(&r, TCD_PLOT) == 3,
             "double plot, NaN dropped");
    e = find_event(&r, TCD_PLOT_CONFIG, 0);
    tt_check(e && e->ev.format == 1 && e->ev.flags == 1 && e->ev.color == 0x123456, "plot config");

    e = find_event(&r, TCD_FRAME_MARK, 0);
    tt_check(e && e->ev.id == 0 && e->ev.time == 6000, "frame mark");
    e = find_event(&r, TCD_FRAME_START, 0);
    tt_check(e && e->ev.id == 1 && !strcmp(tcd_frame_name(r.dec, 1), "f9000"), "frame start of a named set");
    e = find_event(&r, TCD_FRAME_END, 0);
    tt_check(e && e->ev.id == 1 && e->ev.time == 6002, "frame end");
    e = find_event(&r, TCD_FRAME_IMAGE, 0);
    tt_check(e && e->ev.id == 3 && e->ev.value == (4u << 16 | 4) && e->ev.flags == 1 && !strcmp(e->text, "DXT1DATA"),
             "frame image");

    e = find_event(&r, TCD_MEM_ALLOC, 0);
    tt_check(e && e->ev.time == 7000 && e->ev.thread == 7 && e->ev.address == 0xabc0 &&
                 e->ev.value == ((1ull << 32) | 64) && e->ev.id == 0,
             "mem alloc, 48-bit size");
    e = find_event(&r, TCD_MEM_FREE, 0);
    tt_check(e && e->ev.time == 7010 && e->ev.thread == 8, "mem free");
    e = find_event(&r, TCD_MEM_ALLOC, 1);
    tt_check(e && e->ev.id == 1 && e->ev.time == 7020 && !strcmp(tcd_pool_name(r.dec, 1), "sa000"), "named mem alloc");
    e = find_event(&r, TCD_MEM_DISCARD, 0);
    tt_check(e && e->ev.id == 1 && e->ev.time == 7030 && count_events(&r, TCD_MEM_DISCARD) == 1,
             "mem discard; unknown pool ignored");

    e = find_event(&r, TCD_LOCK_ANNOUNCE, 0);
    tt_check(e && e->ev.id == 5 && e->ev.format == 1 && e->ev.time == 7100, "lock announce");
    e = find_event(&r, TCD_LOCK_WAIT, 0);
    tt_check(e && e->ev.time == 7100 && e->ev.thread == 7, "lock wait on the serial chain");
    e = find_event(&r, TCD_LOCK_RELEASE, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.time == 7120 && e->ev.format == 0, "lock release names the last obtainer");
    e = find_event(&r, TCD_LOCK_MARK, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.srcloc != find_event(&r, TCD_LOCK_ANNOUNCE, 0)->ev.srcloc, "lock mark");
    e = find_event(&r, TCD_LOCK_RELEASE, 1);
    tt_check(e && e->ev.thread == 9 && e->ev.format == 1 && e->ev.time == 7150, "shared lock release");
    e = find_event(&r, TCD_LOCK_NAME, 0);
    tt_check(e && !strcmp(e->text, "mutex"), "lock name");
    tt_check(find_event(&r, TCD_LOCK_TERMINATE, 0) != NULL, "lock terminate");

    e = find_event(&r, TCD_GPU_CONTEXT, 0);
    tt_check(e && e->ev.id == 2 && e->ev.dvalue == 2.0 && e->ev.format == 2 && e->ev.time == 9000, "gpu context");
    e = find_event(&r, TCD_GPU_CONTEXT_NAME, 0);
    tt_check(e && !strcmp(e->text, "gpu ctx"), "gpu context name");
    e = find_event(&r, TCD_GPU_ZONE_BEGIN, 0);
    tt_check(e && e->ev.query == 11 && e->ev.time == 9150 && e->ev.thread == 7, "gpu zone begin (serial chain)");
    e = find_event(&r, TCD_GPU_ZONE_END, 0);
    tt_check(e && e->ev.query == 12 && e->ev.time == 9250, "gpu zone end");
    e = find_event(&r, TCD_GPU_TIME, 0);
    tt_check(e && e->ev.query == 11 && e->ev.time2 == 9000 + 20,
             "gpu time: (1010 - 1000) ticks * 2 ns after the context's start");
    e = find_event(&r, TCD_GPU_TIME, 1);
    tt_check(e && e->ev.time2 == 9000 + 30, "gpu time on the gpu-delta chain");

    e = find_event(&r, TCD_FIBER_ENTER, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.id == 0x80000000u && e->ev.time == 10000, "fiber enter");
    e = find_event(&r, TCD_ZONE_BEGIN, 2);
    tt_check(e && e->ev.thread == 0x80000000u && e->ev.time == 10010 &&
                 !strcmp(tcd_thread_name(r.dec, 0x80000000u), "fiberf1be"),
             "fiber zone on the virtual thread, named by FiberName");
    e = find_event(&r, TCD_FIBER_LEAVE, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.time == 10030, "fiber leave");

    e = find_event(&r, TCD_CRASH, 0);
    tt_check(e && e->ev.thread == 7 && e->ev.time == 20000 && !strcmp(tcd_string(r.dec, e->ev.id), "s7100") &&
                 count_events(&r, TCD_CRASH) == 1,
             "crash report");
    tt_check(!strcmp(tcd_thread_name(r.dec, 7), "t7") && !strcmp(tcd_thread_name(r.dec, 8), "t8") &&
                 !strcmp(tcd_thread_name(r.dec, 12345), "12345"),
             "thread names; unknown thread gives its decimal id");
    rec_free(&r);
    free(b.p);
}

/* ---- time encodings ------------------------------------------------------------------------------ */

static void compact_times(void)
{
    /* Absolute times, relative to T; deltas cover every variant and its boundaries. */
    const int64_t deltas[] = {
        1000, 0,     65535,        65536, 65536 + 4294967295ll, 65536 + 4294967296ll, -1, -5000000000ll,
        123,  70000, 9000000000ll, -65536};
    const size_t n = sizeof deltas / sizeof deltas[0];
    struct buf b = {0};
    it_thread(&b, 1);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += deltas[i];
        if (i % 2 == 0)
            it_zone_begin(&b, deltas[i], 0x100);
        else
            it_zone_end(&b, deltas[i]);
    }
    struct recorder r;
    enum tcd_state st = run_stream(&r, &b, NULL);
    tt_check(st == TCD_STATE_DONE, "compact times: DONE (%s)", tcd_decoder_error(r.dec));
    size_t k = 0; /* zone events seen; the thread's name comes between them once asked */
    int ok = 1;
    t = 0;
    for (size_t i = 0; ok && i < r.count; i++) {
        if (r.events[i].ev.kind == TCD_THREAD_NAME)
            continue;
        t += deltas[k];
        ok = k++ < n && r.events[i].ev.time == t - INIT_BEGIN;
    }
    ok = ok && k == n;
    tt_check(ok, "16/32/64-bit zone times incl. boundaries and negative deltas");
    rec_free(&r);

    /* ThreadContext resets R_thread even for the same thread; timerMul scales. */
    clear(&b);
    it_thread(&b, 1);
    it_zone_begin(&b, INIT_BEGIN + 100, 0x100);
    it_thread(&b, 1);
    it_zone_end(&b, INIT_BEGIN + 300);
    rec_init(&r, NULL);
    struct buf wire = {0};
    welcome(&wire, 0.5, INIT_BEGIN, 0);
    frame(&wire, &b);
    feed(&r, &wire);
    tt_check(r.count == 2 && r.events[0].ev.time == 50 && r.events[1].ev.time == 150,
             "ThreadContext resets R_thread; times scale by timerMul");
    rec_free(&r);
    free(wire.p);
    free(b.p);
}

/* ---- framing and hostile input ----------------------------------------------------------------------- */

static void framing_errors(void)
{
    struct buf wire = {0}, items = {0};

    welcome(&wire, 1.0, INIT_BEGIN, 0);
    u32(&wire, 0);
    expect_failure("csize 0", &wire, "size 0");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    u32(&wire, TCW_LZ4_SIZE + 1);
    expect_failure("csize 263189", &wire, "size 263189");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    u8(&items, TCW_KeepAlive);
    frame(&wire, &items);
    wire.len -= 1;
    expect_failure("truncated frame at close", &wire, "middle of LZ4 frame");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    u32(&wire, 4);
    u32(&wire, 0xffffffff);
    expect_failure("garbage LZ4 block", &wire, "does not decompress");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    wire.len -= 10;
    expect_failure("connection closed during the welcome", &wire, "during the handshake");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    expect_failure("connection closed before Terminate", &wire, "before the client sent Terminate");

    clear(&wire);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    memset(wire.p + 1 + TCW_WELCOME_PROGRAM_NAME, 'a', TCW_PROGRAM_NAME_SIZE);
    expect_failure("programName without NUL", &wire, "NUL");

    clear(&wire);
    u8(&wire, TCW_HANDSHAKE_PROTOCOL_MISMATCH);
    expect_failure("status 2", &wire, "client speaks another protocol version than 82 (Tracy 0.14.0)");
    clear(&wire);
    u8(&wire, TCW_HANDSHAKE_NOT_AVAILABLE);
    expect_failure("status 3", &wire, "client is not available (it already served a capture)");
    clear(&wire);
    u8(&wire, 9);
    expect_failure("status 9", &wire, "invalid handshake status 9");

    clear(&items);
    it_thread(&items, 1);
    u8(&items, TCW_ZoneBegin16);
    u16(&items, 5);
    u32(&items, 0);
    expect_items_failure("item straddling the end of a frame", &items,
                         "straddles the end of the frame [item ZoneBegin16 (21) at offset 5 of frame 0]");

    clear(&items);
    u8(&items, 200);
    expect_items_failure("unknown item type", &items, "unknown item type [item unknown (200)");

    clear(&items);
    u8(&items, TCW_ExternalNameMetadata);
    expect_items_failure("client-internal item type", &items, "never appears on the wire");

    clear(&items);
    it_string(&items, TCW_StringData, 0x42, "nobody asked");
    expect_items_failure("unsolicited StringData", &items, "unsolicited StringData");

    clear(&items);
    u8(&items, TCW_SourceLocation);
    for (int i = 0; i < 31; i++)
        u8(&items, 0);
    expect_items_failure("unsolicited SourceLocation", &items, "unsolicited SourceLocation");

    clear(&items);
    u8(&items, TCW_AckServerQueryNoop);
    expect_items_failure("unsolicited AckServerQueryNoop", &items, "unsolicited AckServerQueryNoop");

    clear(&items);
    it_string(&items, TCW_ThreadName, 1, "x");
    expect_items_failure("unsolicited ThreadName", &items, "unsolicited ThreadName");

    /* A clock reading from a client that was not asked for it (§28: this one's welcome does
     * not say tracyc). */
    clear(&items);
    u8(&items, TCW_TracycClock);
    for (int i = 0; i < 4; i++)
        u64(&items, 1000 + (uint64_t)i);
    u32(&items, 0);
    expect_items_failure("unsolicited TracycClock", &items, "a clock reading from a client that was not asked");

    clear(&items);
    u8(&items, TCW_SingleStringData);
    u16(&items, 0xffff);
    expect_items_failure("16-bit single string length overflow", &items, "length overflow");

    clear(&items);
    u8(&items, TCW_StringData);
    u64(&items, 1);
    u16(&items, 100);
    put(&items, "short", 5);
    expect_items_failure("string length past the frame", &items, "string length 100 overruns the frame");

    clear(&items);
    u8(&items, TCW_SingleStringData8);
    u8(&items, 10);
    put(&items, "abc", 3);
    expect_items_failure("single string past the frame", &items, "overruns the frame");

    clear(&items);
    it_thread(&items, 1);
    it_zone_end(&items, 10);
    expect_items_failure("ZoneEnd with an empty stack", &items, "Zone is ended twice.");

    clear(&items);
    it_thread(&items, 1);
    u8(&items, TCW_ZoneValidation);
    u32(&items, 1);
    it_zone_begin(&items, 10, 0x100);
    u8(&items, TCW_ZoneValidation);
    u32(&items, 2);
    it_zone_end(&items, 10);
    expect_items_failure("ZoneValidation mismatch", &items, "Invalid order of zone begin and end events.");

    clear(&items);
    it_thread(&items, 1);
    it_single(&items, "t");
    u8(&items, TCW_ZoneText);
    expect_items_failure("ZoneText without a zone", &items,
                         "Zone text transfer destination doesn't match active zone.");

    clear(&items);
    it_thread(&items, 1);
    u8(&items, TCW_Message);
    u64(&items, 1);
    u8(&items, 0x20);
    expect_items_failure("Message without its single string", &items, "no single string precedes");

    clear(&items);
    it_single(&items, "a");
    it_single(&items, "b");
    expect_items_failure("two single strings in a row", &items, "two single");

    clear(&items);
    u8(&items, TCW_LockWait);
    u32(&items, 1);
    u32(&items, 77);
    u64(&items, 1);
    expect_items_failure("lock event before LockAnnounce", &items, "not announced");

    clear(&items);
    u8(&items, TCW_LockAnnounce);
    u32(&items, 3);
    u64(&items, 1);
    u64(&items, 0x100);
    u8(&items, 0);
    u8(&items, TCW_LockSharedWait);
    u32(&items, 1);
    u32(&items, 3);
    u64(&items, 1);
    expect_items_failure("shared event on an exclusive lock", &items, "announced as exclusive");

    clear(&items);
    u8(&items, TCW_GpuTime);
    u64(&items, 1);
    u16(&items, 0);
    u8(&items, 9);
    expect_items_failure("GpuTime for an unknown context", &items, "not created");

    clear(&items);
    u8(&items, TCW_FiberLeave);
    u64(&items, 1);
    u32(&items, 1);
    expect_items_failure("FiberLeave without FiberEnter", &items, "not executing a fiber");

    clear(&items);
    u8(&items, TCW_FrameMarkMsgEnd);
    u64(&items, 1);
    u64(&items, 0x99);
    expect_items_failure("frame end without start", &items, "Discontinuous frame begin/end mismatch.");

    clear(&items);
    it_transfer(&items, TCW_SourceLocationPayload, 0, "\0\0\0\0\0\0\0\0abc", 11);
    expect_items_failure("SourceLocationPayload without NULs", &items, "malformed SourceLocationPayload");

    clear(&items);
    u8(&items, TCW_MemAllocNamed);
    u64(&items, 1);
    u32(&items, 1);
    u64(&items, 1);
    u32(&items, 1);
    u16(&items, 0);
    expect_items_failure("named mem event without MemNamePayload", &items, "no MemNamePayload");

    free(wire.p);
    free(items.p);
}

/* ---- completion ------------------------------------------------------------------------------------ */

static void done_conditions(void)
{
    struct buf items = {0}, wire = {0}, term = {0};
    struct recorder r;
    u8(&term, TCW_Terminate);

    /* An open zone keeps the capture going after Terminate; a Crash ends it. */
    it_thread(&items, 1);
    it_zone_begin(&items, 10, 0x100);
    enum tcd_state st = run_stream(&r, &items, NULL);
    tt_check(st == TCD_STATE_RUNNING, "Terminate with an open zone: still RUNNING after all replies");
    clear(&wire);
    clear(&items);
    u8(&items, TCW_Crash);
    frame(&wire, &items);
    tt_check(feed(&r, &wire) == TCD_STATE_DONE, "Crash ends it: DONE with the zone open");
    tt_check(count_events(&r, TCD_CRASH) == 1, "Crash without CrashReport gives one TCD_CRASH");
    rec_free(&r);

    /* A pending single string keeps it going too. */
    clear(&items);
    it_single(&items, "dangling");
    st = run_stream(&r, &items, NULL);
    tt_check(st == TCD_STATE_RUNNING, "Terminate with a pending single string: RUNNING");
    tt_check(tcd_decoder_close(r.dec) == TCD_STATE_DONE, "close after Terminate between frames: DONE");
    rec_free(&r);

    /* Unanswered queries: Terminate alone is not enough; each reply counts. */
    clear(&items);
    clear(&wire);
    rec_init(&r, NULL);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    it_thread(&items, 3);
    u8(&items, TCW_MessageLiteral);
    u64(&items, 1);
    u64(&items, 0x4400ull << 8);
    u8(&items, TCW_Terminate);
    frame(&wire, &items);
    st = feed(&r, &wire);
    tt_check(st == TCD_STATE_RUNNING && r.nq == 2, "Terminate with 2 queries unanswered: RUNNING");
    clear(&items);
    clear(&wire);
    it_string(&items, TCW_ThreadName, 3, "three");
    frame(&wire, &items);
    tt_check(feed(&r, &wire) == TCD_STATE_RUNNING, "one reply left: RUNNING");
    clear(&items);
    clear(&wire);
    it_string(&items, TCW_StringData, 0x4400, "literal");
    frame(&wire, &items);
    tt_check(feed(&r, &wire) == TCD_STATE_DONE, "last reply: DONE");
    clear(&wire);
    u8(&wire, 0xee);
    tt_check(feed(&r, &wire) == TCD_STATE_DONE, "bytes after DONE are ignored");
    rec_free(&r);

    /* At most max_queries are outstanding; the rest follow the replies. */
    clear(&items);
    clear(&wire);
    struct tcd_limits limits = {.max_queries = 2};
    rec_init(&r, &limits);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    it_thread(&items, 3);
    for (uint64_t id = 1; id <= 5; id++) {
        u8(&items, TCW_MessageLiteral);
        u64(&items, 1);
        u64(&items, id << 8);
    }
    u8(&items, TCW_Terminate);
    frame(&wire, &items);
    feed(&r, &wire);
    tt_check(r.nq == 2, "max_queries 2: 2 of 6 queries sent");
    size_t answered = 0;
    for (int i = 0; i < 6 && tcd_decoder_state(r.dec) == TCD_STATE_RUNNING; i++)
        answer_queries(&r, &answered);
    tt_check(tcd_decoder_state(r.dec) == TCD_STATE_DONE && r.nq == 6, "the rest follow the replies; DONE");
    rec_free(&r);

    free(items.p);
    free(wire.p);
    free(term.p);
}

static void srcloc_dedupe_and_limits(void)
{
    struct buf items = {0};
    it_thread(&items, 1);
    it_payload(&items, 1, 2, "f", "a.c", "n");
    u8(&items, TCW_ZoneBeginAllocSrcLoc);
    u64(&items, 10);
    it_payload(&items, 1, 2, "f", "a.c", "n");
    u8(&items, TCW_ZoneBeginAllocSrcLoc);
    u64(&items, 10);
    it_payload(&items, 1, 2, "f", "a.c", "");
    u8(&items, TCW_ZoneBeginAllocSrcLoc);
    u64(&items, 10);
    it_zone_begin(&items, 10, 0x100);
    it_zone_begin(&items, 10, 0x100);
    for (int i = 0; i < 5; i++)
        it_zone_end(&items, 10);
    struct recorder r;
    enum tcd_state st = run_stream(&r, &items, NULL);
    const struct rec_event *z[5];
    for (int i = 0; i < 5; i++)
        z[i] = find_event(&r, TCD_ZONE_BEGIN, (size_t)i);
    tt_check(st == TCD_STATE_DONE && z[4] && z[0]->ev.srcloc == z[1]->ev.srcloc && z[2]->ev.srcloc != z[0]->ev.srcloc &&
                 z[3]->ev.srcloc == z[4]->ev.srcloc && z[3]->ev.srcloc != z[2]->ev.srcloc &&
                 tcd_srcloc_count(r.dec) == 3,
             "inline source locations deduplicated by content, one index space with static ones");
    tt_check(!strcmp(tcd_srcloc(r.dec, z[2]->ev.srcloc)->name, ""), "inline source location without a name");
    rec_free(&r);

    /* Memory bound: endless new string ids. */
    clear(&items);
    it_thread(&items, 1);
    for (uint64_t id = 1; id < 12000; id++) {
        u8(&items, TCW_MessageLiteral);
        u64(&items, 1);
        u64(&items, id << 8);
    }
    struct tcd_limits limits = {.max_memory = 1200 * 1024};
    st = run_stream(&r, &items, &limits);
    struct tcd_stats stats;
    tcd_decoder_stats(r.dec, &stats);
    tt_check(st == TCD_STATE_FAILED && strstr(tcd_decoder_error(r.dec), "decoder memory limit reached") &&
                 stats.memory <= limits.max_memory,
             "max_memory bounds the tables (%s)", tcd_decoder_error(r.dec));
    rec_free(&r);
    free(items.p);

    /* A limit below what the decoder needs to start (its ~1 MiB ring) is refused, not
     * read as no limit at all. */
    struct tcd_decoder *tiny = tcd_decoder_new(NULL, NULL, &(struct tcd_limits){.max_memory = 4096});
    tt_check(tiny == NULL, "max_memory smaller than the decoder itself: no decoder");
    tcd_decoder_free(tiny);
}

/* tcd_name_settled: an id's names are final once the client has answered every query about
 * it (a static source location: its own reply, then its strings'), true for ids never seen. */
static void names_settle(void)
{
    struct buf items = {0}, wire = {0};
    it_thread(&items, 7);
    it_zone_begin(&items, 10, 0x100);
    it_zone_end(&items, 10);
    u8(&items, TCW_MessageLiteral);
    u64(&items, 20);
    u64(&items, 0x500);
    u8(&items, TCW_PlotDataDouble);
    u64(&items, 0x600);
    u64(&items, 30);
    f64(&items, 1.5);
    u8(&items, TCW_CrashReport);
    u64(&items, 40);
    u64(&items, 0x700);
    struct recorder r;
    rec_init(&r, NULL);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    frame(&wire, &items);
    feed(&r, &wire);
    const struct rec_event *zone = find_event(&r, TCD_ZONE_BEGIN, 0), *msg = find_event(&r, TCD_MESSAGE, 0),
                           *plot = find_event(&r, TCD_PLOT, 0), *crash = find_event(&r, TCD_CRASH, 0);
    tt_check(zone && msg && plot && crash, "the events came");
    if (!zone || !msg || !plot || !crash) {
        rec_free(&r);
        free(items.p);
        free(wire.p);
        return;
    }
    uint32_t srcloc = zone->ev.srcloc, string = msg->ev.id, plot_id = plot->ev.id;
    tt_check(!tcd_name_settled(r.dec, TCD_NAME_SRCLOC, srcloc) && !tcd_name_settled(r.dec, TCD_NAME_THREAD, 7) &&
                 !tcd_name_settled(r.dec, TCD_NAME_STRING, string) && !tcd_name_settled(r.dec, TCD_NAME_PLOT, plot_id),
             "asked, not answered: not settled");
    const struct tcd_srcloc *sl = tcd_srcloc(r.dec, srcloc);
    tt_check(!strcmp(sl->name, "") && !strcmp(sl->function, "???") && !strcmp(sl->file, "???") &&
                 !strcmp(tcd_string(r.dec, string), "???") && !strcmp(msg->text, "") && !strcmp(crash->text, "") &&
                 !strcmp(tcd_plot_name(r.dec, plot_id), ""),
             "not answered: the source location and string read \"???\" as in Tracy's server (the message's and the "
             "crash's events carry \"\", the plot's name is \"\": the outputs number it)");
    tt_check(tcd_name_settled(r.dec, TCD_NAME_THREAD, 8) && tcd_name_settled(r.dec, TCD_NAME_SRCLOC, 99) &&
                 tcd_name_settled(r.dec, TCD_NAME_FRAME, 5) && tcd_name_settled(r.dec, TCD_NAME_SYMBOL, 0x1234) &&
                 tcd_name_settled(r.dec, TCD_NAME_POOL, 0),
             "ids never seen: nothing to wait for");
    size_t answered = 0;
    answer_queries(&r, &answered); /* the source location's reply asks for its strings */
    tt_check(tcd_name_settled(r.dec, TCD_NAME_THREAD, 7) && tcd_name_settled(r.dec, TCD_NAME_STRING, string) &&
                 tcd_name_settled(r.dec, TCD_NAME_PLOT, plot_id) && !tcd_name_settled(r.dec, TCD_NAME_SRCLOC, srcloc),
             "answered: settled; a source location whose strings are still asked for: not yet");
    answer_queries(&r, &answered);
    tt_check(tcd_name_settled(r.dec, TCD_NAME_SRCLOC, srcloc) && tcd_srcloc(r.dec, srcloc)->file[0],
             "a source location with its strings answered: settled");
    sl = tcd_srcloc(r.dec, srcloc);
    tt_check(strcmp(sl->function, "???") && strcmp(sl->file, "???") && strcmp(tcd_string(r.dec, string), "???") &&
                 strcmp(tcd_string(r.dec, crash->ev.id), "???") && tcd_plot_name(r.dec, plot_id)[0],
             "answered: the client's names");
    rec_free(&r);
    free(items.p);
    free(wire.p);
}

/* Random and mutated streams: no crash, no leak, no out-of-bounds read (run under ASan). */
static void hostile_streams(void)
{
    uint64_t seed = 0x1234567;
    struct buf valid = {0}, items = {0}, wire = {0};
    it_thread(&items, 1);
    it_payload(&items, 1, 2, "f", "a.c", "n");
    u8(&items, TCW_ZoneBeginAllocSrcLoc);
    u64(&items, 10);
    it_single(&items, "text");
    u8(&items, TCW_ZoneText);
    it_zone_begin(&items, 70000, 0x100);
    it_zone_end(&items, 5);
    it_zone_end(&items, 5);
    u8(&items, TCW_PlotDataDouble);
    u64(&items, 0x8000);
    u64(&items, 100);
    f64(&items, 1.0);
    u8(&items, TCW_Terminate);
    welcome(&valid, 1.0, INIT_BEGIN, 0);
    frame(&valid, &items);
    int survived = 1;
    for (int round = 0; round < 3000; round++) {
        clear(&wire);
        put(&wire, valid.p, valid.len);
        size_t flips = 1 + round % 8;
        for (size_t i = 0; i < flips; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = 1 + TCW_WELCOME_SIZE + (size_t)(seed >> 33) % (wire.len - 1 - TCW_WELCOME_SIZE);
            wire.p[pos] ^= (uint8_t)(seed >> 17) | 1;
        }
        if (round % 3 == 0) { /* a raw item stream behind a valid frame header */
            clear(&items);
            for (int i = 0; i < 200; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                u8(&items, (uint8_t)(seed >> 40) % 140);
            }
            clear(&wire);
            welcome(&wire, 1.0, INIT_BEGIN, 0);
            frame(&wire, &items);
        }
        struct recorder r;
        rec_init(&r, NULL);
        feed(&r, &wire);
        tcd_decoder_close(r.dec);
        survived &= tcd_decoder_state(r.dec) == TCD_STATE_DONE || tcd_decoder_state(r.dec) == TCD_STATE_FAILED;
        rec_free(&r);
    }
    tt_check(survived, "3000 mutated and random streams end DONE or FAILED");
    free(valid.p);
    free(items.p);
    free(wire.p);
}

/* A tracyc client's "dropped" reports carry a running total: the decoder keeps the latest,
 * it does not add them up. */
static void drop_reports_are_totals(void)
{
    struct buf wire = {0}, items = {0};
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    it_thread(&items, 1);
    const char *reports[] = {"tracyc: dropped 10 events in total", "tracyc: dropped 25 events in total"};
    for (int i = 0; i < 2; i++) {
        it_single(&items, reports[i]);
        u8(&items, TCW_Message);
        u64(&items, INIT_BEGIN + 10 * (i + 1));
        u8(&items, TCW_MESSAGE_META(3) | TCW_MESSAGE_SOURCE_TRACY);
    }
    frame(&wire, &items);
    struct recorder r;
    rec_init(&r, NULL);
    feed(&r, &wire);
    struct tcd_stats stats;
    tcd_decoder_stats(r.dec, &stats);
    tt_check(stats.dropped == 25 && count_events(&r, TCD_DROPPED) == 2,
             "two drop reports (10, then 25 in total) -> 25 dropped (%llu)", (unsigned long long)stats.dropped);
    rec_free(&r);
    free(wire.p);
    free(items.p);
}

/* A clock probe (§28) goes only to a client that took the clock extension: not to one whose
 * welcome does not say tracyc (upstream's), nor to one that has not connected. */
static void clock_probe_refused(void)
{
    struct recorder r;
    rec_init(&r, NULL);
    tt_check(tcd_decoder_probe_clock(r.dec, 1) == -1 && r.nq == 0, "no clock probe before the welcome");
    struct buf wire = {0};
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    feed(&r, &wire);
    size_t queries = r.nq;
    tt_check(tcd_decoder_probe_clock(r.dec, 1) == -1 && r.nq == queries, "no clock probe to upstream's client");
    rec_free(&r);
    free(wire.p);
}

/* A tracyc client is asked for its extensions right after its welcome, not after its first
 * frame: an in-process capture waiting for the program's first clock reading to take its
 * children by got none while the program recorded nothing (a parent waiting for the
 * children it forked), and the children gave up on it. */
static void extensions_asked_at_welcome(void)
{
    struct recorder r;
    rec_init(&r, NULL);
    struct buf wire = {0};
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    static const char host[] = "OS: Linux\n" TCW_HOST_INFO_TRACYC " (C11)\n";
    memcpy(wire.p + 1 + TCW_WELCOME_HOST_INFO, host, sizeof host);
    feed(&r, &wire);
    tt_check(r.nq == 1 && r.queries[0][0] == tcw_query_to_wire(TCW_QUERY_TRACYC_EXTENSIONS, TCW_V82),
             "a tracyc client's extensions asked with its welcome alone (%zu queries)", r.nq);
    rec_free(&r);
    free(wire.p);
}

int main(void)
{
    drop_reports_are_totals();
    clock_probe_refused();
    extensions_asked_at_welcome();
    worked_example(1 << 20);
    worked_example(1);
    worked_example(7);
    every_item_kind();
    compact_times();
    framing_errors();
    done_conditions();
    srcloc_dedupe_and_limits();
    names_settle();
    hostile_streams();
    return tt_finish("test_decode");
}
