/* The unwinder behind callstacks (native/callstack.h) is loaded at the first capture, not at
 * the profiler's start: a program that records no callstack never loads it (libunwind's
 * library, the descriptors it needs, its state: ~4 ms of a start-up). Then the first capture
 * loads it and gets its frames. */
#include "native/callstack.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"plain", "main", "lazy.c", 1, 0};
static const struct ___tracy_source_location_data with_stack = {"with a callstack", "main", "lazy.c", 2, 0};

static int libunwind_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, "libunwind") != NULL;
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    char out[PATH_MAX];
    tt_temp_path(out, sizeof out, "tracyc-callstack-lazy.txt");
    setenv("TRACYC_OUTPUT", out, 1);
    ___tracy_startup_profiler();
    for (int i = 0; i < 10; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
    tt_check(strcmp(tcn_callstack_unwinder(), "none") == 0 && !libunwind_mapped(),
             "no callstack recorded: no unwinder loaded (%s)", tcn_callstack_unwinder());
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&with_stack, 8, 1);
    ___tracy_emit_zone_end(z);
    const char *unwinder = tcn_callstack_unwinder();
    tt_check(strcmp(unwinder, "none") != 0, "the first capture loaded an unwinder (%s)", unwinder);
    tt_check(strcmp(unwinder, "libunwind") != 0 || libunwind_mapped(), "libunwind, mapped once loaded");
    uint64_t frames[8];
    int n = tcn_callstack_capture(frames, 8, __builtin_return_address(0));
    tt_check(n >= 1, "a capture after it has frames (%d)", n);
    ___tracy_shutdown_profiler();
    unlink(out);
    return tt_finish("test_callstack_lazy");
}
