/* json_check.h - a strict RFC 8259 validator (UTF-8 included), the oracle for the
 * Chrome exporter's output: whatever the trace holds, the file must parse. */
#ifndef TRACYC_FUZZ_JSON_CHECK_H
#define TRACYC_FUZZ_JSON_CHECK_H

#include <stddef.h>

/* NULL when text[0..len) is one valid JSON document, else what is wrong (and *where
 * is the byte offset). */
const char *json_check(const char *text, size_t len, size_t *where);

#endif
