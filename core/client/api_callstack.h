/* api_callstack.h - capturing the caller's callstack in a public entry point. A header
 * of its own so that api_memory_dual.c, which cannot include tracyc.h, uses it too. */
#ifndef TRACYC_CLIENT_API_CALLSTACK_H
#define TRACYC_CLIENT_API_CALLSTACK_H

#include "native/callstack.h"
#include "client/lifecycle.h"

/* Captures up to depth frames of the caller's callstack into frames (a uint64_t array of
 * TCN_CALLSTACK_MAX); evaluates to their number. Must be used in the public function itself:
 * the frames start at that function's caller. Starts the profiler first, so the very first
 * event of a program gets its callstack too. */
#define TC_CAPTURE_CALLSTACK(frames, depth)                                                                            \
    ((depth) > 0 && tc_profiler_ensure() == 0 ? tcn_callstack_capture(frames, depth, __builtin_return_address(0)) : 0)

#endif
