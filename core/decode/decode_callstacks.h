/* decode_callstacks.h - callstacks (decode_callstacks.c): the payloads, the registers that
 * pass a callstack to its item (a take that finds none FAILS the decoder and gives 0),
 * samples, the answers to CallstackFrame and Symbol queries, and their tables. */
#ifndef TRACYC_DECODE_DECODE_CALLSTACKS_H
#define TRACYC_DECODE_DECODE_CALLSTACKS_H

#include "decode/decode_internal.h"

void tcd_callstack_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len);
void tcd_callstack_alloc_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len);
void tcd_callstack_item(struct tcd_decoder *dec, bool serial);
uint32_t tcd_take_thread_callstack(struct tcd_decoder *dec, bool required);
uint32_t tcd_take_serial_callstack(struct tcd_decoder *dec);
void tcd_callstack_sample(struct tcd_decoder *dec, uint32_t thread, uint64_t delta, bool switched_out);
void tcd_callstack_frame_size(struct tcd_decoder *dec, const uint8_t *it);
void tcd_callstack_frame(struct tcd_decoder *dec, const uint8_t *it);
void tcd_symbol_information(struct tcd_decoder *dec, const uint8_t *it);

/* Frees the frames (their maps and arrays are freed with the other tables). */
void tcd_callstack_tables_free(struct tcd_decoder *dec);

#endif
