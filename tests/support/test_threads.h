/* test_threads.h - the profiler's own threads, for tests that watch them. Apart from
 * test_util.c, which the FFI tests link without linking tracyc. */
#ifndef TRACYC_TEST_THREADS_H
#define TRACYC_TEST_THREADS_H

#include <stdint.h>

/* The thread id of the profiler's thread whose name starts with name ("tracyc worker",
 * tracyc_own_threads), 0 when there is none. */
uint32_t tt_own_thread(const char *name);

#endif
