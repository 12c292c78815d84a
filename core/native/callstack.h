/* callstack.h - capturing the calling thread's callstack: return addresses only, on the
 * hot path; names are resolved later, off it (symbols.c).
 *
 * The unwinder is chosen once at start-up (tcn_callstack_init): nongnu libunwind's
 * unw_backtrace when libunwind.so.8 can be loaded (it walks DWARF call frame information,
 * so code built without frame pointers unwinds correctly, and it caches what it learns per
 * address: ~7 ns a frame here), else glibc's backtrace() (the same information through
 * libgcc, ~100 ns a frame, uncached). Frame pointers (~1 ns a frame) find nothing past the
 * first function built without them. bench/unwind_cost.c measures all four.
 */
#ifndef TRACYC_NATIVE_CALLSTACK_H
#define TRACYC_NATIVE_CALLSTACK_H

#include <stdint.h>

/* Deepest callstack a record carries, as upstream. Deeper requests are cut to it. */
#define TCN_CALLSTACK_MAX 62

/* Loads the unwinder. Idempotent; the profiler calls it at start-up unless callstacks are
 * disabled (TRACY_NO_CALLSTACK=1). libunwind's first walk, which sets up its state, is left
 * to the first capture; a capture on another thread meanwhile waits for it (up to a second,
 * then gets no frames). children_capture: forked children capture too (TRACYC_FOLLOW_FORK),
 * so a fork waits for the walks under way (below); otherwise a child never walks. */
void tcn_callstack_init(int children_capture);
/* The bound of every wait here: for another thread's first walk, for the walks under way at
 * a fork, and for a fork under way. */
#define TCN_CALLSTACK_WAIT_NS 1000000000LL
/* Around fork, when children capture: before it, the walks under way on other threads are
 * waited for, and walks that begin meanwhile (the first walk too) wait for the fork, each up
 * to TCN_CALLSTACK_WAIT_NS. libunwind holds a lock of its own while it sets its state up and
 * while it looks up code it has not seen, which a child forked meanwhile would find held
 * forever. After it, walks go on, in the parent and the child; in the child, a first walk
 * that outlasted the wait is made again by the child's first capture. */
void tcn_callstack_before_fork(void);
void tcn_callstack_after_fork_parent(void);
void tcn_callstack_forget_after_fork(void);
/* Which unwinder is in use: "libunwind", "backtrace" or "none". */
const char *tcn_callstack_unwinder(void);

/* Fills frames with up to depth (cut to TCN_CALLSTACK_MAX) call sites, innermost first,
 * starting with the one at `caller`: the return address of the public function that calls
 * this (__builtin_return_address(0) there), so tracyc's own frames never appear however the
 * compiler inlined them. Each entry is a return address minus one, which lies inside the
 * call instruction, so it resolves to the line of the call. Returns the number of frames;
 * 0 for depth <= 0 or when callstacks are disabled. */
int tcn_callstack_capture(uint64_t *frames, int32_t depth, const void *caller);

#endif
