/* decode_system.h - what a client's system tracing sends: context switches, wakeups,
 * TidToPid, and the answers to ExternalName queries (decode_system.c). */
#ifndef TRACYC_DECODE_DECODE_SYSTEM_H
#define TRACYC_DECODE_DECODE_SYSTEM_H

#include "decode/decode_internal.h"

void tcd_context_switch(struct tcd_decoder *dec, const uint8_t *it);
void tcd_thread_wakeup(struct tcd_decoder *dec, const uint8_t *it);
void tcd_tid_to_pid(struct tcd_decoder *dec, const uint8_t *it);
int tcd_reply_external(struct tcd_decoder *dec, uint8_t type, uint64_t id, const uint8_t *s, size_t len);

#endif
