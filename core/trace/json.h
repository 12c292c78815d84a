/* json.h - JSON strings and times for the Chrome Trace Event exporter. */
#ifndef TRACYC_TRACE_JSON_H
#define TRACYC_TRACE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "trace/writer.h"

/* Length of the valid UTF-8 sequence at p (2..4), or 0 when it is not one (or does not
 * fit in the avail bytes there). */
size_t tct_utf8_sequence(const unsigned char *p, size_t avail);
/* s[0..len) escaped for a JSON string (without the quotes): quotes, backslashes and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD. */
void tct_json_chars(struct tct_writer *w, const char *s, size_t len);
/* s as a quoted JSON string. */
void tct_json_string(struct tct_writer *w, const char *s);
/* s[0..len) as a quoted JSON string (a NUL in it as \u0000). */
void tct_json_text(struct tct_writer *w, const char *s, size_t len);
/* Nanoseconds as microseconds with every nanosecond digit (see json.c). */
void tct_json_us(struct tct_writer *w, int64_t ns);

#endif
