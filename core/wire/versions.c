/* versions.c - the protocol versions tracyc speaks and the conversions at the byte
 * boundary between protocol 82's item layouts and each older version's (docs/protocol.md
 * §24). Facts read from each release's public/common/TracyQueue.hpp, TracyProtocol.hpp
 * and server/TracyWorker.cpp. */
#include "wire/versions.h"
#include "util/bytes.h"

#include <string.h>

const struct tcw_version tcw_versions[TCW_VERSION_COUNT] = {
    [TCW_V82] = {82, "0.14.0", 1170, 132, 10, 0, 1, 1, 1},
    [TCW_V76] = {76, "0.13.0-0.13.1", 1170, 117, 9, 0, 0, 1, 1},
    [TCW_V74] = {74, "0.12.0-0.12.2", 1178, 115, 8, 1, 0, 1, 1},
    [TCW_V69] = {69, "0.11.1", 1178, 113, 5, 1, 0, 0, 1},
    [TCW_V66] = {66, "0.11.0", 1178, 112, 5, 1, 0, 0, 0},
    [TCW_V64] = {64, "0.10", 1178, 111, 5, 1, 0, 0, 0},
};

#define NA TCW_ABSENT

/* Columns: protocol 82, 76, 74, 69, 66, 64. Every older version's numbering is 82's with
 * the items it lacks left out, tracyc's own items after upstream's (tests/c/test_versions.c
 * checks this). */
const uint8_t tcw_opcodes[TCW_NUM_TYPES][TCW_VERSION_COUNT] = {
    [TCW_ZoneText] = {0, 0, 0, 0, 0, 0},
    [TCW_ZoneName] = {1, 1, 1, 1, 1, 1},
    [TCW_Message] = {2, 2, 2, 2, 2, 2},
    [TCW_MessageColor] = {3, 3, 3, 3, 3, 3},
    [TCW_MessageCallstack] = {4, 4, 4, 4, 4, 4},
    [TCW_MessageColorCallstack] = {5, 5, 5, 5, 5, 5},
    [TCW_MessageAppInfo] = {6, 6, 6, 6, 6, 6},
    [TCW_ZoneBeginAllocSrcLoc] = {7, 7, 7, 7, 7, 7},
    [TCW_ZoneBeginAllocSrcLocCallstack] = {8, 8, 8, 8, 8, 8},
    [TCW_CallstackSerial] = {9, 9, 9, 9, 9, 9},
    [TCW_Callstack] = {10, 10, 10, 10, 10, 10},
    [TCW_CallstackAlloc] = {11, 11, 11, 11, 11, 11},
    [TCW_CallstackSample] = {12, 12, 12, 12, 12, 12},
    [TCW_CallstackSample32] = {13, NA, NA, NA, NA, NA},
    [TCW_CallstackSample16] = {14, NA, NA, NA, NA, NA},
    [TCW_CallstackSampleContextSwitch] = {15, 13, 13, 13, 13, 13},
    [TCW_CallstackSampleContextSwitch32] = {16, NA, NA, NA, NA, NA},
    [TCW_CallstackSampleContextSwitch16] = {17, NA, NA, NA, NA, NA},
    [TCW_FrameImage] = {18, 14, 14, 14, 14, 14},
    [TCW_ZoneBegin] = {19, 15, 15, 15, 15, 15},
    [TCW_ZoneBegin32] = {20, NA, NA, NA, NA, NA},
    [TCW_ZoneBegin16] = {21, NA, NA, NA, NA, NA},
    [TCW_ZoneBeginCallstack] = {22, 16, 16, 16, 16, 16},
    [TCW_ZoneBeginCallstack32] = {23, NA, NA, NA, NA, NA},
    [TCW_ZoneBeginCallstack16] = {24, NA, NA, NA, NA, NA},
    [TCW_ZoneEnd] = {25, 17, 17, 17, 17, 17},
    [TCW_ZoneEnd32] = {26, NA, NA, NA, NA, NA},
    [TCW_ZoneEnd16] = {27, NA, NA, NA, NA, NA},
    [TCW_LockWait] = {28, 18, 18, 18, 18, 18},
    [TCW_LockObtain] = {29, 19, 19, 19, 19, 19},
    [TCW_LockRelease] = {30, 20, 20, 20, 20, 20},
    [TCW_LockSharedWait] = {31, 21, 21, 21, 21, 21},
    [TCW_LockSharedObtain] = {32, 22, 22, 22, 22, 22},
    [TCW_LockSharedRelease] = {33, 23, 23, 23, 23, 23},
    [TCW_LockName] = {34, 24, 24, 24, 24, 24},
    [TCW_MemAlloc] = {35, 25, 25, 25, 25, 25},
    [TCW_MemAllocNamed] = {36, 26, 26, 26, 26, 26},
    [TCW_MemFree] = {37, 27, 27, 27, 27, 27},
    [TCW_MemFreeNamed] = {38, 28, 28, 28, 28, 28},
    [TCW_MemAllocCallstack] = {39, 29, 29, 29, 29, 29},
    [TCW_MemAllocCallstackNamed] = {40, 30, 30, 30, 30, 30},
    [TCW_MemFreeCallstack] = {41, 31, 31, 31, 31, 31},
    [TCW_MemFreeCallstackNamed] = {42, 32, 32, 32, 32, 32},
    [TCW_MemDiscard] = {43, 33, 33, NA, NA, NA},
    [TCW_MemDiscardCallstack] = {44, 34, 34, NA, NA, NA},
    [TCW_GpuZoneBegin] = {45, 35, 35, 33, 33, 33},
    [TCW_GpuZoneBeginCallstack] = {46, 36, 36, 34, 34, 34},
    [TCW_GpuZoneBeginAllocSrcLoc] = {47, 37, 37, 35, 35, 35},
    [TCW_GpuZoneBeginAllocSrcLocCallstack] = {48, 38, 38, 36, 36, 36},
    [TCW_GpuZoneEnd] = {49, 39, 39, 37, 37, 37},
    [TCW_GpuZoneBeginSerial] = {50, 40, 40, 38, 38, 38},
    [TCW_GpuZoneBeginCallstackSerial] = {51, 41, 41, 39, 39, 39},
    [TCW_GpuZoneBeginAllocSrcLocSerial] = {52, 42, 42, 40, 40, 40},
    [TCW_GpuZoneBeginAllocSrcLocCallstackSerial] = {53, 43, 43, 41, 41, 41},
    [TCW_GpuZoneEndSerial] = {54, 44, 44, 42, 42, 42},
    [TCW_PlotDataInt] = {55, 45, 45, 43, 43, 43},
    [TCW_PlotDataFloat] = {56, 46, 46, 44, 44, 44},
    [TCW_PlotDataDouble] = {57, 47, 47, 45, 45, 45},
    [TCW_ContextSwitch] = {58, 48, 48, 46, 46, 46},
    [TCW_ThreadWakeup] = {59, 49, 49, 47, 47, 47},
    [TCW_GpuTime] = {60, 50, 50, 48, 48, 48},
    [TCW_GpuContextName] = {61, 51, 51, 49, 49, 49},
    [TCW_GpuAnnotationName] = {62, 52, NA, NA, NA, NA},
    [TCW_CallstackFrameSize] = {63, 53, 52, 50, 50, 50},
    [TCW_SymbolInformation] = {64, 54, 53, 51, 51, 51},
    [TCW_ExternalNameMetadata] = {65, 55, 54, 52, 52, 52},
    [TCW_SymbolCodeMetadata] = {66, 56, 55, 53, 53, 53},
    [TCW_SourceCodeMetadata] = {67, 57, 56, 54, 54, 54},
    [TCW_FiberEnter] = {68, 58, 57, 55, 55, 55},
    [TCW_FiberLeave] = {69, 59, 58, 56, 56, 56},
    [TCW_SectionEnter] = {70, NA, NA, NA, NA, NA},
    [TCW_SectionLeave] = {71, NA, NA, NA, NA, NA},
    [TCW_SectionSetup] = {72, NA, NA, NA, NA, NA},
    [TCW_Terminate] = {73, 60, 59, 57, 57, 57},
    [TCW_KeepAlive] = {74, 61, 60, 58, 58, 58},
    [TCW_ThreadContext] = {75, 62, 61, 59, 59, 59},
    [TCW_GpuCalibration] = {76, 63, 62, 60, 60, 60},
    [TCW_GpuTimeSync] = {77, 64, 63, 61, 61, NA},
    [TCW_Crash] = {78, 65, 64, 62, 62, 61},
    [TCW_CrashReport] = {79, 66, 65, 63, 63, 62},
    [TCW_ZoneValidation] = {80, 67, 66, 64, 64, 63},
    [TCW_ZoneColor] = {81, 68, 67, 65, 65, 64},
    [TCW_ZoneValue] = {82, 69, 68, 66, 66, 65},
    [TCW_FrameMarkMsg] = {83, 70, 69, 67, 67, 66},
    [TCW_FrameMarkMsgStart] = {84, 71, 70, 68, 68, 67},
    [TCW_FrameMarkMsgEnd] = {85, 72, 71, 69, 69, 68},
    [TCW_FrameVsync] = {86, 73, 72, 70, 70, 69},
    [TCW_SourceLocation] = {87, 74, 73, 71, 71, 70},
    [TCW_LockAnnounce] = {88, 75, 74, 72, 72, 71},
    [TCW_LockTerminate] = {89, 76, 75, 73, 73, 72},
    [TCW_LockMark] = {90, 77, 76, 74, 74, 73},
    [TCW_MessageLiteral] = {91, 78, 77, 75, 75, 74},
    [TCW_MessageLiteralColor] = {92, 79, 78, 76, 76, 75},
    [TCW_MessageLiteralCallstack] = {93, 80, 79, 77, 77, 76},
    [TCW_MessageLiteralColorCallstack] = {94, 81, 80, 78, 78, 77},
    [TCW_GpuNewContext] = {95, 82, 81, 79, 79, 78},
    [TCW_CallstackFrame] = {96, 83, 82, 80, 80, 79},
    [TCW_SysTimeReport] = {97, 84, 83, 81, 81, 80},
    [TCW_SysPowerReport] = {98, 85, 84, 82, 82, 81},
    [TCW_TidToPid] = {99, 86, 85, 83, 83, 82},
    [TCW_HwSampleCpuCycle] = {100, 87, 86, 84, 84, 83},
    [TCW_HwSampleInstructionRetired] = {101, 88, 87, 85, 85, 84},
    [TCW_HwSampleCacheReference] = {102, 89, 88, 86, 86, 85},
    [TCW_HwSampleCacheMiss] = {103, 90, 89, 87, 87, 86},
    [TCW_HwSampleBranchRetired] = {104, 91, 90, 88, 88, 87},
    [TCW_HwSampleBranchMiss] = {105, 92, 91, 89, 89, 88},
    [TCW_PlotConfig] = {106, 93, 92, 90, 90, 89},
    [TCW_ParamSetup] = {107, 94, 93, 91, 91, 90},
    [TCW_AckServerQueryNoop] = {108, 95, 94, 92, 92, 91},
    [TCW_AckSourceCodeNotAvailable] = {109, 96, 95, 93, 93, 92},
    [TCW_AckSymbolCodeNotAvailable] = {110, 97, 96, 94, 94, 93},
    [TCW_CpuTopology] = {111, 98, 97, 95, 95, 94},
    [TCW_SingleStringData] = {112, 99, 98, 96, 96, 95},
    [TCW_SecondStringData] = {113, 100, 99, 97, 97, 96},
    [TCW_SingleStringData8] = {114, NA, NA, NA, NA, NA},
    [TCW_SecondStringData8] = {115, NA, NA, NA, NA, NA},
    [TCW_MemNamePayload] = {116, 101, 100, 98, 98, 97},
    [TCW_ThreadGroupHint] = {117, 102, 101, 99, NA, NA},
    [TCW_GpuZoneAnnotation] = {118, 103, NA, NA, NA, NA},
    [TCW_StringData] = {119, 104, 102, 100, 99, 98},
    [TCW_ThreadName] = {120, 105, 103, 101, 100, 99},
    [TCW_PlotName] = {121, 106, 104, 102, 101, 100},
    [TCW_SourceLocationPayload] = {122, 107, 105, 103, 102, 101},
    [TCW_CallstackPayload] = {123, 108, 106, 104, 103, 102},
    [TCW_CallstackAllocPayload] = {124, 109, 107, 105, 104, 103},
    [TCW_FrameName] = {125, 110, 108, 106, 105, 104},
    [TCW_FrameImageData] = {126, 111, 109, 107, 106, 105},
    [TCW_ExternalName] = {127, 112, 110, 108, 107, 106},
    [TCW_ExternalThreadName] = {128, 113, 111, 109, 108, 107},
    [TCW_SymbolCode] = {129, 114, 112, 110, 109, 108},
    [TCW_SourceCode] = {130, 115, 113, 111, 110, 109},
    [TCW_FiberName] = {131, 116, 114, 112, 111, 110},
    /* tracyc's own: the code after upstream's last (num_types) */
    [TCW_TracycClock] = {132, 117, 115, 113, 112, 111},
};

int tcw_version_index(uint32_t protocol)
{
    for (int i = 0; i < TCW_VERSION_COUNT; i++)
        if (tcw_versions[i].protocol == protocol)
            return i;
    return -1;
}

size_t tcw_item_size_in(uint8_t type, int vi)
{
    const struct tcw_version *v = &tcw_versions[vi];
    switch (type) {
    case TCW_Message:
    case TCW_MessageCallstack:
    case TCW_MessageColor:
    case TCW_MessageColorCallstack:
        return tcw_item_size[type] - (v->compact ? 0 : 1); /* no metadata byte */
    case TCW_ContextSwitch:
    case TCW_ThreadWakeup:
        return tcw_item_size[type] - (v->ctx_switch_v2 ? 0 : 3);
    case TCW_FiberEnter:
    case TCW_CpuTopology:
        return tcw_item_size[type] - (v->wide_topology ? 0 : 4);
    default:
        return tcw_item_size[type];
    }
}

/* ---- compact times (docs/protocol.md §8.3) ----------------------------------------------- */

/* The plain delta of a time field of width 2, 4 or 8 bytes in protocol 82's encoding. */
static int64_t compact_delta(const uint8_t *p, int width)
{
    if (width == 2)
        return tcu_rd16(p);
    if (width == 4)
        return (int64_t)tcu_rd32(p) + TCW_DELTA16_LIMIT;
    int64_t v = (int64_t)tcu_rd64(p);
    return v >= 0 ? (int64_t)((uint64_t)v + TCW_DELTA32_LIMIT) : v; /* wraps as the server's sum does */
}

/* Writes delta d in protocol 82's narrowest encoding at p; returns its width. */
static int compact_put(uint8_t *p, int64_t d)
{
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        tcu_wr16(p, (uint16_t)d);
        return 2;
    }
    if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        tcu_wr32(p, (uint32_t)(d - TCW_DELTA16_LIMIT));
        return 4;
    }
    tcu_wr64(p, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    return 8;
}

/* The 64-bit type of a compact family, and the width of the time field of type t. */
static uint8_t compact_family(uint8_t t, int *width)
{
    switch (t) {
    case TCW_ZoneBegin:
    case TCW_ZoneBeginCallstack:
    case TCW_ZoneEnd:
    case TCW_CallstackSample:
    case TCW_CallstackSampleContextSwitch:
        *width = 8;
        return t;
    case TCW_ZoneBegin32:
    case TCW_ZoneBeginCallstack32:
    case TCW_ZoneEnd32:
    case TCW_CallstackSample32:
    case TCW_CallstackSampleContextSwitch32:
        *width = 4;
        return (uint8_t)(t - 1);
    case TCW_ZoneBegin16:
    case TCW_ZoneBeginCallstack16:
    case TCW_ZoneEnd16:
    case TCW_CallstackSample16:
    case TCW_CallstackSampleContextSwitch16:
        *width = 2;
        return (uint8_t)(t - 2);
    default:
        *width = 0;
        return t;
    }
}

static int is_sample(uint8_t base)
{
    return base == TCW_CallstackSample || base == TCW_CallstackSampleContextSwitch;
}

/* ---- protocol 82 -> older ------------------------------------------------------------------ */

/* Zones: [type][time 2/4/8][srcloc u64 (begins)] -> [type][i64 plain delta][srcloc].
 * Samples: [type][thread u32][time 2/4/8] -> [type][i64 plain delta][thread u32]. */
static size_t widen_time(uint8_t *p, uint8_t t, int vi)
{
    int width;
    uint8_t base = compact_family(t, &width);
    uint8_t tmp[24];
    if (is_sample(base)) {
        uint32_t thread = tcu_rd32(p + 1);
        tcu_wr64(tmp + 1, (uint64_t)compact_delta(p + 5, width));
        tcu_wr32(tmp + 9, thread);
        tmp[0] = tcw_opcodes[base][vi];
        memcpy(p, tmp, 13);
        return 13;
    }
    tcu_wr64(tmp + 1, (uint64_t)compact_delta(p + 1, width));
    size_t n = 9;
    if (base != TCW_ZoneEnd) {
        memcpy(tmp + 9, p + 1 + width, 8);
        n = 17;
    }
    tmp[0] = tcw_opcodes[base][vi];
    memcpy(p, tmp, n);
    return n;
}

static uint8_t gpu_type_in(uint8_t type, int vi)
{
    const uint8_t custom = 7, opengl = 1;
    if (type <= tcw_versions[vi].max_gpu_type)
        return type;
    return tcw_versions[vi].max_gpu_type >= custom ? custom : opengl;
}

size_t tcw_item_to_version(uint8_t *p, size_t len, int vi)
{
    uint8_t t = p[0];
    if (vi == TCW_V82)
        return len;
    const struct tcw_version *v = &tcw_versions[vi];
    switch (t) {
    case TCW_ZoneBegin:
    case TCW_ZoneBegin32:
    case TCW_ZoneBegin16:
    case TCW_ZoneBeginCallstack:
    case TCW_ZoneBeginCallstack32:
    case TCW_ZoneBeginCallstack16:
    case TCW_ZoneEnd:
    case TCW_ZoneEnd32:
    case TCW_ZoneEnd16:
    case TCW_CallstackSample:
    case TCW_CallstackSample32:
    case TCW_CallstackSample16:
    case TCW_CallstackSampleContextSwitch:
    case TCW_CallstackSampleContextSwitch32:
    case TCW_CallstackSampleContextSwitch16:
        return widen_time(p, t, vi); /* only the 64-bit forms exist before 82 */
    case TCW_Message:
    case TCW_MessageCallstack:
    case TCW_MessageColor:
    case TCW_MessageColorCallstack:
        len--; /* no metadata byte: severity and source are lost */
        break;
    case TCW_MessageLiteral:
    case TCW_MessageLiteralCallstack:
        tcu_wr64(p + 9, tcu_rd64(p + 9) >> 8); /* the plain string id, without metadata */
        break;
    case TCW_MessageLiteralColor:
    case TCW_MessageLiteralColorCallstack:
        tcu_wr64(p + 12, tcu_rd64(p + 12) >> 8);
        break;
    case TCW_SingleStringData8:
    case TCW_SecondStringData8: { /* u8 length -> the 16-bit form with a plain length */
        size_t n = p[1];
        memmove(p + 3, p + 2, n);
        tcu_wr16(p + 1, (uint16_t)n);
        t = t == TCW_SingleStringData8 ? TCW_SingleStringData : TCW_SecondStringData;
        len = 3 + n;
        break;
    }
    case TCW_SingleStringData:
    case TCW_SecondStringData: /* length - 256 -> plain length */
        tcu_wr16(p + 1, (uint16_t)(tcu_rd16(p + 1) + 256));
        break;
    case TCW_ParamSetup: /* type (0 integer, 1 boolean, 2 trigger) -> isBool */
        p[13] = p[13] == 1;
        break;
    case TCW_ContextSwitch:
    case TCW_ThreadWakeup:
        if (!v->ctx_switch_v2)
            len -= 3; /* the trailing fields are new in 74; the first ones keep their places */
        break;
    case TCW_FiberEnter:
        if (!v->wide_topology)
            len -= 4; /* no groupHint */
        break;
    case TCW_CpuTopology:
        if (!v->wide_topology) {
            memmove(p + 5, p + 9, 8); /* package, (die), core, thread */
            len -= 4;
        }
        break;
    case TCW_GpuNewContext:
        p[27] = gpu_type_in(p[27], vi);
        break;
    default:
        break;
    }
    uint8_t op = tcw_opcodes[t][vi];
    if (op == TCW_ABSENT)
        return 0;
    p[0] = op;
    return len;
}

/* ---- older -> protocol 82 ------------------------------------------------------------------ */

/* The message metadata an older server assumes: severity Info, source User. */
#define OLD_MESSAGE_META 0x20

int tcw_item_from_version(uint8_t type, const uint8_t *it, int vi, uint8_t out[TCW_NORMALIZED_MAX])
{
    const struct tcw_version *v = &tcw_versions[vi];
    if (vi == TCW_V82)
        return 0;
    size_t n = tcw_item_size_in(type, vi);
    switch (type) {
    case TCW_ZoneBegin:
    case TCW_ZoneBeginCallstack:
    case TCW_ZoneEnd: {
        int width = compact_put(out + 1, (int64_t)tcu_rd64(it + 1));
        out[0] = (uint8_t)(type + (width == 2 ? 2 : width == 4 ? 1 : 0));
        if (type != TCW_ZoneEnd)
            memcpy(out + 1 + width, it + 9, 8);
        return 1;
    }
    case TCW_CallstackSample:
    case TCW_CallstackSampleContextSwitch: {
        memcpy(out + 1, it + 9, 4); /* thread first, then the time */
        int width = compact_put(out + 5, (int64_t)tcu_rd64(it + 1));
        out[0] = (uint8_t)(type + (width == 2 ? 2 : width == 4 ? 1 : 0));
        return 1;
    }
    case TCW_Message:
    case TCW_MessageCallstack:
    case TCW_MessageColor:
    case TCW_MessageColorCallstack:
        memcpy(out, it, n);
        out[n] = OLD_MESSAGE_META;
        break;
    case TCW_MessageLiteral:
    case TCW_MessageLiteralCallstack:
    case TCW_MessageLiteralColor:
    case TCW_MessageLiteralColorCallstack: {
        size_t at = type == TCW_MessageLiteral || type == TCW_MessageLiteralCallstack ? 9 : 12;
        memcpy(out, it, n);
        tcu_wr64(out + at, tcu_rd64(it + at) << 8 | OLD_MESSAGE_META);
        break;
    }
    case TCW_ParamSetup:
        memcpy(out, it, n);
        out[13] = it[13] ? 1 : 0; /* isBool -> type Boolean or Integer */
        break;
    case TCW_ContextSwitch:
    case TCW_ThreadWakeup:
        if (v->ctx_switch_v2)
            return 0;
        memcpy(out, it, n);
        memset(out + n, 0, 3);
        break;
    case TCW_FiberEnter:
        if (v->wide_topology)
            return 0;
        memcpy(out, it, n);
        memset(out + n, 0, 4);
        break;
    case TCW_CpuTopology:
        if (v->wide_topology)
            return 0;
        memcpy(out, it, 5);
        memset(out + 5, 0, 4); /* die */
        memcpy(out + 9, it + 5, 8);
        break;
    default:
        return 0;
    }
    out[0] = type;
    return 1;
}

/* ---- welcome and queries -------------------------------------------------------------------- */

#define WELCOME_DELAY_AT 24 /* versions 64-74: u64 delay before `resolution` */

void tcw_welcome_to_version(uint8_t *out, const uint8_t w82[TCW_WELCOME_SIZE], int vi)
{
    if (!tcw_versions[vi].welcome_delay) {
        memcpy(out, w82, TCW_WELCOME_SIZE);
        return;
    }
    memcpy(out, w82, WELCOME_DELAY_AT);
    memset(out + WELCOME_DELAY_AT, 0, 8); /* no measured per-event delay */
    memcpy(out + WELCOME_DELAY_AT + 8, w82 + WELCOME_DELAY_AT, TCW_WELCOME_SIZE - WELCOME_DELAY_AT);
}

void tcw_welcome_from_version(uint8_t w82[TCW_WELCOME_SIZE], const uint8_t *in, int vi)
{
    if (!tcw_versions[vi].welcome_delay) {
        memcpy(w82, in, TCW_WELCOME_SIZE);
        return;
    }
    memcpy(w82, in, WELCOME_DELAY_AT);
    memcpy(w82 + WELCOME_DELAY_AT, in + WELCOME_DELAY_AT + 8, TCW_WELCOME_SIZE - WELCOME_DELAY_AT);
}

/* Protocol 64 has ExternalName after CallstackFrame: Disconnect 8, CallstackFrame 9,
 * ExternalName 10, where later versions have ExternalName 8, Disconnect 9, CallstackFrame 10. */
uint8_t tcw_query_to_wire(uint8_t query, int vi)
{
    if (vi != TCW_V64)
        return query;
    switch (query) {
    case TCW_QUERY_DISCONNECT:
        return 8;
    case TCW_QUERY_CALLSTACK_FRAME:
        return 9;
    case TCW_QUERY_EXTERNAL_NAME:
        return 10;
    default:
        return query;
    }
}

uint8_t tcw_query_from_wire(uint8_t code, int vi)
{
    if (vi != TCW_V64)
        return code;
    switch (code) {
    case 8:
        return TCW_QUERY_DISCONNECT;
    case 9:
        return TCW_QUERY_CALLSTACK_FRAME;
    case 10:
        return TCW_QUERY_EXTERNAL_NAME;
    default:
        return code;
    }
}
