/* The six memory functions whose signature changed in Tracy 0.14, called from C in both
 * forms against the default library (issue 11 item 3, issue 12 item 2): what a program
 * built against Tracy 0.13's TracyC.h (an `int32_t secure` before the name) and one built
 * against 0.14's (no secure) put in the argument registers, including what the ABI leaves
 * unspecified: the upper 32 bits of a 32-bit argument (here set to garbage), and the
 * register after a 0.14 call's last argument (here garbage too). Every event must land in
 * the right pool. Before the library served both forms, a 0.13 call crashed it (the
 * `secure` value 0 or 1 was taken as the name pointer). */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(_WIN32)

/* The forms, as a caller of each release compiles them; "dirty" passes the 32-bit
 * `secure` in a 64-bit register whose upper half holds garbage, "junk" fills the register
 * after a 0.14 call's last argument. */
typedef void (*alloc14_fn)(const void *, size_t, const char *, uint64_t junk);
typedef void (*alloc13_fn)(const void *, size_t, int32_t, const char *);
typedef void (*alloc13_dirty_fn)(const void *, size_t, uint64_t, const char *);
typedef void (*alloc_cs14_fn)(const void *, size_t, int32_t, const char *, uint64_t junk);
typedef void (*alloc_cs13_fn)(const void *, size_t, int32_t, uint64_t, const char *);
typedef void (*free14_fn)(const void *, const char *, uint64_t junk);
typedef void (*free13_fn)(const void *, uint64_t, const char *);
typedef void (*free_cs14_fn)(const void *, int32_t, const char *, uint64_t junk);
typedef void (*free_cs13_fn)(const void *, int32_t, uint64_t, const char *);
typedef void (*discard14_fn)(const char *, uint64_t junk);
typedef void (*discard13_fn)(const char *, int32_t);
typedef void (*discard_cs14_fn)(const char *, int32_t, uint64_t junk);
typedef void (*discard_cs13_fn)(const char *, int32_t, int32_t);

/* Through a volatile pointer: the compiler must not see which function it calls, or it
 * would treat the mismatch as undefined behaviour and drop the call. */
typedef void (*any_fn)(void);
static any_fn volatile target;
static any_fn hide(any_fn fn)
{
    target = fn;
    return target;
}
#define AS(type, fn) ((type)hide((any_fn)(fn)))
#define DIRTY(secure) (0xdeadbeef00000000ull | (secure)) /* upper half: garbage */
#define JUNK 0x00007f0000001000ull                       /* a plausible but wrong pointer */

static const char pool14[] = "pool 0.14", pool13[] = "pool 0.13";

struct expect {
    uint64_t address;
    const char *pool; /* "" = the default pool */
};

static const struct expect allocs[] = {
    {0x1000, pool14}, {0x1100, pool14}, {0x2000, pool13}, {0x2100, pool13}, {0x2200, pool13},
    {0x3000, ""},     {0x4000, pool14}, {0x4100, pool13}, {0x4200, pool13},
};
static const struct expect frees[] = {
    {0x1000, pool14}, {0x2000, pool13}, {0x2100, pool13}, {0x4000, pool14}, {0x4100, pool13}, {0x4200, pool13},
};

static void emit(void)
{
    any_fn f = (any_fn)___tracy_emit_memory_alloc_named;
    AS(alloc14_fn, f)((void *)0x1000, 16, pool14, JUNK);
    AS(alloc14_fn, f)((void *)0x1100, 16, pool14, 0);
    AS(alloc13_fn, f)((void *)0x2000, 32, 0, pool13);
    AS(alloc13_fn, f)((void *)0x2100, 32, 1, pool13);
    AS(alloc13_dirty_fn, f)((void *)0x2200, 32, DIRTY(1), pool13);
    AS(alloc14_fn, f)((void *)0x3000, 8, NULL, 100); /* NULL name, nothing like a pointer after it */
    f = (any_fn)___tracy_emit_memory_alloc_callstack_named;
    AS(alloc_cs14_fn, f)((void *)0x4000, 64, 5, pool14, JUNK);
    AS(alloc_cs13_fn, f)((void *)0x4100, 64, 5, 0, pool13);
    AS(alloc_cs13_fn, f)((void *)0x4200, 64, 5, DIRTY(0), pool13);

    f = (any_fn)___tracy_emit_memory_free_named;
    AS(free14_fn, f)((void *)0x1000, pool14, JUNK);
    AS(free13_fn, f)((void *)0x2000, 0, pool13);
    AS(free13_fn, f)((void *)0x2100, DIRTY(1), pool13);
    f = (any_fn)___tracy_emit_memory_free_callstack_named;
    AS(free_cs14_fn, f)((void *)0x4000, 3, pool14, JUNK);
    AS(free_cs13_fn, f)((void *)0x4100, 3, 1, pool13);
    AS(free_cs13_fn, f)((void *)0x4200, 3, DIRTY(0), pool13);

    AS(discard14_fn, ___tracy_emit_memory_discard)(pool14, JUNK);
    AS(discard13_fn, ___tracy_emit_memory_discard)(pool13, 1);
    AS(discard_cs14_fn, ___tracy_emit_memory_discard_callstack)(pool14, 4, JUNK);
    AS(discard_cs13_fn, ___tracy_emit_memory_discard_callstack)(pool13, 0, 4);
}

static void check(const struct tt_capture *cap, enum tcd_event_kind kind, const struct expect *want, size_t n,
                  const char *what)
{
    CHECK_EQ_INT(tt_count(cap, kind), n);
    for (size_t i = 0; i < n; i++) {
        const struct tcd_event *e = tt_nth(cap, kind, i);
        const char *pool = e && e->id ? tcd_pool_name(cap->dec, e->id) : "";
        tt_check(e && e->address == want[i].address && !strcmp(pool, want[i].pool), "%s at 0x%llx in pool \"%s\" (%s)",
                 what, (unsigned long long)want[i].address, want[i].pool, e ? pool : "missing");
    }
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    emit();
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    check(cap, TCD_MEM_ALLOC, allocs, sizeof allocs / sizeof allocs[0], "allocation");
    check(cap, TCD_MEM_FREE, frees, sizeof frees / sizeof frees[0], "free");
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_DISCARD), 4);
    for (size_t i = 0; i < 4; i++) {
        const struct tcd_event *e = tt_nth(cap, TCD_MEM_DISCARD, i);
        CHECK_STR(e ? tcd_pool_name(cap->dec, e->id) : "", i % 2 ? pool13 : pool14);
    }
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_memory_abi");
}

#else

int main(void)
{
    printf("test_memory_abi: this platform's library has one form (TRACYC_MEMORY_ABI_0_13 chooses it)\n");
    return tt_finish("test_memory_abi");
}

#endif
