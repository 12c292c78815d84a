/* test_symbols.h - what the symbol resolver (native/symbols.h) gives for a range of
 * addresses, as text, for tests that compare it across caches and settings. */
#ifndef TRACYC_TEST_SYMBOLS_H
#define TRACYC_TEST_SYMBOLS_H

#include "native/symbols.h"

#include <stdint.h>

/* Every frame at count addresses spread over [low, high) (the i-th nudged by i % nudge,
 * off the evenly spaced ones), a line a frame: address, image, frame index, name, file,
 * line, symbol. NULL when out of memory; free() it. *with_lines: frames with a file and
 * line. */
char *tt_resolve_text(struct tcn_symbols *s, uint64_t low, uint64_t high, int count, int nudge, int *with_lines);

#endif
