/* tracyc.h - the public C ABI of tracyc, a pure-C client for the Tracy profiler.
 *
 * This header is the manual. It has three parts:
 *
 *   1. The upstream API: every function of Tracy 0.14.0's TracyC.h, with the same
 *      names, argument types and struct layouts, and the TracyC* macros. As upstream,
 *      the macros compile to nothing unless TRACY_ENABLE is defined, and the
 *      ___tracy_* functions are declared only when it is.
 *   2. Compatibility names that bindings written for Tracy 0.13 still link
 *      (___tracy_emit_message*, sampling_profiler, init_thread).
 *   3. tracyc's own additions (tracyc_*), always declared: in-process capture,
 *      samples of program-named frames (an interpreter's), dropped-event count, last error.
 *
 * Run-time behaviour (environment variables):
 *   TRACY_PORT=N          listen on port N (default 8086, trying the next 19 ports when busy)
 *   TRACYC_LISTEN=any     listen on every interface (default: 127.0.0.1 only)
 *   TRACYC_BROADCAST=1    announce the client by UDP broadcast (default: off)
 *   TRACYC_FOLLOW_FORK=1  a forked child starts a profiler of its own (none of the parent's
 *                         threads, events or counts) at its first event, and dials the
 *                         collector of the parent's environment (TRACYC_CONNECT); with
 *                         TRACYC_OUTPUT the in-process capture records the children into its
 *                         file (tracyc_collect_children). Default: a forked child is inert
 *   TRACYC_CONNECT=HOST:PORT  listen for no server: connect out to a collector at
 *                         HOST:PORT ([ADDRESS]:PORT for IPv6), which is the server of that
 *                         connection; again after it goes away, waiting 10 ms doubling to 1 s
 *                         between attempts. The connect is made on the profiler's thread,
 *                         never the program's; events wait for a collector as for a server
 *   TRACYC_BUFFER_LIMIT=N bytes kept for events not yet sent (default 256 MiB; suffixes
 *                         K, M, G); past it events are dropped and counted. Ends of zones
 *                         already recorded have a fixed 64 KiB reserve beyond it: the
 *                         worst case is the limit + 64 KiB
 *   TRACY_NO_EXIT=1       at exit, wait until a server has connected and received everything
 *   TRACYC_OUTPUT=FILE    profile in-process and write FILE at exit (.pftrace, .json,
 *                         .csv, .folded, .svg, .txt); a program it starts that inherits the
 *                         variable writes FILE's name with its pid before the extension instead
 *                         (TRACYC_OUTPUT_OWNER, set at start, tells them apart), unless it
 *                         inherits TRACYC_CONNECT too: then it dials that collector
 *   TRACYC_DISABLE=1      make the whole library inert: no thread, no socket
 *   TRACY_SAMPLING_HZ=N   CPU samples per second of each running thread (default 500),
 *                         lowered (and said on stderr) to what the kernel allows:
 *                         kernel.perf_event_max_sample_rate, and the rate at which
 *                         samples take kernel.perf_cpu_time_max_percent of a thread's time
 *   TRACY_NO_SAMPLING=1   no CPU samples
 *   TRACY_NO_CONTEXT_SWITCH=1  no context switches
 *   TRACY_NO_SYS_TRACE=1  neither (nothing from the kernel's perf events)
 *   TRACY_NO_CALLSTACK=1  no callstacks at all: the _callstack functions record their
 *                         event without one, and no CPU samples are taken
 *
 * Lifetime: the profiler starts at the first call into the library (or at
 * ___tracy_startup_profiler) and stops at process exit (or ___tracy_shutdown_profiler).
 * Both startup and shutdown are always exported, so TRACY_MANUAL_LIFETIME code works;
 * a shutdown is final: calls made after it are ignored, and a later startup does not
 * start the profiler again (___tracy_profiler_started() stays 0).
 *
 * Callstacks: every *_callstack function (and every S macro, and every plain macro when
 * TRACY_CALLSTACK is defined as a depth before this header) records the callstack of its
 * caller with its event: up to `depth` frames, innermost first, starting at the function
 * that called the tracyc function; depth <= 0 records none (the plain event), a depth
 * above 62 is cut to 62. Only return addresses are taken on the calling thread (DWARF
 * unwinding with libunwind when libunwind.so.8 is installed, ~7-10 ns a frame, else
 * glibc's backtrace, ~100 ns a frame; code without frame pointers unwinds correctly).
 * Names, files and lines (inlined functions expanded, C++ and Rust names demangled) are
 * resolved later, in the program, on a thread of their own, when a server asks.
 *
 * CPU sampling and context switches: from the moment the profiler's start returns until it
 * shuts down, every thread of the process (those that exist then and every thread created
 * later; not child processes) is sampled TRACY_SAMPLING_HZ times a second of its CPU time,
 * each sample with its callstack, and its context switches are recorded, through the
 * kernel's perf events; as upstream's client does, what comes before a server connects is
 * kept with the program's other events (within TRACYC_BUFFER_LIMIT) and sent when one
 * does. This needs
 * /proc/sys/kernel/perf_event_paranoid <= 2 (the default of most distributions), or
 * CAP_PERFMON / root; as root, time spent in system calls is sampled too. When the kernel
 * refuses, the program runs on and each server gets one message saying why (the error and
 * what refused it), as does stderr, once, when the first server (or the in-process capture)
 * connects: a program nobody profiles prints nothing. Samples and switches lost (the
 * kernel's ring buffer was full, or the memory kept for a server reached
 * TRACYC_BUFFER_LIMIT) are counted and reported to the server, each cause apart.
 *
 * Threads: every function may be called from any thread. A zone must be ended on the
 * thread that began it; tracyc checks this and ignores a foreign or repeated end.
 */
#ifndef TRACYC_H
#define TRACYC_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TRACYC_API __declspec(dllexport)
#elif defined(__GNUC__)
#define TRACYC_API __attribute__((visibility("default")))
#else
#define TRACYC_API
#endif

#if defined(__GNUC__)
#define TRACYC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TRACYC_PRINTF(fmt, args)
#endif

#define TRACYC_VERSION_MAJOR 0
#define TRACYC_VERSION_MINOR 1
#define TRACYC_VERSION_PATCH 0
/* The Tracy release whose protocol and C API tracyc implements. */
#define TRACYC_TRACY_VERSION "0.14.0"
#define TRACYC_PROTOCOL_VERSION 82

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* 1. Upstream API (Tracy 0.14.0 TracyC.h)                                               */
/* ------------------------------------------------------------------------------------ */

enum TracyPlotFormatEnum {
    TracyPlotFormatNumber,
    TracyPlotFormatMemory,
    TracyPlotFormatPercentage,
    TracyPlotFormatWatt
};

enum TracyMessageSeverity {
    TracyMessageSeverityTrace,
    TracyMessageSeverityDebug,
    TracyMessageSeverityInfo,
    TracyMessageSeverityWarning,
    TracyMessageSeverityError,
    TracyMessageSeverityFatal
};

TRACYC_API void ___tracy_set_thread_name(const char *name);

#define TracyCSetThreadName(name) ___tracy_set_thread_name(name);

#ifndef TracyFunction
#define TracyFunction __func__
#endif
#ifndef TracyFile
#define TracyFile __FILE__
#endif
#ifndef TracyLine
#define TracyLine __LINE__
#endif

#ifndef TRACY_ENABLE
typedef const void *TracyCZoneCtx;
typedef const void *TracyCLockCtx;
typedef const void *TracyCSharedLockCtx;
#endif

/* A static source location. It and its three strings must stay valid and unchanged
 * for the life of the process: the server asks for them lazily, by address. 32 bytes. */
struct ___tracy_source_location_data {
    const char *name; /* NULL: the zone is named after the function */
    const char *function;
    const char *file;
    uint32_t line;
    uint32_t color; /* 0x00RRGGBB, 0 = default */
};

/* A zone handle, passed by value. 8 bytes in every build (upstream adds a field under
 * TRACY_ON_DEMAND; tracyc handles reconnection internally and keeps the 8-byte form). */
struct ___tracy_c_zone_context {
    uint32_t id;
    int32_t active;
};

struct ___tracy_gpu_time_data {
    int64_t gpuTime;
    uint16_t queryId;
    uint8_t context;
};

struct ___tracy_gpu_zone_begin_data {
    uint64_t srcloc;
    uint16_t queryId;
    uint8_t context;
};

struct ___tracy_gpu_zone_begin_callstack_data {
    uint64_t srcloc;
    int32_t depth;
    uint16_t queryId;
    uint8_t context;
};

struct ___tracy_gpu_zone_end_data {
    uint16_t queryId;
    uint8_t context;
};

struct ___tracy_gpu_new_context_data {
    int64_t gpuTime;
    float period;
    uint8_t context;
    uint8_t flags;
    uint8_t type;
};

struct ___tracy_gpu_context_name_data {
    uint8_t context;
    const char *name;
    uint16_t len;
};

struct ___tracy_gpu_calibration_data {
    int64_t gpuTime;
    int64_t cpuDelta;
    uint8_t context;
};

struct ___tracy_gpu_time_sync_data {
    int64_t gpuTime;
    uint8_t context;
};

struct __tracy_lockable_context_data;
struct __tracy_shared_lockable_context_data;

#ifdef TRACY_ENABLE

typedef struct ___tracy_c_zone_context TracyCZoneCtx;
typedef struct __tracy_lockable_context_data *TracyCLockCtx;
typedef struct __tracy_shared_lockable_context_data *TracyCSharedLockCtx;

/* Lifetime. Startup is implicit at first use; shutdown flushes everything to a
 * connected server (and the in-process capture), then stops the worker thread. */
TRACYC_API void ___tracy_startup_profiler(void);
TRACYC_API void ___tracy_shutdown_profiler(void);
TRACYC_API int32_t ___tracy_profiler_started(void);

/* Allocated source locations: returns an opaque handle to a heap copy, consumed by the
 * next ___tracy_emit_zone_begin_alloc* or ___tracy_emit_gpu_zone_begin_alloc* call.
 * Strings longer than the protocol allows are truncated. */
TRACYC_API uint64_t ___tracy_alloc_srcloc(uint32_t line, const char *source, size_t sourceSz, const char *function,
                                          size_t functionSz, uint32_t color);
TRACYC_API uint64_t ___tracy_alloc_srcloc_name(uint32_t line, const char *source, size_t sourceSz, const char *function,
                                               size_t functionSz, const char *name, size_t nameSz, uint32_t color);

/* Zones. active = 0 makes the zone and every call on its context do nothing. The
 * _callstack forms also record the caller's callstack, depth frames (see the top). */
TRACYC_API TracyCZoneCtx ___tracy_emit_zone_begin(const struct ___tracy_source_location_data *srcloc, int32_t active);
TRACYC_API TracyCZoneCtx ___tracy_emit_zone_begin_callstack(const struct ___tracy_source_location_data *srcloc,
                                                            int32_t depth, int32_t active);
TRACYC_API TracyCZoneCtx ___tracy_emit_zone_begin_alloc(uint64_t srcloc, int32_t active);
TRACYC_API TracyCZoneCtx ___tracy_emit_zone_begin_alloc_callstack(uint64_t srcloc, int32_t depth, int32_t active);
TRACYC_API void ___tracy_emit_zone_end(TracyCZoneCtx ctx);
TRACYC_API void ___tracy_emit_zone_text(TracyCZoneCtx ctx, const char *txt, size_t size);
TRACYC_API void ___tracy_emit_zone_text_fmt(TracyCZoneCtx ctx, const char *fmt, ...) TRACYC_PRINTF(2, 3);
TRACYC_API void ___tracy_emit_zone_name(TracyCZoneCtx ctx, const char *txt, size_t size);
TRACYC_API void ___tracy_emit_zone_name_fmt(TracyCZoneCtx ctx, const char *fmt, ...) TRACYC_PRINTF(2, 3);
TRACYC_API void ___tracy_emit_zone_color(TracyCZoneCtx ctx, uint32_t color);
TRACYC_API void ___tracy_emit_zone_value(TracyCZoneCtx ctx, uint64_t value);

/* GPU zones: non-serial variants are recorded in the calling thread's stream, serial
 * variants in the global ordered stream. The _callstack forms record the caller's
 * callstack, data.depth frames. */
TRACYC_API void ___tracy_emit_gpu_zone_begin(const struct ___tracy_gpu_zone_begin_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_callstack(const struct ___tracy_gpu_zone_begin_callstack_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_alloc(const struct ___tracy_gpu_zone_begin_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_alloc_callstack(const struct ___tracy_gpu_zone_begin_callstack_data);
TRACYC_API void ___tracy_emit_gpu_zone_end(const struct ___tracy_gpu_zone_end_data data);
TRACYC_API void ___tracy_emit_gpu_time(const struct ___tracy_gpu_time_data);
TRACYC_API void ___tracy_emit_gpu_new_context(const struct ___tracy_gpu_new_context_data);
TRACYC_API void ___tracy_emit_gpu_context_name(const struct ___tracy_gpu_context_name_data);
TRACYC_API void ___tracy_emit_gpu_calibration(const struct ___tracy_gpu_calibration_data);
TRACYC_API void ___tracy_emit_gpu_time_sync(const struct ___tracy_gpu_time_sync_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_serial(const struct ___tracy_gpu_zone_begin_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_callstack_serial(const struct ___tracy_gpu_zone_begin_callstack_data);
TRACYC_API void ___tracy_emit_gpu_zone_begin_alloc_serial(const struct ___tracy_gpu_zone_begin_data);
TRACYC_API void
___tracy_emit_gpu_zone_begin_alloc_callstack_serial(const struct ___tracy_gpu_zone_begin_callstack_data);
TRACYC_API void ___tracy_emit_gpu_zone_end_serial(const struct ___tracy_gpu_zone_end_data data);
TRACYC_API void ___tracy_emit_gpu_time_serial(const struct ___tracy_gpu_time_data);
TRACYC_API void ___tracy_emit_gpu_new_context_serial(const struct ___tracy_gpu_new_context_data);
TRACYC_API void ___tracy_emit_gpu_context_name_serial(const struct ___tracy_gpu_context_name_data);
TRACYC_API void ___tracy_emit_gpu_calibration_serial(const struct ___tracy_gpu_calibration_data);
TRACYC_API void ___tracy_emit_gpu_time_sync_serial(const struct ___tracy_gpu_time_sync_data);

/* 1 while a server (not the in-process capture) is connected. */
TRACYC_API int32_t ___tracy_connected(void);

/* Memory. Named variants put the event in the pool called name (a string that must stay
 * valid for the process lifetime).
 *
 * Two signatures, one library. Tracy 0.10 to 0.13 declare six of these functions with an
 * `int32_t secure` argument that 0.14 dropped: alloc_named(ptr, size, secure, name),
 * alloc_callstack_named(ptr, size, depth, secure, name), free_named(ptr, secure, name),
 * free_callstack_named(ptr, depth, secure, name), discard(name, secure) and
 * discard_callstack(name, secure, depth). This header declares the 0.14 forms, or the
 * 0.13 forms when TRACYC_MEMORY_ABI_0_13 is defined; on x86-64 (System V) and AArch64 the
 * library accepts both at run time, so programs and bindings built against either Tracy
 * (e.g. the Rust crate tracy-client-sys 0.28, which follows 0.13) work with the default
 * build. Elsewhere the CMake option TRACYC_MEMORY_ABI_0_13 selects the 0.13 forms for the
 * library as well.
 *
 * How the library tells them apart: the argument that is `secure` in 0.13 and the name in
 * 0.14 is read as the whole 64-bit register. If its low 32 bits are 0 or 1 the call is
 * taken as 0.13's (only the low 32 bits of a 32-bit argument are defined; the upper ones
 * are ignored) and the name is the next argument, else it is 0.14's name. Limits:
 *   - a 0.14 call with a NULL name is read as 0.13's secure = 0, and the name is then
 *     whatever the caller left in the next argument register: a value below 4096 (or, on
 *     x86-64, not a user-space address) means no name, anything else is taken as one.
 *     Do not pass NULL to a named function; call the unnamed one.
 *   - a 0.14 name whose address is 0 or 1 modulo 4 GiB (a string starting exactly at a
 *     4 GiB boundary or one byte past it) is misread the same way.
 *   - 0.13's `secure` must be 0 or 1 (upstream's macros pass those).
 *   - discard_callstack: a 0.13 caller's depth is not read (its secure flag arrives where
 *     0.14 passes the depth); discard ignores 0.13's extra argument.
 * The callstack depth is read from its own place in both forms. The _callstack forms record
 * the caller's callstack, depth frames. */
TRACYC_API void ___tracy_emit_memory_alloc(const void *ptr, size_t size);
TRACYC_API void ___tracy_emit_memory_alloc_callstack(const void *ptr, size_t size, int32_t depth);
TRACYC_API void ___tracy_emit_memory_free(const void *ptr);
TRACYC_API void ___tracy_emit_memory_free_callstack(const void *ptr, int32_t depth);
#ifdef TRACYC_MEMORY_ABI_0_13
TRACYC_API void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, int32_t secure, const char *name);
TRACYC_API void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, int32_t secure,
                                                           const char *name);
TRACYC_API void ___tracy_emit_memory_free_named(const void *ptr, int32_t secure, const char *name);
TRACYC_API void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, int32_t secure,
                                                          const char *name);
TRACYC_API void ___tracy_emit_memory_discard(const char *name, int32_t secure);
TRACYC_API void ___tracy_emit_memory_discard_callstack(const char *name, int32_t secure, int32_t depth);
#else
TRACYC_API void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, const char *name);
TRACYC_API void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth,
                                                           const char *name);
TRACYC_API void ___tracy_emit_memory_free_named(const void *ptr, const char *name);
TRACYC_API void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, const char *name);
TRACYC_API void ___tracy_emit_memory_discard(const char *name);
TRACYC_API void ___tracy_emit_memory_discard_callstack(const char *name, int32_t depth);
#endif

/* Messages. color 0 = default colour. logString copies txt (size bytes, truncated to
 * 65534); logStringL takes a string literal that must stay valid for the process.
 * callstack_depth > 0 records the caller's callstack, that many frames. */
TRACYC_API void ___tracy_emit_logString(int8_t severity, int32_t color, int32_t callstack_depth, size_t size,
                                        const char *txt);
TRACYC_API void ___tracy_emit_logStringL(int8_t severity, int32_t color, int32_t callstack_depth, const char *txt);

/* Frames. name NULL = the main frame set; a non-NULL name must stay valid. */
TRACYC_API void ___tracy_emit_frame_mark(const char *name);
TRACYC_API void ___tracy_emit_frame_mark_start(const char *name);
TRACYC_API void ___tracy_emit_frame_mark_end(const char *name);
/* image: w*h RGBA pixels (w and h multiples of 4); tracyc compresses it to DXT1. */
TRACYC_API void ___tracy_emit_frame_image(const void *image, uint16_t w, uint16_t h, uint8_t offset, int32_t flip);

/* Plots. name must stay valid. NaN and infinite values are dropped (the server would
 * otherwise mis-time every later event of the thread). */
TRACYC_API void ___tracy_emit_plot(const char *name, double val);
TRACYC_API void ___tracy_emit_plot_float(const char *name, float val);
TRACYC_API void ___tracy_emit_plot_int(const char *name, int64_t val);
TRACYC_API void ___tracy_emit_plot_config(const char *name, int32_t type, int32_t step, int32_t fill, uint32_t color);
TRACYC_API void ___tracy_emit_message_appinfo(const char *txt, size_t size);

/* Locks. The announce functions allocate a context that terminate frees. */
TRACYC_API struct __tracy_lockable_context_data *
___tracy_announce_lockable_ctx(const struct ___tracy_source_location_data *srcloc);
TRACYC_API void ___tracy_terminate_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
TRACYC_API int32_t ___tracy_before_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_unlock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_try_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata, int32_t acquired);
TRACYC_API void ___tracy_mark_lockable_ctx(struct __tracy_lockable_context_data *lockdata,
                                           const struct ___tracy_source_location_data *srcloc);
TRACYC_API void ___tracy_custom_name_lockable_ctx(struct __tracy_lockable_context_data *lockdata, const char *name,
                                                  size_t nameSz);

TRACYC_API struct __tracy_shared_lockable_context_data *
___tracy_announce_shared_lockable_ctx(const struct ___tracy_source_location_data *srcloc);
TRACYC_API void ___tracy_terminate_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API int32_t ___tracy_before_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_unlock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_try_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata,
                                                            int32_t acquired);
TRACYC_API int32_t
___tracy_before_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void ___tracy_after_unlock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata);
TRACYC_API void
___tracy_after_try_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata,
                                                   int32_t acquired);
TRACYC_API void ___tracy_mark_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata,
                                                  const struct ___tracy_source_location_data *srcloc);
TRACYC_API void ___tracy_custom_name_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *lockdata,
                                                         const char *name, size_t nameSz);

/* CPU sampling and context switches run by themselves from the profiler's start (see the
 * top). end pauses both (the kernel's events are disabled in the call: nothing after it is
 * sampled); begin lets them run again, and returns 1 when they run, 0 when they cannot: turned off by
 * TRACY_NO_SAMPLING and TRACY_NO_CONTEXT_SWITCH (or TRACY_NO_SYS_TRACE), or refused by the
 * kernel at the last attempt. */
TRACYC_API int ___tracy_begin_sampling_profiling(void);
TRACYC_API void ___tracy_end_sampling_profiling(void);

/* Fibers: zones emitted between enter and leave belong to the fiber named fiber (a
 * string that must stay valid; its address identifies the fiber). They nest in the
 * fiber: a zone begun in it on one thread may end in it on another thread that entered
 * it later (hand it over: leave on one thread before entering on the next). Always
 * available, no TRACY_FIBERS needed. */
TRACYC_API void ___tracy_fiber_enter(const char *fiber);
TRACYC_API void ___tracy_fiber_leave(void);

/* The profiler's clock, in the units of the welcome's timer (nanoseconds x timerMul). */
TRACYC_API int64_t ___tracy_get_time(void);

/* -------------------------------------------------------------------------------- */
/* 2. Tracy 0.13 names still linked by existing Rust/Zig/Odin/OCaml bindings          */
/* -------------------------------------------------------------------------------- */
TRACYC_API void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth);
TRACYC_API void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth);
TRACYC_API void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth);
TRACYC_API void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth);
/* The same as ___tracy_begin_sampling_profiling and ___tracy_end_sampling_profiling. */
TRACYC_API int ___tracy_begin_sampling_profiler(void);
TRACYC_API void ___tracy_end_sampling_profiler(void);
TRACYC_API void ___tracy_init_thread(void);

/* -------------------------------------------------------------------------------- */
/* Macros                                                                             */
/* -------------------------------------------------------------------------------- */
#ifdef TRACY_MANUAL_LIFETIME
#define TracyCIsStarted ___tracy_profiler_started()
#else
#define TracyCIsStarted 1
#endif

#ifndef TracyConcat
#define TracyConcat(x, y) TracyConcatIndirect(x, y)
#endif
#ifndef TracyConcatIndirect
#define TracyConcatIndirect(x, y) x##y
#endif
#ifndef TRACY_CALLSTACK
#define TRACY_CALLSTACK 0
#endif

#define TracyCZoneNCS(ctx, name, color, depth, active)                                                                 \
    static const struct ___tracy_source_location_data TracyConcat(__tracy_source_location, TracyLine) = {              \
        name, __func__, TracyFile, (uint32_t)TracyLine, color};                                                        \
    TracyCZoneCtx ctx =                                                                                                \
        ___tracy_emit_zone_begin_callstack(&TracyConcat(__tracy_source_location, TracyLine), depth, active);
#define TracyCZone(ctx, active) TracyCZoneNCS(ctx, NULL, 0, TRACY_CALLSTACK, active)
#define TracyCZoneN(ctx, name, active) TracyCZoneNCS(ctx, name, 0, TRACY_CALLSTACK, active)
#define TracyCZoneC(ctx, color, active) TracyCZoneNCS(ctx, NULL, color, TRACY_CALLSTACK, active)
#define TracyCZoneNC(ctx, name, color, active) TracyCZoneNCS(ctx, name, color, TRACY_CALLSTACK, active)
#define TracyCZoneS(ctx, depth, active) TracyCZoneNCS(ctx, NULL, 0, depth, active)
#define TracyCZoneNS(ctx, name, depth, active) TracyCZoneNCS(ctx, name, 0, depth, active)
#define TracyCZoneCS(ctx, color, depth, active) TracyCZoneNCS(ctx, NULL, color, depth, active)

#define TracyCZoneEnd(ctx) ___tracy_emit_zone_end(ctx);
#define TracyCZoneText(ctx, txt, size) ___tracy_emit_zone_text(ctx, txt, size);
#define TracyCZoneTextF(ctx, fmt, ...) ___tracy_emit_zone_text_fmt(ctx, fmt, ##__VA_ARGS__);
#define TracyCZoneName(ctx, txt, size) ___tracy_emit_zone_name(ctx, txt, size);
#define TracyCZoneNameF(ctx, fmt, ...) ___tracy_emit_zone_name_fmt(ctx, fmt, ##__VA_ARGS__);
#define TracyCZoneColor(ctx, color) ___tracy_emit_zone_color(ctx, color);
#define TracyCZoneValue(ctx, value) ___tracy_emit_zone_value(ctx, value);

#ifdef TRACYC_MEMORY_ABI_0_13
#define TracyCAlloc(ptr, size) ___tracy_emit_memory_alloc_callstack(ptr, size, TRACY_CALLSTACK)
#define TracyCFree(ptr) ___tracy_emit_memory_free_callstack(ptr, TRACY_CALLSTACK)
#define TracyCMemoryDiscard(name) ___tracy_emit_memory_discard_callstack(name, 0, TRACY_CALLSTACK);
#define TracyCAllocN(ptr, size, name) ___tracy_emit_memory_alloc_callstack_named(ptr, size, TRACY_CALLSTACK, 0, name)
#define TracyCFreeN(ptr, name) ___tracy_emit_memory_free_callstack_named(ptr, TRACY_CALLSTACK, 0, name)
#define TracyCMemoryDiscardS(name, depth) ___tracy_emit_memory_discard_callstack(name, 0, depth)
#define TracyCAllocNS(ptr, size, depth, name) ___tracy_emit_memory_alloc_callstack_named(ptr, size, depth, 0, name)
#define TracyCFreeNS(ptr, depth, name) ___tracy_emit_memory_free_callstack_named(ptr, depth, 0, name)
#else
#define TracyCAlloc(ptr, size) ___tracy_emit_memory_alloc_callstack(ptr, size, TRACY_CALLSTACK)
#define TracyCFree(ptr) ___tracy_emit_memory_free_callstack(ptr, TRACY_CALLSTACK)
#define TracyCMemoryDiscard(name) ___tracy_emit_memory_discard_callstack(name, TRACY_CALLSTACK);
#define TracyCAllocN(ptr, size, name) ___tracy_emit_memory_alloc_callstack_named(ptr, size, TRACY_CALLSTACK, name)
#define TracyCFreeN(ptr, name) ___tracy_emit_memory_free_callstack_named(ptr, TRACY_CALLSTACK, name)
#define TracyCMemoryDiscardS(name, depth) ___tracy_emit_memory_discard_callstack(name, depth)
#define TracyCAllocNS(ptr, size, depth, name) ___tracy_emit_memory_alloc_callstack_named(ptr, size, depth, name)
#define TracyCFreeNS(ptr, depth, name) ___tracy_emit_memory_free_callstack_named(ptr, depth, name)
#endif
#define TracyCAllocS(ptr, size, depth) ___tracy_emit_memory_alloc_callstack(ptr, size, depth)
#define TracyCFreeS(ptr, depth) ___tracy_emit_memory_free_callstack(ptr, depth)

#define TracyCMessage(txt, size) ___tracy_emit_logString(TracyMessageSeverityInfo, 0, TRACY_CALLSTACK, size, txt)
#define TracyCMessageL(txt) ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, TRACY_CALLSTACK, txt)
#define TracyCMessageC(txt, size, color)                                                                               \
    ___tracy_emit_logString(TracyMessageSeverityInfo, color, TRACY_CALLSTACK, size, txt)
#define TracyCMessageLC(txt, color) ___tracy_emit_logStringL(TracyMessageSeverityInfo, color, TRACY_CALLSTACK, txt)
#define TracyCMessageS(txt, size, depth) ___tracy_emit_logString(TracyMessageSeverityInfo, 0, depth, size, txt)
#define TracyCMessageLS(txt, depth) ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, depth, txt)
#define TracyCMessageCS(txt, size, color, depth)                                                                       \
    ___tracy_emit_logString(TracyMessageSeverityInfo, color, depth, size, txt)
#define TracyCMessageLCS(txt, color, depth) ___tracy_emit_logStringL(TracyMessageSeverityInfo, color, depth, txt)

#define TracyCFrameMark ___tracy_emit_frame_mark(0);
#define TracyCFrameMarkNamed(name) ___tracy_emit_frame_mark(name);
#define TracyCFrameMarkStart(name) ___tracy_emit_frame_mark_start(name);
#define TracyCFrameMarkEnd(name) ___tracy_emit_frame_mark_end(name);
#define TracyCFrameImage(image, width, height, offset, flip)                                                           \
    ___tracy_emit_frame_image(image, width, height, offset, flip);

#define TracyCPlot(name, val) ___tracy_emit_plot(name, val);
#define TracyCPlotF(name, val) ___tracy_emit_plot_float(name, val);
#define TracyCPlotI(name, val) ___tracy_emit_plot_int(name, val);
#define TracyCPlotConfig(name, type, step, fill, color) ___tracy_emit_plot_config(name, type, step, fill, color);
#define TracyCAppInfo(txt, size) ___tracy_emit_message_appinfo(txt, size);

#define TracyCLockAnnounce(lock)                                                                                       \
    static const struct ___tracy_source_location_data TracyConcat(__tracy_source_location, TracyLine) = {              \
        NULL, __func__, TracyFile, (uint32_t)TracyLine, 0};                                                            \
    lock = ___tracy_announce_lockable_ctx(&TracyConcat(__tracy_source_location, TracyLine));
#define TracyCLockTerminate(lock) ___tracy_terminate_lockable_ctx(lock);
#define TracyCLockBeforeLock(lock) ___tracy_before_lock_lockable_ctx(lock);
#define TracyCLockAfterLock(lock) ___tracy_after_lock_lockable_ctx(lock);
#define TracyCLockAfterUnlock(lock) ___tracy_after_unlock_lockable_ctx(lock);
#define TracyCLockAfterTryLock(lock, acquired) ___tracy_after_try_lock_lockable_ctx(lock, acquired);
#define TracyCLockMark(lock)                                                                                           \
    static const struct ___tracy_source_location_data TracyConcat(__tracy_source_location, TracyLine) = {              \
        NULL, __func__, TracyFile, (uint32_t)TracyLine, 0};                                                            \
    ___tracy_mark_lockable_ctx(lock, &TracyConcat(__tracy_source_location, TracyLine));
#define TracyCLockCustomName(lock, name, nameSz) ___tracy_custom_name_lockable_ctx(lock, name, nameSz);

#define TracyCSharedLockAnnounce(lock)                                                                                 \
    static const struct ___tracy_source_location_data TracyConcat(__tracy_source_location, TracyLine) = {              \
        NULL, __func__, TracyFile, (uint32_t)TracyLine, 0};                                                            \
    lock = ___tracy_announce_shared_lockable_ctx(&TracyConcat(__tracy_source_location, TracyLine));
#define TracyCSharedLockTerminate(lock) ___tracy_terminate_shared_lockable_ctx(lock);
#define TracyCSharedLockBeforeLock(lock) ___tracy_before_lock_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterLock(lock) ___tracy_after_lock_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterUnlock(lock) ___tracy_after_unlock_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterTryLock(lock, acquired) ___tracy_after_try_lock_shared_lockable_ctx(lock, acquired);
#define TracyCSharedLockBeforeSharedLock(lock) ___tracy_before_lock_shared_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterSharedLock(lock) ___tracy_after_lock_shared_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterSharedUnlock(lock) ___tracy_after_unlock_shared_shared_lockable_ctx(lock);
#define TracyCSharedLockAfterTrySharedLock(lock, acquired)                                                             \
    ___tracy_after_try_lock_shared_shared_lockable_ctx(lock, acquired);
#define TracyCSharedLockMark(lock)                                                                                     \
    static const struct ___tracy_source_location_data TracyConcat(__tracy_source_location, TracyLine) = {              \
        NULL, __func__, TracyFile, (uint32_t)TracyLine, 0};                                                            \
    ___tracy_mark_shared_lockable_ctx(lock, &TracyConcat(__tracy_source_location, TracyLine));
#define TracyCSharedLockCustomName(lock, name, nameSz) ___tracy_custom_name_shared_lockable_ctx(lock, name, nameSz);

#define TracyCIsConnected ___tracy_connected()
#define TracyCBeginSamplingProfiling() ___tracy_begin_sampling_profiling()
#define TracyCEndSamplingProfiling() ___tracy_end_sampling_profiling()
#define TracyCFiberEnter(fiber) ___tracy_fiber_enter(fiber);
#define TracyCFiberLeave ___tracy_fiber_leave();

#else /* !TRACY_ENABLE: every macro compiles to nothing, as upstream */

#define TracyCIsStarted 0
#define TracyCZone(c, x)
#define TracyCZoneN(c, x, y)
#define TracyCZoneC(c, x, y)
#define TracyCZoneNC(c, x, y, z)
#define TracyCZoneEnd(c)
#define TracyCZoneText(c, x, y)
#define TracyCZoneTextF(c, x, ...)
#define TracyCZoneName(c, x, y)
#define TracyCZoneNameF(c, x, ...)
#define TracyCZoneColor(c, x)
#define TracyCZoneValue(c, x)
#define TracyCAlloc(x, y)
#define TracyCFree(x)
#define TracyCMemoryDiscard(x)
#define TracyCAllocN(x, y, z)
#define TracyCFreeN(x, y)
#define TracyCFrameMark
#define TracyCFrameMarkNamed(x)
#define TracyCFrameMarkStart(x)
#define TracyCFrameMarkEnd(x)
#define TracyCFrameImage(x, y, z, w, a)
#define TracyCPlot(x, y)
#define TracyCPlotF(x, y)
#define TracyCPlotI(x, y)
#define TracyCPlotConfig(x, y, z, w, a)
#define TracyCMessage(x, y)
#define TracyCMessageL(x)
#define TracyCMessageC(x, y, z)
#define TracyCMessageLC(x, y)
#define TracyCAppInfo(x, y)
#define TracyCZoneS(x, y, z)
#define TracyCZoneNS(x, y, z, w)
#define TracyCZoneCS(x, y, z, w)
#define TracyCZoneNCS(x, y, z, w, a)
#define TracyCAllocS(x, y, z)
#define TracyCFreeS(x, y)
#define TracyCMemoryDiscardS(x, y)
#define TracyCAllocNS(x, y, z, w)
#define TracyCFreeNS(x, y, z)
#define TracyCMessageS(x, y, z)
#define TracyCMessageLS(x, y)
#define TracyCMessageCS(x, y, z, w)
#define TracyCMessageLCS(x, y, z)
#define TracyCLockCtx(l)
#define TracyCLockAnnounce(l)
#define TracyCLockTerminate(l)
#define TracyCLockBeforeLock(l)
#define TracyCLockAfterLock(l)
#define TracyCLockAfterUnlock(l)
#define TracyCLockAfterTryLock(l, x)
#define TracyCLockMark(l)
#define TracyCLockCustomName(l, x, y)
#define TracyCSharedLockCtx(l)
#define TracyCSharedLockAnnounce(l)
#define TracyCSharedLockTerminate(l)
#define TracyCSharedLockBeforeLock(l)
#define TracyCSharedLockAfterLock(l)
#define TracyCSharedLockAfterUnlock(l)
#define TracyCSharedLockAfterTryLock(l, x)
#define TracyCSharedLockBeforeSharedLock(l)
#define TracyCSharedLockAfterSharedLock(l)
#define TracyCSharedLockAfterSharedUnlock(l)
#define TracyCSharedLockAfterTrySharedLock(l, x)
#define TracyCSharedLockMark(l)
#define TracyCSharedLockCustomName(l, x, y)
#define TracyCIsConnected 0
#define TracyCBeginSamplingProfiling() 0
#define TracyCEndSamplingProfiling()
#define TracyCFiberEnter(fiber)
#define TracyCFiberLeave

#endif /* TRACY_ENABLE */

/* ------------------------------------------------------------------------------------ */
/* 3. tracyc additions (always declared)                                                 */
/* ------------------------------------------------------------------------------------ */

/* Start the in-process capture: everything the program records from now on is decoded
 * in-process and written to path when the profiler shuts down (process exit or
 * ___tracy_shutdown_profiler). The format follows the extension: .pftrace (Perfetto's
 * own), .json (Chrome Trace Event, which Perfetto opens too), .csv (Tracy zone statistics),
 * .folded (CPU samples as folded stacks), .svg (their flame graph), .txt or none a text
 * summary; "-" is the summary on stdout. A relative path is taken from the current
 * directory now. The file is written whole at the end (under a temporary name, then
 * renamed); nothing is created before. Same as setting TRACYC_OUTPUT. Returns 0, or -1 with
 * tracyc_last_error() set (an extension of another format such as .tracy, path not
 * writable, capture already running, library disabled). */
TRACYC_API int tracyc_capture_start(const char *path);
/* Whether tracyc_capture_start(path) could write path: a supported format and a place that
 * can be written. Starts nothing, creates nothing. Returns 0, or -1 with tracyc_last_error()
 * saying why. For tools that check their options before running a program. */
TRACYC_API int tracyc_output_check(const char *path);
/* on != 0: the in-process capture (TRACYC_OUTPUT, or tracyc_capture_start called before)
 * also records the program's child processes into its file, each as a process of its own,
 * on the program's clock. tracyc listens on a free port of 127.0.0.1 and sets
 * TRACYC_CONNECT=127.0.0.1:<port> in the environment, so children that profile themselves
 * (programs started with this environment, and forked children with TRACYC_FOLLOW_FORK=1)
 * dial it instead of writing files of their own. Children still connected when the program
 * exits get a second to finish, then are cut (their file section says so). on == 0: children
 * started from now on are not recorded (TRACYC_CONNECT is removed). The same as
 * TRACYC_FOLLOW_FORK=1 with TRACYC_OUTPUT. Returns 0, or -1 with tracyc_last_error() set (no
 * in-process capture, library disabled, no socket). */
TRACYC_API int tracyc_collect_children(int on);

/* Zones with timestamps the caller took earlier with ___tracy_get_time(), for tools that
 * decide after the fact whether to record a zone (e.g. only zones longer than a minimum).
 * Nesting rules are those of ___tracy_emit_zone_begin/end; times must not go backwards
 * within a thread. */
TRACYC_API struct ___tracy_c_zone_context tracyc_zone_begin_at(const struct ___tracy_source_location_data *srcloc,
                                                               int64_t time);
TRACYC_API void tracyc_zone_end_at(struct ___tracy_c_zone_context ctx, int64_t time);

/* Sections (Tracy 0.14): a named span of a category that may cross zone boundaries, left
 * on any thread. enter returns the id to pass to leave, or 0 when nothing was recorded
 * (profiling off, the buffer limit reached, text NULL); leave returns 0, or -1 with
 * tracyc_last_error() set when the section is not open (left already, or never entered):
 * that leave is not sent. Leaving 0 does nothing. setup describes a category. Text is
 * copied. Upstream has these in its C++ and Lua APIs only. */
TRACYC_API uint32_t tracyc_section_enter(uint16_t category, const char *text, size_t len);
TRACYC_API int tracyc_section_leave(uint32_t id);
TRACYC_API void tracyc_section_setup(uint16_t category, const char *text, size_t len);

/* Samples of stacks whose frames the program names itself: an interpreter's or a virtual
 * machine's functions, which no symbol table knows. A sampler records each sample with
 * tracyc_sample_record, its frames as addresses from a range it registered with
 * tracyc_frames_register; when a server asks what such an address is (Tracy's
 * CallstackFrame and Symbol queries), the client calls the range's resolver. Servers show
 * these samples like the CPU samples of native code: statistics, flame graphs, the
 * summary's "top functions by samples", folded stacks.
 *
 * A frame, as the resolver describes it. The strings need not end with a NUL; they must
 * stay valid until the resolver returns (the client copies them). */
struct tracyc_frame {
    const char *function; /* the function's name */
    size_t function_len;
    const char *file; /* its source file */
    size_t file_len;
    uint32_t line;   /* the line being executed; 0 if unknown */
    uint64_t symbol; /* an address of the same range standing for the whole function: samples
                        are counted per function by it, and the resolver is asked about it too
                        (its file and line, the function's definition); 0 if none */
};
/* Fills *frame for address and returns 0, or returns -1 when it does not know the address
 * (it is then shown as unknown). Called on the profiler's own thread, at any time after the
 * sample (a server may ask long after): it must be thread-safe, quick, and must not call
 * tracyc. */
typedef int (*tracyc_frame_resolver)(void *user, uint64_t address, struct tracyc_frame *frame);

/* Registers the addresses [first, last] as frames resolve() names, reported as the image
 * (binary) image. The range must lie within [0x0200000000000000, 0x0FFFFFFFFFFFFFFF],
 * addresses that no machine code has on any 64-bit system tracyc runs on; at most 8
 * ranges, not overlapping. A registration lasts for the process's life. Returns 0, or -1
 * with tracyc_last_error() set. */
TRACYC_API int tracyc_frames_register(uint64_t first, uint64_t last, const char *image, size_t image_len,
                                      tracyc_frame_resolver resolve, void *user);
/* Records one CPU sample of thread (an OS thread id, as the server's thread ids are) taken
 * at time (___tracy_get_time()): count frame addresses, innermost first (1 to 8191).
 * Samples of one thread must be recorded in time order. The frames may be any addresses,
 * registered ones or native ones. Callable from any thread. Returns 0, or -1 when the
 * sample is not recorded (invalid arguments, profiler off, buffer limit reached: counted
 * as dropped). */
TRACYC_API int tracyc_sample_record(uint32_t thread, int64_t time, const uint64_t *frames, uint32_t count);
/* Names thread (an OS thread id of this process) in the profile, as
 * ___tracy_set_thread_name does for the calling thread. */
TRACYC_API void tracyc_thread_name_set(uint32_t thread, const char *name, size_t len);
/* Names the program in the welcome a server or collector gets from now on (at most 63
 * bytes; NULL or "" goes back to the executable's name, the default): a collector labels
 * the process "name[pid]". For an interpreter, whose executable says little (python3),
 * the script it runs. */
TRACYC_API void tracyc_program_name_set(const char *name, size_t len);

/* The OS thread ids of the profiler's own threads running now (its worker, its CPU sampler,
 * its symbol resolver), for code that counts a process's threads and must leave the
 * profiler's out (CPython 3.12+ warns at fork() when a process has several threads). Up
 * to cap ids go to tids (which may be NULL); returns how many threads there are. A thread
 * is listed from the moment it exists until it has ended. Starts nothing. */
TRACYC_API size_t tracyc_own_threads(uint32_t *tids, size_t cap);

/* Number of events dropped because the buffer limit (TRACYC_BUFFER_LIMIT, plus the reserve
 * for zone ends) was reached. */
TRACYC_API uint64_t tracyc_dropped_events(void);

/* 1 when TRACYC_DISABLE made the library inert. */
TRACYC_API int tracyc_disabled(void);

/* A readable description of the last error of the calling thread, "" if none. */
TRACYC_API const char *tracyc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACYC_H */
