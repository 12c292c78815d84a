/* test_versions.c - the byte boundary between protocol 82 and the older versions
 * (wire/versions.c, docs/protocol.md §24):
 *  - the opcode table: every version numbers its items in 82's order without the ones it
 *    lacks, with the counts and codes read from each release's TracyQueue.hpp;
 *  - every fixed-size item, converted to each version and back, is the same item, and has
 *    the size that version's server reads;
 *  - byte-exact encodings of the items whose layout changed, written by hand from the
 *    releases' structures;
 *  - the encoder and the decoder, for each version: a stream of every item kind that
 *    tracyc sends round-trips with exact counts, the replies to the decoder's queries too;
 *  - the welcome message and the query codes. */
#include "test_util.h"
#include "decode/decode.h"
#include "wire/encode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ------------------------------------------------------------------------- */

static void check_table(void)
{
    /* Opcodes of a few items in each version (82, 76, 74, 69, 66, 64), as in each
     * release's enum class QueueType. */
    static const struct {
        uint8_t type;
        uint8_t op[TCW_VERSION_COUNT];
    } known[] = {
        {TCW_ZoneBegin, {19, 15, 15, 15, 15, 15}},
        {TCW_ZoneEnd, {25, 17, 17, 17, 17, 17}},
        {TCW_MemDiscard, {43, 33, 33, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT}},
        {TCW_GpuZoneBegin, {45, 35, 35, 33, 33, 33}},
        {TCW_GpuTimeSync, {77, 64, 63, 61, 61, TCW_ABSENT}},
        {TCW_ThreadContext, {75, 62, 61, 59, 59, 59}},
        {TCW_Terminate, {73, 60, 59, 57, 57, 57}},
        {TCW_SourceLocation, {87, 74, 73, 71, 71, 70}},
        {TCW_ThreadGroupHint, {117, 102, 101, 99, TCW_ABSENT, TCW_ABSENT}},
        {TCW_StringData, {119, 104, 102, 100, 99, 98}},
        {TCW_FiberName, {131, 116, 114, 112, 111, 110}},
        {TCW_SectionEnter, {70, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT}},
        {TCW_SingleStringData8, {114, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT, TCW_ABSENT}},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        for (int v = 0; v < TCW_VERSION_COUNT; v++)
            tt_check(tcw_opcodes[known[i].type][v] == known[i].op[v], "opcode of item %u in protocol %u is %u",
                     known[i].type, tcw_versions[v].protocol, known[i].op[v]);
    for (int v = 0; v < TCW_VERSION_COUNT; v++) {
        unsigned next = 0, ok = 1;
        for (unsigned t = 0; t < TCW_NUM_TYPES; t++) {
            uint8_t op = tcw_opcodes[t][v];
            if (op == TCW_ABSENT)
                continue;
            ok &= op == next;
            next++;
        }
        /* upstream's items, then tracyc's own from the code after upstream's last */
        unsigned own = TCW_NUM_TYPES - TCW_TracycClock;
        ok &= tcw_opcodes[TCW_TracycClock][v] == tcw_versions[v].num_types;
        tt_check(ok && next == tcw_versions[v].num_types + own,
                 "protocol %u: %u items numbered in 82's order, then tracyc's %u", tcw_versions[v].protocol,
                 tcw_versions[v].num_types, own);
        tt_check(tcw_version_index(tcw_versions[v].protocol) == v, "index of protocol %u", tcw_versions[v].protocol);
    }
    for (unsigned t = 0; t < TCW_NUM_TYPES; t++)
        CHECK(tcw_opcodes[t][TCW_V82] == t);
    CHECK(tcw_version_index(81) == -1 && tcw_version_index(63) == -1);
}

/* ---- every fixed-size item, there and back ----------------------------------------------- */

static int has_fixed_size(uint8_t t)
{
    return (t < TCW_StringData || t > TCW_FiberName) && t != TCW_SingleStringData && t != TCW_SecondStringData &&
           t != TCW_SingleStringData8 && t != TCW_SecondStringData8;
}

/* An item of version v's layout read back is the protocol-82 item it came from. Random
 * bodies, except for what an older layout cannot hold (fields it lacks, metadata, a
 * trigger parameter, GPU types it does not know, 64-bit times that would overflow). */
static void check_items_round_trip(void)
{
    uint64_t seed = 1;
    for (int v = 1; v < TCW_VERSION_COUNT; v++) {
        unsigned items = 0, failures = 0, size_failures = 0;
        for (unsigned t = 0; t < TCW_NUM_TYPES; t++) {
            if (!has_fixed_size((uint8_t)t) || !tcw_version_has(v, (uint8_t)t))
                continue;
            for (int round = 0; round < 64; round++) {
                uint8_t item[64] = {0}, old[64], back[TCW_NORMALIZED_MAX];
                size_t n = tcw_item_size[t];
                for (size_t i = 1; i < n; i++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    item[i] = (uint8_t)(seed >> 56);
                }
                item[0] = (uint8_t)t;
                switch (t) {
                case TCW_ParamSetup:
                    item[13] %= 2;
                    break;
                case TCW_GpuNewContext:
                    item[27] %= tcw_versions[v].max_gpu_type + 1;
                    break;
                case TCW_Message:
                case TCW_MessageCallstack:
                case TCW_MessageColor:
                case TCW_MessageColorCallstack:
                    item[n - 1] = 0x20; /* Info, User: what older servers assume */
                    break;
                case TCW_MessageLiteral:
                case TCW_MessageLiteralCallstack:
                    item[9] = 0x20;
                    break;
                case TCW_MessageLiteralColor:
                case TCW_MessageLiteralColorCallstack:
                    item[12] = 0x20;
                    break;
                case TCW_ZoneBegin:
                case TCW_ZoneBeginCallstack:
                case TCW_ZoneEnd:
                    item[8] = item[8] & 0x80 ? 0xff : 0;
                    break;
                case TCW_CallstackSample:
                case TCW_CallstackSampleContextSwitch:
                    item[12] = item[12] & 0x80 ? 0xff : 0;
                    break;
                case TCW_ContextSwitch:
                    if (!tcw_versions[v].ctx_switch_v2)
                        memset(item + 20, 0, 3);
                    break;
                case TCW_ThreadWakeup:
                    if (!tcw_versions[v].ctx_switch_v2)
                        memset(item + 13, 0, 3);
                    break;
                case TCW_FiberEnter:
                    if (!tcw_versions[v].wide_topology)
                        memset(item + 21, 0, 4);
                    break;
                case TCW_CpuTopology:
                    if (!tcw_versions[v].wide_topology)
                        memset(item + 5, 0, 4);
                    break;
                }
                memcpy(old, item, n);
                size_t m = tcw_item_to_version(old, n, v);
                uint8_t type = 0xff; /* the logical type of the wire opcode */
                for (unsigned u = 0; u < TCW_NUM_TYPES; u++)
                    if (tcw_opcodes[u][v] == old[0])
                        type = (uint8_t)u;
                size_failures += type == 0xff || m != tcw_item_size_in(type, v);
                int same;
                if (tcw_item_from_version(type, old, v, back))
                    same = memcmp(back, item, n) == 0;
                else
                    same = type == t && memcmp(old + 1, item + 1, n - 1) == 0;
                failures += !same;
                items++;
            }
        }
        tt_check(failures == 0 && size_failures == 0,
                 "protocol %u: %u items to the old layout and back, sizes as its server reads (%u bad, %u sizes)",
                 tcw_versions[v].protocol, items, failures, size_failures);
    }
}

/* ---- byte-exact layouts ------------------------------------------------------------------ */

static void check_bytes(const char *what, const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
    int same = got_len == want_len && memcmp(got, want, want_len) == 0;
    tt_check(same, "%s: %zu bytes as expected", what, want_len);
    if (!same) {
        fprintf(stderr, "  got ");
        for (size_t i = 0; i < got_len; i++)
            fprintf(stderr, "%02x ", got[i]);
        fprintf(stderr, "\n");
    }
}

static void check_layouts(void)
{
    uint8_t p[64];
    size_t n;

    /* ZoneBegin16, delta 0x1234, srcloc 0x1122334455667788 -> 76: ZoneBegin (15), i64 delta, srcloc */
    memcpy(p, "\x15\x34\x12\x88\x77\x66\x55\x44\x33\x22\x11", 11);
    n = tcw_item_to_version(p, 11, TCW_V76);
    check_bytes("ZoneBegin16 in 76", p, n, (const uint8_t *)"\x0f\x34\x12\0\0\0\0\0\0\x88\x77\x66\x55\x44\x33\x22\x11",
                17);
    /* ZoneEnd32: stored 5 -> delta 65541 = 0x10005; in 64: ZoneEnd (17) */
    memcpy(p, "\x1a\x05\0\0\0", 5);
    n = tcw_item_to_version(p, 5, TCW_V64);
    check_bytes("ZoneEnd32 in 64", p, n, (const uint8_t *)"\x11\x05\x00\x01\0\0\0\0\0", 9);
    /* ZoneEnd 64-bit stored 1 -> delta 2^32 + 2^16 + 1 */
    memcpy(p, "\x19\x01\0\0\0\0\0\0\0", 9);
    n = tcw_item_to_version(p, 9, TCW_V74);
    check_bytes("ZoneEnd64 in 74", p, n, (const uint8_t *)"\x11\x01\x00\x01\x00\x01\0\0\0", 9);
    /* CallstackSample16: thread 7, delta 3 -> 69: CallstackSample (12), i64 time, thread */
    memcpy(p, "\x0e\x07\0\0\0\x03\0", 7);
    n = tcw_item_to_version(p, 7, TCW_V69);
    check_bytes("CallstackSample16 in 69", p, n, (const uint8_t *)"\x0c\x03\0\0\0\0\0\0\0\x07\0\0\0", 13);
    /* Message: time 9, metadata 0x31 -> 76: no metadata byte */
    memcpy(p, "\x02\x09\0\0\0\0\0\0\0\x31", 10);
    n = tcw_item_to_version(p, 10, TCW_V76);
    check_bytes("Message in 76", p, n, (const uint8_t *)"\x02\x09\0\0\0\0\0\0\0", 9);
    /* MessageLiteral: id 0xabcdef << 8 | 0x41 -> 66 (75): the plain id */
    memcpy(p, "\x5b\x01\0\0\0\0\0\0\0\x41\xef\xcd\xab\0\0\0\0", 17);
    n = tcw_item_to_version(p, 17, TCW_V66);
    check_bytes("MessageLiteral in 66", p, n, (const uint8_t *)"\x4b\x01\0\0\0\0\0\0\0\xef\xcd\xab\0\0\0\0\0", 17);
    /* SingleStringData8 "abc" -> 76: SingleStringData (99), u16 length 3 */
    memcpy(p,
           "\x72\x03"
           "abc",
           5);
    n = tcw_item_to_version(p, 5, TCW_V76);
    check_bytes("SingleStringData8 in 76", p, n,
                (const uint8_t *)"\x63\x03\x00"
                                 "abc",
                6);
    /* SingleStringData of 300 bytes: stored 44 -> 64 (95): plain 300 */
    uint8_t big[3 + 300 + TCW_CONVERT_GROWTH];
    big[0] = TCW_SingleStringData;
    big[1] = 44, big[2] = 0;
    memset(big + 3, 'x', 300);
    n = tcw_item_to_version(big, 303, TCW_V64);
    tt_check(n == 303 && big[0] == 95 && big[1] == 0x2c && big[2] == 0x01, "SingleStringData in 64: plain length");
    /* CpuTopology package 1, die 2, core 3, thread 4 -> 66: no die */
    memcpy(p, "\x6f\x01\0\0\0\x02\0\0\0\x03\0\0\0\x04\0\0\0", 17);
    n = tcw_item_to_version(p, 17, TCW_V66);
    check_bytes("CpuTopology in 66", p, n, (const uint8_t *)"\x5f\x01\0\0\0\x03\0\0\0\x04\0\0\0", 13);
    /* ParamSetup type Boolean (1) -> isBool 1; Trigger (2) -> isBool 0 */
    memset(p, 0, 18);
    p[0] = TCW_ParamSetup, p[13] = 2;
    n = tcw_item_to_version(p, 18, TCW_V74);
    tt_check(n == 18 && p[0] == 93 && p[13] == 0, "ParamSetup trigger in 74: not a boolean");
    /* Sections do not exist before 82 */
    memset(p, 0, 15);
    p[0] = TCW_SectionEnter;
    tt_check(tcw_item_to_version(p, 15, TCW_V76) == 0, "SectionEnter in 76: absent");

    /* And back: a 76 ZoneBegin with a small delta is read as ZoneBegin16 */
    uint8_t out[TCW_NORMALIZED_MAX];
    memcpy(p, "\x0f\x10\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0", 17);
    tt_check(tcw_item_from_version(TCW_ZoneBegin, p, TCW_V76, out) && out[0] == TCW_ZoneBegin16 && out[1] == 0x10 &&
                 out[3] == 1,
             "76 ZoneBegin, delta 16: read as ZoneBegin16");
    memcpy(p, "\x11\xff\xff\xff\xff\xff\xff\xff\xff", 9); /* delta -1 */
    tt_check(tcw_item_from_version(TCW_ZoneEnd, p, TCW_V64, out) && out[0] == TCW_ZoneEnd && out[1] == 0xff,
             "64 ZoneEnd, delta -1: the 64-bit form");
}

/* ---- welcome and queries --------------------------------------------------------------------- */

static void check_welcome_and_queries(void)
{
    uint8_t w[TCW_WELCOME_SIZE], old[1178], back[TCW_WELCOME_SIZE];
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)(i * 13 + 1);
    tcw_welcome_to_version(old, w, TCW_V74);
    uint64_t delay;
    memcpy(&delay, old + 24, 8);
    tt_check(delay == 0 && old[72] == w[TCW_WELCOME_FLAGS] && !memcmp(old + 90, w + TCW_WELCOME_PROGRAM_NAME, 64) &&
                 !memcmp(old + 154, w + TCW_WELCOME_HOST_INFO, 1024),
             "74's welcome: delay 0 at 24, flags at 72, program name at 90, host info at 154");
    tcw_welcome_from_version(back, old, TCW_V74);
    tt_check(!memcmp(back, w, sizeof w), "74's welcome read back");
    tcw_welcome_to_version(old, w, TCW_V76);
    tt_check(!memcmp(old, w, sizeof w), "76's welcome is 82's");

    tt_check(tcw_query_to_wire(TCW_QUERY_EXTERNAL_NAME, TCW_V64) == 10 &&
                 tcw_query_to_wire(TCW_QUERY_DISCONNECT, TCW_V64) == 8 &&
                 tcw_query_to_wire(TCW_QUERY_CALLSTACK_FRAME, TCW_V64) == 9 &&
                 tcw_query_to_wire(TCW_QUERY_EXTERNAL_NAME, TCW_V66) == 8,
             "query codes of 64 (Disconnect 8, CallstackFrame 9, ExternalName 10) and 66+");
    for (uint8_t q = 0; q < 16; q++)
        CHECK(tcw_query_from_wire(tcw_query_to_wire(q, TCW_V64), TCW_V64) == q);
}

/* ---- encoder -> decoder, every version --------------------------------------------------- */

struct sink {
    uint8_t *p;
    size_t len, cap;
};

static int sink_write(void *user, const void *data, size_t len)
{
    struct sink *s = user;
    if (s->len + len > s->cap) {
        s->cap = (s->len + len) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, data, len);
    s->len += len;
    return 0;
}

struct counts {
    struct tcw_encoder *e; /* answers the decoder's queries */
    int answered;
    unsigned kind[TCD_EVENT_KIND_COUNT];
    unsigned severity_info;
    int64_t last_zone_end;
    char text[64];
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct counts *c = user;
    c->kind[ev->kind]++;
    if (ev->kind == TCD_MESSAGE && ev->severity == 2)
        c->severity_info++;
    if (ev->kind == TCD_ZONE_END)
        c->last_zone_end = ev->time;
    if (ev->kind == TCD_ZONE_TEXT && ev->text_len < sizeof c->text) {
        memcpy(c->text, ev->text, ev->text_len);
        c->text[ev->text_len] = 0;
    }
}

#define SRCLOC 0x1000
#define STRING 0x2000

/* Every item kind tracyc sends that the version has, written through the encoder. */
static void encode_all(struct tcw_encoder *e, int vi)
{
    static const uint8_t srcloc_blob[] = {26,  0,   0,   0, 0,   0,   7,   0,   0,   0,   'f', 'n', 0,
                                          'a', '.', 'c', 0, 'n', 'a', 'm', 'e', 'x', 'y', 'z', 'w', 'v'};
    char long_text[300];
    memset(long_text, 'L', sizeof long_text);
    tcw_enc_thread(e, 9);
    tcw_enc_zone_begin(e, 10, SRCLOC);                       /* 16-bit delta */
    tcw_enc_zone_begin(e, 10 + 70000, SRCLOC);               /* 32-bit */
    tcw_enc_zone_begin(e, 10 + 70000 + (1ll << 33), SRCLOC); /* 64-bit */
    tcw_enc_zone_text(e, TCW_ZoneText, "short", 5);
    tcw_enc_zone_text(e, TCW_ZoneName, long_text, sizeof long_text);
    tcw_enc_zone_color(e, 0x123456);
    tcw_enc_zone_value(e, 99);
    tcw_enc_zone_end(e, 10 + 70000 + (1ll << 33) + 5);
    tcw_enc_zone_begin_alloc(e, 10 + 70000 + (1ll << 33) + 6, srcloc_blob);
    tcw_enc_zone_end(e, 10 + 70000 + (1ll << 33) + 7);
    tcw_enc_zone_end(e, 10 + 70000 + (1ll << 33) + 8);
    tcw_enc_zone_end(e, 10 + 70000 + (1ll << 33) + 9);
    tcw_enc_message(e, 100, "message", 7, 0, 0x31);
    tcw_enc_message(e, 101, "coloured", 8, 0xff0000, 0x41);
    tcw_enc_message_literal(e, 102, STRING, 0, 0x31);
    tcw_enc_message_literal(e, 103, STRING, 0x00ff00, 0x31);
    tcw_enc_app_info(e, 104, "app", 3);
    tcw_enc_plot(e, TCW_PlotDataDouble, STRING + 8, 105, 0x4004000000000000ull);
    tcw_enc_plot(e, TCW_PlotDataInt, STRING + 8, 106, 7);
    tcw_enc_plot_config(e, STRING + 8, 1, 1, 0, 0xff);
    tcw_enc_frame_mark(e, TCW_FrameMarkMsg, 107, 0);
    tcw_enc_frame_mark(e, TCW_FrameMarkMsgStart, 108, STRING + 16);
    tcw_enc_frame_mark(e, TCW_FrameMarkMsgEnd, 109, STRING + 16);
    static const uint8_t dxt[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tcw_enc_frame_image(e, STRING + 24, dxt, sizeof dxt, 0, 4, 4, 0);
    tcw_enc_fiber_enter(e, 110, STRING + 32, 9);
    tcw_enc_fiber_leave(e, 111, 9);
    tcw_enc_mem_alloc(e, 200, 9, 0x5000, 64, 0, 0);
    tcw_enc_mem_free(e, 201, 9, 0x5000, 0, 0);
    tcw_enc_mem_alloc(e, 202, 9, 0x6000, 32, STRING + 40, 0);
    tcw_enc_mem_free(e, 203, 9, 0x6000, STRING + 40, 0);
    if (tcw_enc_has(e, TCW_MemDiscard))
        tcw_enc_mem_discard(e, 204, 9, STRING + 40, 0);
    tcw_enc_lock_announce(e, 1, 205, SRCLOC, 1);
    tcw_enc_lock_name(e, 1, "lock", 4);
    tcw_enc_lock_event(e, TCW_LockSharedWait, 1, 206, 9);
    tcw_enc_lock_event(e, TCW_LockSharedObtain, 1, 207, 9);
    tcw_enc_lock_event(e, TCW_LockSharedRelease, 1, 208, 9);
    tcw_enc_lock_mark(e, 1, 9, SRCLOC);
    tcw_enc_lock_terminate(e, 1, 209);
    tcw_enc_gpu_new_context(e, 300, 0, 9, 1.0f, 2, 0, 1);
    tcw_enc_gpu_context_name(e, 2, "gpu", 3);
    tcw_enc_gpu_zone_begin(e, TCW_GpuZoneBeginSerial, 301, 9, 1, 2, SRCLOC, 1);
    tcw_enc_gpu_zone_end(e, TCW_GpuZoneEndSerial, 302, 9, 2, 2, 1);
    tcw_enc_gpu_time(e, 10, 1, 2);
    tcw_enc_gpu_time(e, 20, 2, 2);
    tcw_enc_gpu_calibration(e, 30, 303, 1, 2);
    if (tcw_enc_has(e, TCW_GpuTimeSync))
        tcw_enc_gpu_time_sync(e, 40, 304, 2);
    if (tcw_enc_has(e, TCW_SectionEnter)) {
        tcw_enc_section_setup(e, 1, "phases", 6);
        tcw_enc_section_enter(e, 305, 7, 1, "load", 4);
        tcw_enc_section_leave(e, 306, 7);
    }
    (void)vi;
    tcw_enc_byte(e, TCW_Terminate);
    tcw_enc_flush(e);
}

/* Answers the decoder's queries the way a client would, in the version's opcodes. */
static void on_query(void *user, const uint8_t q[13])
{
    struct counts *r = user;
    uint64_t id;
    memcpy(&id, q + 1, 8);
    switch (q[0]) {
    case TCW_QUERY_SOURCE_LOCATION:
        tcw_enc_srcloc_reply(r->e, STRING, STRING, STRING, 3, 0);
        break;
    case TCW_QUERY_THREAD_STRING:
        tcw_enc_string_reply(r->e, TCW_ThreadName, id, "thread", 6);
        break;
    case TCW_QUERY_PLOT_NAME:
        tcw_enc_string_reply(r->e, TCW_PlotName, id, "plot", 4);
        break;
    case TCW_QUERY_FRAME_NAME:
        tcw_enc_string_reply(r->e, TCW_FrameName, id, "frames", 6);
        break;
    case TCW_QUERY_FIBER_NAME:
        tcw_enc_string_reply(r->e, TCW_FiberName, id, "fiber", 5);
        break;
    default:
        tcw_enc_string_reply(r->e, TCW_StringData, id, "text", 4);
        break;
    }
    r->answered++;
}

static void check_round_trip(int vi)
{
    const struct tcw_version *v = &tcw_versions[vi];
    struct sink wire = {0};
    struct tcw_encoder e;
    tcw_enc_init(&e, sink_write, &wire);
    tcw_enc_set_version(&e, vi);
    encode_all(&e, vi);

    struct counts c = {.e = &e};
    struct tcd_callbacks cb = {on_event, on_query};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, &c, NULL);
    tcd_decoder_set_version(dec, v->protocol);
    uint8_t hs[1 + 1178] = {TCW_HANDSHAKE_WELCOME}, w82[TCW_WELCOME_SIZE] = {0};
    double mul = 1.0;
    memcpy(w82 + TCW_WELCOME_TIMER_MUL, &mul, 8);
    tcw_welcome_to_version(hs + 1, w82, vi);
    tcd_decoder_feed(dec, hs, 1u + v->welcome_size);
    /* The events, then rounds of replies until the decoder has all it asked for. */
    size_t fed = 0;
    for (int round = 0; round < 10 && tcd_decoder_state(dec) == TCD_STATE_RUNNING; round++) {
        tcd_decoder_feed(dec, wire.p + fed, wire.len - fed);
        fed = wire.len;
        tcw_enc_flush(&e);
    }
    tt_check(tcd_decoder_state(dec) == TCD_STATE_DONE, "protocol %u: decoded to the end (%s)", v->protocol,
             tcd_decoder_error(dec));
    tt_check(e.absent == 0, "protocol %u: no item written that the version lacks", v->protocol);
    int has_discard = tcw_version_has(vi, TCW_MemDiscard), has_sections = tcw_version_has(vi, TCW_SectionEnter);
    tt_check(c.kind[TCD_ZONE_BEGIN] == 4 && c.kind[TCD_ZONE_END] == 4 && c.kind[TCD_ZONE_TEXT] == 1 &&
                 c.kind[TCD_ZONE_NAME] == 1 && c.kind[TCD_ZONE_COLOR] == 1 && c.kind[TCD_ZONE_VALUE] == 1 &&
                 !strcmp(c.text, "short") && c.last_zone_end == 10 + 70000 + (1ll << 33) + 9,
             "protocol %u: 4 zones with 16-, 32- and 64-bit times, text, name, colour, value", v->protocol);
    tt_check(c.kind[TCD_MESSAGE] == 4 && c.kind[TCD_APP_INFO] == 1 && c.severity_info == (v->compact ? 0 : 4),
             "protocol %u: 4 messages (severity only in 82), app info", v->protocol);
    tt_check(c.kind[TCD_PLOT] == 2 && c.kind[TCD_PLOT_CONFIG] == 1 && c.kind[TCD_FRAME_MARK] == 1 &&
                 c.kind[TCD_FRAME_START] == 1 && c.kind[TCD_FRAME_END] == 1 && c.kind[TCD_FRAME_IMAGE] == 1 &&
                 c.kind[TCD_FIBER_ENTER] == 1 && c.kind[TCD_FIBER_LEAVE] == 1,
             "protocol %u: plots, frames, frame image, fiber", v->protocol);
    tt_check(c.kind[TCD_MEM_ALLOC] == 2 && c.kind[TCD_MEM_FREE] == 2 &&
                 c.kind[TCD_MEM_DISCARD] == (unsigned)has_discard,
             "protocol %u: memory", v->protocol);
    tt_check(c.kind[TCD_LOCK_ANNOUNCE] == 1 && c.kind[TCD_LOCK_NAME] == 1 && c.kind[TCD_LOCK_WAIT] == 1 &&
                 c.kind[TCD_LOCK_OBTAIN] == 1 && c.kind[TCD_LOCK_RELEASE] == 1 && c.kind[TCD_LOCK_MARK] == 1 &&
                 c.kind[TCD_LOCK_TERMINATE] == 1,
             "protocol %u: locks", v->protocol);
    tt_check(c.kind[TCD_GPU_CONTEXT] == 1 && c.kind[TCD_GPU_CONTEXT_NAME] == 1 && c.kind[TCD_GPU_ZONE_BEGIN] == 1 &&
                 c.kind[TCD_GPU_ZONE_END] == 1 && c.kind[TCD_GPU_TIME] == 2,
             "protocol %u: GPU", v->protocol);
    tt_check(c.kind[TCD_SECTION_SETUP] == (unsigned)has_sections &&
                 c.kind[TCD_SECTION_ENTER] == (unsigned)has_sections &&
                 c.kind[TCD_SECTION_LEAVE] == (unsigned)has_sections,
             "protocol %u: sections %s", v->protocol, has_sections ? "decoded" : "absent");
    const struct tcd_srcloc *s = tcd_srcloc(dec, 0);
    tt_check(!strcmp(s->function, "text") && !strcmp(tcd_thread_name(dec, 9), "thread") && c.answered >= 7,
             "protocol %u: %d queries answered in the version's reply codes", v->protocol, c.answered);

    tcd_decoder_free(dec);
    tcw_enc_free(&e);
    free(wire.p);
}

int main(void)
{
    check_table();
    check_items_round_trip();
    check_layouts();
    check_welcome_and_queries();
    for (int vi = 0; vi < TCW_VERSION_COUNT; vi++)
        check_round_trip(vi);
    return tt_finish("test_versions");
}
