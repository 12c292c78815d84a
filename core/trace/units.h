/* units.h - numbers for people: durations, counts and sizes, as the summary and
 * tracyc-capture's status line print them. Each writes into buf and returns it. */
#ifndef TRACYC_TRACE_UNITS_H
#define TRACYC_TRACE_UNITS_H

#include <stdint.h>

#define TCT_UNITS_BUF 32

/* 750 ns, 12.35 us, 1.23 ms, 1.235 s */
const char *tct_format_duration(char buf[TCT_UNITS_BUF], int64_t ns);
/* 12,345,678 */
const char *tct_format_count(char buf[TCT_UNITS_BUF], uint64_t n);
/* 512 B, 1.50 KiB, 12.00 MiB */
const char *tct_format_bytes(char buf[TCT_UNITS_BUF], double bytes);

#endif
