/* config.h - the profiler's settings from the environment (README's table), read once at
 * start-up. A value that cannot be what it names is reported on stderr, once, with what
 * is used instead: a profiler never stops the program it profiles. */
#ifndef TRACYC_CLIENT_CONFIG_H
#define TRACYC_CLIENT_CONFIG_H

#include "client/state.h"

#include <stddef.h>
#include <stdint.h>

/* TRACYC_DISABLE=1: the library does nothing at all. */
int tc_config_disabled(void);
void tc_config_read(struct tc_config *c);

/* The parsers behind it: 0 and *out set when `text` is valid, -1 when not. */
int tc_config_parse_port(const char *text, uint16_t *out); /* 0..65535, 0: search */
int tc_config_parse_size(const char *text, size_t *out);   /* N, NK, NM, NG; > 0 */
int tc_config_parse_rate(const char *text, int *out);      /* 1..1,000,000 */
/* HOST:PORT, or [ADDRESS]:PORT for an IPv6 address; a port of 1..65535, a host of fewer
 * than `cap` bytes (written to host, NUL-terminated). */
int tc_config_parse_address(const char *text, char *host, size_t cap, uint16_t *port);
int tc_config_parse_signed(const char *text, int64_t *out); /* [-]N */

/* The file a process writes for TRACYC_OUTPUT=path when path is another process's (its
 * parent's): "<stem>.<pid><extension>" beside it, "<path>.<pid>.txt" when path has no
 * extension (a summary, as path would be). malloc'd; NULL when out of memory. */
char *tc_config_output_of_child(const char *path, long pid);

/* The highest sampling rate this kernel lets run: its perf_event_max_sample_rate (0:
 * unknown), and the rate at which samples take perf_cpu_time_max_percent of a thread's time
 * (0 or 100: no such limit). A higher TRACY_SAMPLING_HZ is lowered to it, and said. */
int tc_config_sampling_ceiling(int max_sample_rate, int cpu_time_max_percent);

#endif
