/* Symbols of frames in libraries loaded after start-up (docs/protocol.md §26.3), through
 * the whole client path (capture, CallstackFrame query, resolver thread), checked with a
 * raw server: a library with debug information (function, file, line), one without (the
 * symbol table's names, C++ and Rust ones demangled), a stripped one (each address of a
 * function no symbol names is its own entry, image+offset), one unloaded before its frames are
 * resolved ("[unknown]", no crash), an address in anonymous executable memory as a JIT
 * would use ("[unknown]"); and the demangler on its own. */
#include "native/demangle.h"
#include "native/symbols.h"
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef void (*symlib_emit)(void);
typedef int (*symlib_fn)(symlib_emit);
typedef int (*symlib_static_fn)(symlib_emit, int);

static struct tr_server srv;
static size_t scan;
static const struct ___tracy_source_location_data loc = {"sym zone", "emit", "t.c", 1, 0};

/* Takes a 3-frame callstack: this function, the library's, the test's caller. */
static __attribute__((noinline)) void emit(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 3, 1);
    ___tracy_emit_zone_end(z);
}

/* The frames of the next callstack payload. */
static int next_frames(uint64_t *frames, int max)
{
    for (int round = 0; round < 100; round++) {
        struct tr_item it;
        while (tr_next(&srv, &scan, &it))
            if (it.type == TCW_CallstackPayload) {
                int n = tcu_rd16(it.p + 9) / 8;
                for (int i = 0; i < n && i < max; i++)
                    frames[i] = tcu_rd64(it.p + 11 + 8 * i);
                return n;
            }
        if (tr_pump(&srv, 50) < 0)
            return 0;
    }
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Calls fn (in a library) and asks what its frame (the second) is. */
static int frame_in(symlib_fn fn, struct tr_frames *r, uint64_t *address)
{
    fn(emit);
    uint64_t frames[8];
    int n = next_frames(frames, 8);
    if (n < 2)
        return 0;
    *address = frames[1];
    return tr_ask_frame(&srv, frames[1], r);
}

/* What perf calls an address no symbol covers: its file and the offset in it
 * ("libz.so.1.2.13+0x4a26"). */
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

/* Two functions of a stripped library that no symbol names: an entry each, not one
 * "[libsymlib_stripped.so]" for both (as zlib's were). */
static void check_stripped(void)
{
    void *stripped = dlopen(getenv("SYMLIB_STRIPPED"), RTLD_NOW);
    CHECK(stripped != NULL);
    symlib_static_fn fn = stripped ? (symlib_static_fn)dlsym(stripped, "symlib_stripped_static") : NULL;
    CHECK(fn != NULL);
    if (!fn)
        return;
    char names[2][300];
    for (int which = 1; which <= 2; which++) {
        fn(emit, which);
        uint64_t frames[8];
        struct tr_frames r;
        char want[128];
        CHECK(next_frames(frames, 8) >= 3 && tr_ask_frame(&srv, frames[1], &r));
        offset_name(frames[1], want, sizeof want);
        CHECK_STR(r.frames[0].name, want);
        CHECK_EQ_INT(r.frames[0].sym_addr, 0);
        tt_check(ends_with(r.image, "libsymlib_stripped.so"), "image %s", r.image);
        snprintf(names[which - 1], sizeof names[0], "%s", r.frames[0].name);
        /* The function that called them is exported: named by the dynamic symbol table. */
        CHECK(tr_ask_frame(&srv, frames[2], &r));
        CHECK_STR(r.frames[0].name, "symlib_stripped_static");
    }
    tt_check(strcmp(names[0], names[1]) != 0, "the two functions are apart: %s, %s", names[0], names[1]);
}

static void check_demangler(void)
{
    static const struct {
        const char *mangled, *readable;
    } names[] = {
        {"_ZN6tracyc4demo5innerEi", "tracyc::demo::inner(int)"},
        {"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)"},
        {"_ZN6tracyc4demo4rust17h0123456789abcdefE", "tracyc::demo::rust"},
        {"_RNvNtC6tracyc4demo2v0", "tracyc::demo::v0"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *out = tcn_demangle(names[i].mangled);
        CHECK_STR(out, names[i].readable);
        free(out);
    }
    CHECK(tcn_demangle("main") == NULL);
    CHECK(tcn_demangle("_Znot a name") == NULL);
    CHECK(tcn_demangle("_R") == NULL);
    CHECK(tcn_demangle(NULL) == NULL);
}

int main(void)
{
    if (!getenv("SYMLIB_DEBUG") || !getenv("SYMLIB_PLAIN") || !getenv("SYMLIB_STRIPPED") || !getenv("SYMLIB_UNLOAD")) {
        fprintf(
            stderr,
            "test_symbols: SYMLIB_DEBUG, SYMLIB_PLAIN, SYMLIB_STRIPPED and SYMLIB_UNLOAD name the test libraries\n");
        return 2;
    }
    unsetenv("DEBUGINFOD_URLS");
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    check_demangler();
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    /* The resolver has read the module list before the libraries exist. */
    struct tr_frames r;
    emit();
    uint64_t frames[8];
    CHECK(next_frames(frames, 8) >= 1 && tr_ask_frame(&srv, frames[0], &r));
    CHECK_STR(r.frames[0].name, "emit");

    /* Loaded after start-up, with debug information. */
    void *debug = dlopen(getenv("SYMLIB_DEBUG"), RTLD_NOW);
    CHECK(debug != NULL);
    uint64_t address;
    symlib_fn fn = debug ? (symlib_fn)dlsym(debug, "symlib_debug_entry") : NULL;
    CHECK(fn && frame_in(fn, &r, &address));
    CHECK_STR(r.frames[0].name, "symlib_debug_entry");
    tt_check(ends_with(r.frames[0].file, "symlib.c") && r.frames[0].line > 0, "%s:%u", r.frames[0].file,
             r.frames[0].line);
    tt_check(ends_with(r.image, "libsymlib_debug.so"), "image %s", r.image);
    CHECK_EQ_INT(r.frames[0].sym_addr, (uint64_t)(uintptr_t)fn);

    /* Without debug information: the symbol table, demangled. */
    void *plain = dlopen(getenv("SYMLIB_PLAIN"), RTLD_NOW);
    CHECK(plain != NULL);
    static const struct {
        const char *symbol, *name;
    } plain_fns[] = {{"symlib_plain_entry", "symlib_plain_entry"},
                     {"_ZN6tracyc4demo5innerEi", "tracyc::demo::inner(int)"},
                     {"_ZN6tracyc4demo4rust17h0123456789abcdefE", "tracyc::demo::rust"}};
    for (size_t i = 0; i < 3; i++) {
        fn = plain ? (symlib_fn)dlsym(plain, plain_fns[i].symbol) : NULL;
        CHECK(fn && frame_in(fn, &r, &address));
        CHECK_STR(r.frames[0].name, plain_fns[i].name);
        CHECK_STR(r.frames[0].file, "[unknown]");
        CHECK_EQ_INT(r.frames[0].line, 0);
        CHECK_EQ_INT(r.frames[0].sym_addr, (uint64_t)(uintptr_t)fn);
        CHECK(r.frames[0].sym_len > 0);
        tt_check(ends_with(r.image, "libsymlib_plain.so"), "image %s", r.image);
    }

    check_stripped();

    /* Resolving never loads libdebuginfod: its start-up (curl, OpenSSL) in the resolver's
     * thread crashed programs exiting meanwhile. */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int debuginfod = 0;
    while (maps && fgets(line, sizeof line, maps))
        debuginfod |= strstr(line, "libdebuginfod") != NULL;
    if (maps)
        fclose(maps);
    tt_check(!debuginfod, "libdebuginfod was loaded while resolving symbols");

    /* The files read for symbols are not mapped again: perf's unwinder would take such a
     * copy for the library's load address and cut its callstacks of this program short. */
    char again[256] = "";
    int copies = tt_loaded_files_mapped_again(again, sizeof again);
    tt_check(copies == 0, "%d loaded files mapped again while resolving symbols (%s)", copies, again);

    /* Unloaded before its frames are resolved: a defined answer, no crash. The address is
     * what is mapped there when the resolver looks: nothing ("[unknown]"), or another
     * library the loader has put there since (libdw itself loads one when resolving). */
    void *gone = dlopen(getenv("SYMLIB_UNLOAD"), RTLD_NOW);
    fn = gone ? (symlib_fn)dlsym(gone, "symlib_unload_entry") : NULL;
    CHECK(fn != NULL);
    if (fn) {
        fn(emit);
        CHECK(next_frames(frames, 8) >= 2);
        dlclose(gone);
        CHECK(tr_ask_frame(&srv, frames[1], &r));
        CHECK(r.count >= 1);
        tt_check(strstr(r.image, "symlib_unload") == NULL && strcmp(r.frames[0].name, "symlib_unload_entry") != 0 &&
                     (strcmp(r.image, "[unknown]") != 0 || strcmp(r.frames[0].name, "[unknown]") == 0),
                 "unloaded library's frame: %s in %s", r.frames[0].name, r.image);
    }

    /* Executable memory of no file, as a JIT compiler would make. */
    uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(jit != MAP_FAILED);
    CHECK(tr_ask_frame(&srv, (uint64_t)(uintptr_t)(jit + 100), &r));
    CHECK_STR(r.image, "[unknown]");
    CHECK_STR(r.frames[0].name, "[unknown]");
    CHECK_EQ_INT(r.frames[0].sym_addr, 0);

    tr_finish(&srv, 5);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return tt_finish("test_symbols");
}
