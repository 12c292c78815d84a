/* Without libdw (the loader is pointed at a library that does not exist, as on a system
 * without elfutils' libdw1), checked with raw servers (docs/protocol.md §26.3, §26.4, §26.6):
 *   - frames still resolve, to what the dynamic loader knows: the image and the exported
 *     symbol (demangled, with its address and size), "image+0x<offset>" for an address in
 *     a function the file keeps to itself (each address its own entry, as perf shows them),
 *     "[unknown]" outside any file; Symbol queries answer "[unknown]";
 *   - CPU samples still arrive, with the kernel's frame-pointer callchain (this file is
 *     built with frame pointers): the busy function and its caller; a frame pointer that
 *     points at no frame (as in code built without them) leaves no garbage frame;
 *   - each server gets one message that says why, the second server too.
 * With --wrong-library the loader finds a library that is not libdw (libc): the message
 * names the first function missing, and frames resolve as above.
 */
#include "native/libdw.h"
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Each function is found by its symbol's extent, so no call may go to a copy: at -O3
 * GCC would call spin_framed.constprop.0, a local copy specialised for the constant
 * argument, and no sample would fall in spin_framed itself. */
#if __has_attribute(noclone)
#define EXPORTED __attribute__((noinline, noclone, visibility("default")))
#else
#define EXPORTED __attribute__((noinline, visibility("default")))
#endif

typedef void (*symlib_emit)(void);
typedef int (*symlib_fn)(symlib_emit);
typedef int (*symlib_static_fn)(symlib_emit, int);

static struct tr_server srv;
static size_t scan;
static const struct ___tracy_source_location_data loc = {"no libdw", "emit", "t.c", 1, 0};

/* Takes a callstack whose first frame is here. */
EXPORTED void emit(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 3, 1);
    ___tracy_emit_zone_end(z);
    __asm__ volatile("" ::: "memory");
}

/* The same from a function no symbol table of the loader names. */
static __attribute__((noinline)) void hidden_emit(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 3, 1);
    ___tracy_emit_zone_end(z);
    __asm__ volatile("" ::: "memory");
}

/* ---- the program being sampled --------------------------------------------------------- */

static _Atomic int spinning = 1;
static _Atomic uint32_t spinner_tid;

/* A variable on the stack gives even this leaf function its frame. */
EXPORTED void spin_framed(uint64_t n)
{
    volatile uint64_t x = n;
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
}

EXPORTED void *spin_caller(void *arg)
{
    (void)arg;
    atomic_store(&spinner_tid, (uint32_t)syscall(SYS_gettid));
    while (atomic_load_explicit(&spinning, memory_order_relaxed))
        spin_framed(100000);
    __asm__ volatile("" ::: "memory");
    return NULL;
}

/* Spins with the frame pointer at a "frame" whose return address is 0x10, where no code
 * is, and whose next frame is none: what the kernel reads when code without frame
 * pointers uses the register for data. */
#define GARBAGE_RETURN 0x10
static _Atomic uint32_t garbage_tid;

EXPORTED void spin_bad_frame_pointer(uint64_t n)
{
    static const uint64_t fake_frame[2] = {0, GARBAGE_RETURN};
#if defined(__x86_64__)
    __asm__ volatile("mov %%rbp, %%r11\n\t"
                     "mov %1, %%rbp\n\t"
                     "1: dec %0\n\t"
                     "jnz 1b\n\t"
                     "mov %%r11, %%rbp"
                     : "+r"(n)
                     : "r"(fake_frame)
                     : "r11", "cc", "memory");
#elif defined(__aarch64__)
    __asm__ volatile("mov x9, x29\n\t"
                     "mov x29, %1\n\t"
                     "1: subs %0, %0, #1\n\t"
                     "b.ne 1b\n\t"
                     "mov x29, x9"
                     : "+r"(n)
                     : "r"(fake_frame)
                     : "x9", "cc", "memory");
#else
    (void)fake_frame;
    (void)n;
#endif
}

EXPORTED void *spin_garbage(void *arg)
{
    (void)arg;
    atomic_store(&garbage_tid, (uint32_t)syscall(SYS_gettid));
    while (atomic_load_explicit(&spinning, memory_order_relaxed))
        spin_bad_frame_pointer(1000000);
    __asm__ volatile("" ::: "memory");
    return NULL;
}

/* ---- reading the log ------------------------------------------------------------------- */

/* The frames of the next callstack payload of an event (not of a sample). */
static int next_frames(uint64_t *frames, int max)
{
    for (int round = 0; round < 100; round++) {
        struct tr_item it;
        int n = -1;
        while (tr_next(&srv, &scan, &it)) {
            if (it.type == TCW_CallstackPayload) {
                n = tcu_rd16(it.p + 9) / 8;
                for (int i = 0; i < n && i < max; i++)
                    frames[i] = tcu_rd64(it.p + 11 + 8 * i);
            } else if (n >= 0 && it.type == TCW_Callstack) {
                return n;
            } else {
                n = -1;
            }
        }
        if (tr_pump(&srv, 50) < 0)
            return 0;
    }
    return 0;
}

static const char message_prefix[] = "tracyc: symbols and sample stacks limited: ";

/* The messages that say libdw is missing, and the last one's text. */
static int limited_messages(char *text, size_t cap)
{
    int count = 0;
    size_t pos = 0;
    struct tr_item it, single = {0};
    while (tr_next(&srv, &pos, &it)) {
        if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData) {
            single = it;
        } else if (it.type == TCW_Message) {
            size_t len;
            const char *s = tr_item_text(&single, &len);
            if (len > sizeof message_prefix - 1 && memcmp(s, message_prefix, sizeof message_prefix - 1) == 0) {
                count++;
                snprintf(text, cap, "%.*s", (int)len, s);
            }
        }
    }
    return count;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* ---- the checks ------------------------------------------------------------------------ */

/* What perf calls an address no symbol covers: its file and the offset in it. */
static void offset_name(uint64_t address, char *out, size_t len)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1((void *)(uintptr_t)address, &info, (void **)&map, RTLD_DL_LINKMAP) || !map) {
        snprintf(out, len, "?");
        return;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    snprintf(out, len, "%s+0x%" PRIx64, slash ? slash + 1 : info.dli_fname, address - (uint64_t)map->l_addr);
}

static void check_frames(void)
{
    struct tr_frames r;
    uint64_t frames[8];
    emit();
    CHECK(next_frames(frames, 8) >= 1 && tr_ask_frame(&srv, frames[0], &r));
    CHECK_STR(r.frames[0].name, "emit");
    CHECK_STR(r.frames[0].file, "[unknown]");
    CHECK_EQ_INT(r.frames[0].line, 0);
    CHECK_EQ_INT(r.frames[0].sym_addr, (uint64_t)(uintptr_t)emit);
    CHECK_EQ_INT(r.frames[0].sym_len, tt_function_extent((void *)emit).hi - tt_function_extent((void *)emit).lo);
    CHECK_EQ_INT(r.count, 1);
    tt_check(ends_with(r.image, "/test_no_libdw"), "the program's image: %s", r.image);
    char file[256];
    uint32_t line = 1;
    CHECK(tr_ask_symbol(&srv, r.frames[0].sym_addr, file, sizeof file, &line));
    CHECK_STR(file, "[unknown]");
    CHECK_EQ_INT(line, 0);

    hidden_emit();
    char want[128];
    CHECK(next_frames(frames, 8) >= 1 && tr_ask_frame(&srv, frames[0], &r));
    offset_name(frames[0], want, sizeof want);
    CHECK_STR(r.frames[0].name, want);
    CHECK_EQ_INT(r.frames[0].sym_addr, 0);

    /* A stripped library's two functions of its own: apart, each by its offset. */
    void *stripped = dlopen(getenv("SYMLIB_STRIPPED"), RTLD_NOW);
    symlib_static_fn in_stripped = stripped ? (symlib_static_fn)dlsym(stripped, "symlib_stripped_static") : NULL;
    CHECK(in_stripped != NULL);
    char seen[2][300] = {"", ""};
    for (int which = 1; in_stripped && which <= 2; which++) {
        in_stripped(emit, which);
        CHECK(next_frames(frames, 8) >= 2 && tr_ask_frame(&srv, frames[1], &r));
        offset_name(frames[1], want, sizeof want);
        CHECK_STR(r.frames[0].name, want);
        snprintf(seen[which - 1], sizeof seen[0], "%s", r.frames[0].name);
    }
    tt_check(strcmp(seen[0], seen[1]) != 0, "a stripped library's two functions apart: %s, %s", seen[0], seen[1]);

    /* A library loaded now: its exported functions, mangled names demangled. */
    void *plain = dlopen(getenv("SYMLIB_PLAIN"), RTLD_NOW);
    CHECK(plain != NULL);
    static const struct {
        const char *symbol, *name;
    } fns[] = {{"symlib_plain_entry", "symlib_plain_entry"},
               {"_ZN6tracyc4demo5innerEi", "tracyc::demo::inner(int)"},
               {"_ZN6tracyc4demo4rust17h0123456789abcdefE", "tracyc::demo::rust"}};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        symlib_fn fn = plain ? (symlib_fn)dlsym(plain, fns[i].symbol) : NULL;
        CHECK(fn != NULL);
        if (!fn)
            continue;
        fn(emit);
        CHECK(next_frames(frames, 8) >= 2 && tr_ask_frame(&srv, frames[1], &r));
        CHECK_STR(r.frames[0].name, fns[i].name);
        CHECK_EQ_INT(r.frames[0].sym_addr, (uint64_t)(uintptr_t)fn);
        CHECK(r.frames[0].sym_len > 0);
        tt_check(ends_with(r.image, "libsymlib_plain.so"), "image %s", r.image);
    }

    /* Executable memory of no file. */
    uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(jit != MAP_FAILED);
    CHECK(tr_ask_frame(&srv, (uint64_t)(uintptr_t)(jit + 100), &r));
    CHECK_STR(r.image, "[unknown]");
    CHECK_STR(r.frames[0].name, "[unknown]");
}

/* Samples of a thread spinning in spin_framed, called by spin_caller. */
static void check_samples(void)
{
    int64_t period;
    memcpy(&period, srv.welcome + TCW_WELCOME_SAMPLING, 8);
    if (!tt_sampling_expected()) {
        CHECK_EQ_INT(period, 0);
        tt_check(1, "sampling is refused to this user here: samples are not checked");
        return;
    }
    CHECK_EQ_INT(period, 500000); /* 2 kHz */
    pthread_t t, g;
    pthread_create(&t, NULL, spin_caller, NULL);
    pthread_create(&g, NULL, spin_garbage, NULL);
    struct timespec run = {0, 300 * 1000 * 1000};
    nanosleep(&run, NULL);
    atomic_store(&spinning, 0);
    pthread_join(t, NULL);
    pthread_join(g, NULL);
    for (int i = 0; i < 5; i++)
        tr_pump(&srv, 100);

    struct tt_extent busy = tt_function_extent((void *)spin_framed), caller = tt_function_extent((void *)spin_caller);
    struct tt_extent bad = tt_function_extent((void *)spin_bad_frame_pointer);
    uint32_t tid = atomic_load(&spinner_tid), bad_tid = atomic_load(&garbage_tid);
    size_t pos = 0, in_busy = 0, with_caller = 0, in_bad = 0, garbage = 0;
    uint64_t payload[128], busy_frame = 0;
    int count = 0;
    struct tr_item it;
    while (tr_next(&srv, &pos, &it)) {
        if (it.type == TCW_CallstackPayload) {
            count = tcu_rd16(it.p + 9) / 8;
            if (count > 128)
                count = 128;
            for (int i = 0; i < count; i++)
                payload[i] = tcu_rd64(it.p + 11 + 8 * i);
        } else if ((it.type == TCW_CallstackSample || it.type == TCW_CallstackSample32 ||
                    it.type == TCW_CallstackSample16) &&
                   count > 0) {
            uint32_t thread = tcu_rd32(it.p + 1);
            if (thread == tid && payload[0] >= busy.lo && payload[0] < busy.hi) {
                in_busy++;
                busy_frame = payload[0];
                with_caller += count >= 2 && payload[1] >= caller.lo && payload[1] < caller.hi;
            }
            if (thread == bad_tid) {
                in_bad += payload[0] >= bad.lo && payload[0] < bad.hi;
                for (int i = 1; i < count; i++)
                    garbage += payload[i] == GARBAGE_RETURN - 1;
            }
        }
    }
    tt_check(in_busy > 0 && with_caller * 2 > in_busy, "%zu samples in spin_framed, %zu of them called by spin_caller",
             in_busy, with_caller);
#if defined(__x86_64__) || defined(__aarch64__)
    tt_check(in_bad > 0 && garbage == 0, "%zu samples with a bad frame pointer, %zu garbage frames sent", in_bad,
             garbage);
#endif
    struct tr_frames r;
    CHECK(busy_frame && tr_ask_frame(&srv, busy_frame, &r));
    CHECK_STR(r.frames[0].name, "spin_framed");
}

static int run(int wrong_library)
{
    const char *soname = wrong_library ? "libc.so.6" : "libtracyc-test-absent.so.1";
    tcn_libdw_use_for_tests(soname);
    char expected[300];
    if (wrong_library)
        snprintf(expected, sizeof expected,
                 "%slibc.so.6 has no dwfl_begin@ELFUTILS_0.122 (elfutils' libdw1 0.158 or later needed)",
                 message_prefix);
    else
        snprintf(expected, sizeof expected, "%s%s not found (install elfutils' libdw1)", message_prefix, soname);
    setenv("TRACY_SAMPLING_HZ", "2000", 1);
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    check_frames();
    if (!wrong_library)
        check_samples();
    char text[512] = "";
    tr_pump(&srv, 200);
    CHECK_EQ_INT(limited_messages(text, sizeof text), 1);
    CHECK_STR(text, expected);
    tr_finish(&srv, 10);
    tr_free(&srv);

    /* The next server is told too, once. */
    scan = 0;
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    struct tr_frames r;
    uint64_t frames[8];
    emit();
    CHECK(next_frames(frames, 8) >= 1 && tr_ask_frame(&srv, frames[0], &r));
    CHECK_STR(r.frames[0].name, "emit");
    tr_pump(&srv, 200);
    text[0] = 0;
    CHECK_EQ_INT(limited_messages(text, sizeof text), 1);
    CHECK_STR(text, expected);
    tr_finish(&srv, 10);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return tt_finish(wrong_library ? "test_no_libdw --wrong-library" : "test_no_libdw");
}

int main(int argc, char **argv)
{
    if (!getenv("SYMLIB_PLAIN") || !getenv("SYMLIB_STRIPPED")) {
        fprintf(stderr, "test_no_libdw: SYMLIB_PLAIN and SYMLIB_STRIPPED name the test libraries\n");
        return 2;
    }
    return run(argc > 1 && strcmp(argv[1], "--wrong-library") == 0);
}
