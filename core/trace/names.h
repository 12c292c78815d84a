/* names.h - names as the outputs show them, from a source's tables (struct tct_names,
 * record.h). */
#ifndef TRACYC_TRACE_NAMES_H
#define TRACYC_TRACE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"

/* Names from a decoder (valid as long as the decoder is). */
void tct_names_from_decoder(struct tct_names *out, const struct tcd_decoder *dec);

/* A zone's name as Tracy's statistics show it: the source location's name, or its
 * function when it has none. Never NULL. */
const char *tct_srcloc_label(const struct tct_names *names, uint32_t srcloc);

/* A text an event carried, or the string its handle names when the event came before the
 * string did (literal messages, the crash); its length in *len. Never NULL. */
const char *tct_text_or_string(const struct tct_names *names, const char *text, size_t text_len, uint32_t handle,
                               size_t *len);

#endif
