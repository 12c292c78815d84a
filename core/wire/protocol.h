/* protocol.h - constants of Tracy's wire protocol 82 (Tracy 0.14.0).
 *
 * Shared by the client (encoder, worker) and the server side (decoder). Item codes
 * keep upstream's QueueType names so they can be checked against docs/protocol.md §7.
 * Every multi-byte value on the wire is little-endian and packed.
 */
#ifndef TRACYC_WIRE_PROTOCOL_H
#define TRACYC_WIRE_PROTOCOL_H

#include <stdint.h>

#define TCW_PROTOCOL_VERSION 82u
#define TCW_SHIBBOLETH "TracyPrf"
#define TCW_SHIBBOLETH_SIZE 8
#define TCW_WELCOME_SIZE 1170
#define TCW_ONDEMAND_SIZE 16
#define TCW_QUERY_SIZE 13
#define TCW_TARGET_FRAME_SIZE 262144
#define TCW_LZ4_SIZE (TCW_TARGET_FRAME_SIZE + TCW_TARGET_FRAME_SIZE / 255 + 16)
#define TCW_MAX_STRING 65535u /* longest u16-length string */
#define TCW_DEFAULT_PORT 8086

/* Offsets inside the 1170-byte WelcomeMessage. */
enum {
    TCW_WELCOME_TIMER_MUL = 0,
    TCW_WELCOME_INIT_BEGIN = 8,
    TCW_WELCOME_INIT_END = 16,
    TCW_WELCOME_RESOLUTION = 24,
    TCW_WELCOME_EPOCH = 32,
    TCW_WELCOME_EXECTIME = 40,
    TCW_WELCOME_PID = 48,
    TCW_WELCOME_SAMPLING = 56,
    TCW_WELCOME_FLAGS = 64,
    TCW_WELCOME_CPU_ARCH = 65,
    TCW_WELCOME_CPU_MANUFACTURER = 66,
    TCW_WELCOME_CPU_ID = 78,
    TCW_WELCOME_PROGRAM_NAME = 82,
    TCW_WELCOME_HOST_INFO = 146,
};
#define TCW_PROGRAM_NAME_SIZE 64
/* The welcome's CPU architecture of the machine this is built for (Tracy's CpuArch: 0 unknown). */
#if defined(__x86_64__)
#define TCW_CPU_ARCH_HOST 2
#elif defined(__aarch64__)
#define TCW_CPU_ARCH_HOST 4
#elif defined(__i386__)
#define TCW_CPU_ARCH_HOST 1
#elif defined(__arm__)
#define TCW_CPU_ARCH_HOST 3
#else
#define TCW_CPU_ARCH_HOST 0
#endif
#define TCW_HOST_INFO_SIZE 1024

enum tcw_welcome_flag {
    TCW_FLAG_ON_DEMAND = 0x01,
    TCW_FLAG_IGNORE_MEM_FAULTS = 0x02,
    TCW_FLAG_CODE_TRANSFER = 0x04,
};

enum tcw_handshake {
    TCW_HANDSHAKE_PENDING = 0,
    TCW_HANDSHAKE_WELCOME = 1,
    TCW_HANDSHAKE_PROTOCOL_MISMATCH = 2,
    TCW_HANDSHAKE_NOT_AVAILABLE = 3,
    TCW_HANDSHAKE_DROPPED = 4,
};

enum tcw_query {
    TCW_QUERY_TERMINATE = 0,
    TCW_QUERY_STRING = 1,
    TCW_QUERY_THREAD_STRING = 2,
    TCW_QUERY_SOURCE_LOCATION = 3,
    TCW_QUERY_PLOT_NAME = 4,
    TCW_QUERY_FRAME_NAME = 5,
    TCW_QUERY_PARAMETER = 6,
    TCW_QUERY_FIBER_NAME = 7,
    TCW_QUERY_EXTERNAL_NAME = 8,
    TCW_QUERY_DISCONNECT = 9,
    TCW_QUERY_CALLSTACK_FRAME = 10,
    TCW_QUERY_SYMBOL = 11,
    TCW_QUERY_SYMBOL_CODE = 12,
    TCW_QUERY_SOURCE_CODE = 13,
    TCW_QUERY_DATA_TRANSFER = 14,
    TCW_QUERY_DATA_TRANSFER_PART = 15,
    /* tracyc's own (docs/protocol.md §27), sent only to a client whose welcome's host info
     * holds TCW_HOST_INFO_TRACYC: ptr = the TCW_EXTENSION_* bits the server takes.
     * Upstream's servers never send it; tracyc answers AckServerQueryNoop. */
    TCW_QUERY_TRACYC_EXTENSIONS = 128,
    /* tracyc's own (docs/protocol.md §28), sent only to a client that took
     * TCW_EXTENSION_CLOCK: ptr = a probe id, answered at once with a TracycClock item
     * echoing it, then AckServerQueryNoop. */
    TCW_QUERY_TRACYC_CLOCK_PROBE = 129,
};

/* The host info line that marks a tracyc client, and the extensions a server may take. */
#define TCW_HOST_INFO_TRACYC "Compiler: tracyc"
#define TCW_EXTENSION_THREAD_RENAMES 1u /* ThreadName items unasked, for renamed threads */
#define TCW_EXTENSION_CLOCK 2u          /* TracycClock items: the client's clocks (§28) */

/* Message metadata byte: severity << 4 | source. */
#define TCW_MESSAGE_META(severity) ((uint8_t)(((severity)&0x0f) << 4))
#define TCW_MESSAGE_SOURCE_TRACY 1u

/* Compact zone time encodings (docs/protocol.md §8.3). */
#define TCW_DELTA16_LIMIT 65536LL
#define TCW_DELTA32_LIMIT (65536LL + 4294967296LL)

/* Item type codes (QueueType). */
enum tcw_type {
    TCW_ZoneText = 0,
    TCW_ZoneName = 1,
    TCW_Message = 2,
    TCW_MessageColor = 3,
    TCW_MessageCallstack = 4,
    TCW_MessageColorCallstack = 5,
    TCW_MessageAppInfo = 6,
    TCW_ZoneBeginAllocSrcLoc = 7,
    TCW_ZoneBeginAllocSrcLocCallstack = 8,
    TCW_CallstackSerial = 9,
    TCW_Callstack = 10,
    TCW_CallstackAlloc = 11,
    TCW_CallstackSample = 12,
    TCW_CallstackSample32 = 13,
    TCW_CallstackSample16 = 14,
    TCW_CallstackSampleContextSwitch = 15,
    TCW_CallstackSampleContextSwitch32 = 16,
    TCW_CallstackSampleContextSwitch16 = 17,
    TCW_FrameImage = 18,
    TCW_ZoneBegin = 19,
    TCW_ZoneBegin32 = 20,
    TCW_ZoneBegin16 = 21,
    TCW_ZoneBeginCallstack = 22,
    TCW_ZoneBeginCallstack32 = 23,
    TCW_ZoneBeginCallstack16 = 24,
    TCW_ZoneEnd = 25,
    TCW_ZoneEnd32 = 26,
    TCW_ZoneEnd16 = 27,
    TCW_LockWait = 28,
    TCW_LockObtain = 29,
    TCW_LockRelease = 30,
    TCW_LockSharedWait = 31,
    TCW_LockSharedObtain = 32,
    TCW_LockSharedRelease = 33,
    TCW_LockName = 34,
    TCW_MemAlloc = 35,
    TCW_MemAllocNamed = 36,
    TCW_MemFree = 37,
    TCW_MemFreeNamed = 38,
    TCW_MemAllocCallstack = 39,
    TCW_MemAllocCallstackNamed = 40,
    TCW_MemFreeCallstack = 41,
    TCW_MemFreeCallstackNamed = 42,
    TCW_MemDiscard = 43,
    TCW_MemDiscardCallstack = 44,
    TCW_GpuZoneBegin = 45,
    TCW_GpuZoneBeginCallstack = 46,
    TCW_GpuZoneBeginAllocSrcLoc = 47,
    TCW_GpuZoneBeginAllocSrcLocCallstack = 48,
    TCW_GpuZoneEnd = 49,
    TCW_GpuZoneBeginSerial = 50,
    TCW_GpuZoneBeginCallstackSerial = 51,
    TCW_GpuZoneBeginAllocSrcLocSerial = 52,
    TCW_GpuZoneBeginAllocSrcLocCallstackSerial = 53,
    TCW_GpuZoneEndSerial = 54,
    TCW_PlotDataInt = 55,
    TCW_PlotDataFloat = 56,
    TCW_PlotDataDouble = 57,
    TCW_ContextSwitch = 58,
    TCW_ThreadWakeup = 59,
    TCW_GpuTime = 60,
    TCW_GpuContextName = 61,
    TCW_GpuAnnotationName = 62,
    TCW_CallstackFrameSize = 63,
    TCW_SymbolInformation = 64,
    TCW_ExternalNameMetadata = 65,
    TCW_SymbolCodeMetadata = 66,
    TCW_SourceCodeMetadata = 67,
    TCW_FiberEnter = 68,
    TCW_FiberLeave = 69,
    TCW_SectionEnter = 70,
    TCW_SectionLeave = 71,
    TCW_SectionSetup = 72,
    TCW_Terminate = 73,
    TCW_KeepAlive = 74,
    TCW_ThreadContext = 75,
    TCW_GpuCalibration = 76,
    TCW_GpuTimeSync = 77,
    TCW_Crash = 78,
    TCW_CrashReport = 79,
    TCW_ZoneValidation = 80,
    TCW_ZoneColor = 81,
    TCW_ZoneValue = 82,
    TCW_FrameMarkMsg = 83,
    TCW_FrameMarkMsgStart = 84,
    TCW_FrameMarkMsgEnd = 85,
    TCW_FrameVsync = 86,
    TCW_SourceLocation = 87,
    TCW_LockAnnounce = 88,
    TCW_LockTerminate = 89,
    TCW_LockMark = 90,
    TCW_MessageLiteral = 91,
    TCW_MessageLiteralColor = 92,
    TCW_MessageLiteralCallstack = 93,
    TCW_MessageLiteralColorCallstack = 94,
    TCW_GpuNewContext = 95,
    TCW_CallstackFrame = 96,
    TCW_SysTimeReport = 97,
    TCW_SysPowerReport = 98,
    TCW_TidToPid = 99,
    TCW_HwSampleCpuCycle = 100,
    TCW_HwSampleInstructionRetired = 101,
    TCW_HwSampleCacheReference = 102,
    TCW_HwSampleCacheMiss = 103,
    TCW_HwSampleBranchRetired = 104,
    TCW_HwSampleBranchMiss = 105,
    TCW_PlotConfig = 106,
    TCW_ParamSetup = 107,
    TCW_AckServerQueryNoop = 108,
    TCW_AckSourceCodeNotAvailable = 109,
    TCW_AckSymbolCodeNotAvailable = 110,
    TCW_CpuTopology = 111,
    TCW_SingleStringData = 112,
    TCW_SecondStringData = 113,
    TCW_SingleStringData8 = 114,
    TCW_SecondStringData8 = 115,
    TCW_MemNamePayload = 116,
    TCW_ThreadGroupHint = 117,
    TCW_GpuZoneAnnotation = 118,
    TCW_StringData = 119,
    TCW_ThreadName = 120,
    TCW_PlotName = 121,
    TCW_SourceLocationPayload = 122,
    TCW_CallstackPayload = 123,
    TCW_CallstackAllocPayload = 124,
    TCW_FrameName = 125,
    TCW_FrameImageData = 126,
    TCW_ExternalName = 127,
    TCW_ExternalThreadName = 128,
    TCW_SymbolCode = 129,
    TCW_SourceCode = 130,
    TCW_FiberName = 131,
    /* tracyc's own items, numbered after upstream's last in every version and sent only
     * to a server that asked for them (docs/protocol.md §27, §28). */
    TCW_TracycClock = 132,
    TCW_NUM_TYPES = 133
};

/* Wire size of each item including the type byte (fixed part only for strings). */
static const uint8_t tcw_item_size[TCW_NUM_TYPES] = {
    [TCW_ZoneText] = 1,
    [TCW_ZoneName] = 1,
    [TCW_Message] = 10,
    [TCW_MessageColor] = 13,
    [TCW_MessageCallstack] = 10,
    [TCW_MessageColorCallstack] = 13,
    [TCW_MessageAppInfo] = 9,
    [TCW_ZoneBeginAllocSrcLoc] = 9,
    [TCW_ZoneBeginAllocSrcLocCallstack] = 9,
    [TCW_CallstackSerial] = 1,
    [TCW_Callstack] = 1,
    [TCW_CallstackAlloc] = 1,
    [TCW_CallstackSample] = 13,
    [TCW_CallstackSample32] = 9,
    [TCW_CallstackSample16] = 7,
    [TCW_CallstackSampleContextSwitch] = 13,
    [TCW_CallstackSampleContextSwitch32] = 9,
    [TCW_CallstackSampleContextSwitch16] = 7,
    [TCW_FrameImage] = 10,
    [TCW_ZoneBegin] = 17,
    [TCW_ZoneBegin32] = 13,
    [TCW_ZoneBegin16] = 11,
    [TCW_ZoneBeginCallstack] = 17,
    [TCW_ZoneBeginCallstack32] = 13,
    [TCW_ZoneBeginCallstack16] = 11,
    [TCW_ZoneEnd] = 9,
    [TCW_ZoneEnd32] = 5,
    [TCW_ZoneEnd16] = 3,
    [TCW_LockWait] = 17,
    [TCW_LockObtain] = 17,
    [TCW_LockRelease] = 13,
    [TCW_LockSharedWait] = 17,
    [TCW_LockSharedObtain] = 17,
    [TCW_LockSharedRelease] = 17,
    [TCW_LockName] = 5,
    [TCW_MemAlloc] = 27,
    [TCW_MemAllocNamed] = 27,
    [TCW_MemFree] = 21,
    [TCW_MemFreeNamed] = 21,
    [TCW_MemAllocCallstack] = 27,
    [TCW_MemAllocCallstackNamed] = 27,
    [TCW_MemFreeCallstack] = 21,
    [TCW_MemFreeCallstackNamed] = 21,
    [TCW_MemDiscard] = 21,
    [TCW_MemDiscardCallstack] = 21,
    [TCW_GpuZoneBegin] = 24,
    [TCW_GpuZoneBeginCallstack] = 24,
    [TCW_GpuZoneBeginAllocSrcLoc] = 16,
    [TCW_GpuZoneBeginAllocSrcLocCallstack] = 16,
    [TCW_GpuZoneEnd] = 16,
    [TCW_GpuZoneBeginSerial] = 24,
    [TCW_GpuZoneBeginCallstackSerial] = 24,
    [TCW_GpuZoneBeginAllocSrcLocSerial] = 16,
    [TCW_GpuZoneBeginAllocSrcLocCallstackSerial] = 16,
    [TCW_GpuZoneEndSerial] = 16,
    [TCW_PlotDataInt] = 25,
    [TCW_PlotDataFloat] = 21,
    [TCW_PlotDataDouble] = 25,
    [TCW_ContextSwitch] = 23,
    [TCW_ThreadWakeup] = 16,
    [TCW_GpuTime] = 12,
    [TCW_GpuContextName] = 2,
    [TCW_GpuAnnotationName] = 10,
    [TCW_CallstackFrameSize] = 10,
    [TCW_SymbolInformation] = 13,
    [TCW_ExternalNameMetadata] = 1,
    [TCW_SymbolCodeMetadata] = 1,
    [TCW_SourceCodeMetadata] = 1,
    [TCW_FiberEnter] = 25,
    [TCW_FiberLeave] = 13,
    [TCW_SectionEnter] = 15,
    [TCW_SectionLeave] = 13,
    [TCW_SectionSetup] = 3,
    [TCW_Terminate] = 1,
    [TCW_KeepAlive] = 1,
    [TCW_ThreadContext] = 5,
    [TCW_GpuCalibration] = 26,
    [TCW_GpuTimeSync] = 18,
    [TCW_Crash] = 1,
    [TCW_CrashReport] = 17,
    [TCW_ZoneValidation] = 5,
    [TCW_ZoneColor] = 4,
    [TCW_ZoneValue] = 9,
    [TCW_FrameMarkMsg] = 17,
    [TCW_FrameMarkMsgStart] = 17,
    [TCW_FrameMarkMsgEnd] = 17,
    [TCW_FrameVsync] = 13,
    [TCW_SourceLocation] = 32,
    [TCW_LockAnnounce] = 22,
    [TCW_LockTerminate] = 13,
    [TCW_LockMark] = 17,
    [TCW_MessageLiteral] = 17,
    [TCW_MessageLiteralColor] = 20,
    [TCW_MessageLiteralCallstack] = 17,
    [TCW_MessageLiteralColorCallstack] = 20,
    [TCW_GpuNewContext] = 28,
    [TCW_CallstackFrame] = 17,
    [TCW_SysTimeReport] = 13,
    [TCW_SysPowerReport] = 25,
    [TCW_TidToPid] = 17,
    [TCW_HwSampleCpuCycle] = 17,
    [TCW_HwSampleInstructionRetired] = 17,
    [TCW_HwSampleCacheReference] = 17,
    [TCW_HwSampleCacheMiss] = 17,
    [TCW_HwSampleBranchRetired] = 17,
    [TCW_HwSampleBranchMiss] = 17,
    [TCW_PlotConfig] = 16,
    [TCW_ParamSetup] = 18,
    [TCW_AckServerQueryNoop] = 1,
    [TCW_AckSourceCodeNotAvailable] = 5,
    [TCW_AckSymbolCodeNotAvailable] = 1,
    [TCW_CpuTopology] = 17,
    [TCW_SingleStringData] = 1,
    [TCW_SecondStringData] = 1,
    [TCW_SingleStringData8] = 1,
    [TCW_SecondStringData8] = 1,
    [TCW_MemNamePayload] = 9,
    [TCW_ThreadGroupHint] = 9,
    [TCW_GpuZoneAnnotation] = 24,
    [TCW_StringData] = 9,
    [TCW_ThreadName] = 9,
    [TCW_PlotName] = 9,
    [TCW_SourceLocationPayload] = 9,
    [TCW_CallstackPayload] = 9,
    [TCW_CallstackAllocPayload] = 9,
    [TCW_FrameName] = 9,
    [TCW_FrameImageData] = 9,
    [TCW_ExternalName] = 9,
    [TCW_ExternalThreadName] = 9,
    [TCW_SymbolCode] = 9,
    [TCW_SourceCode] = 9,
    [TCW_FiberName] = 9,
    [TCW_TracycClock] = 37,
};

#endif
