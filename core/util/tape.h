/* tape.h - bytes appended, then read back from the start, kept on disk past a memory budget.
 *
 * What a capture keeps of its events to go over them again at the end (trace/trace.h,
 * tct_trace_replay): appended as they come, in memory until the budget is full, then in a
 * temporary file (`TMPDIR`, else /tmp; unlinked at once, so nothing is left behind), and
 * read back in order, as often as needed, with a buffer the size of one read.
 *
 *   struct tcu_tape *t = tcu_tape_new(0);
 *   tcu_tape_write(t, data, len); ...
 *   struct tcu_tape_reader r = {0};
 *   tcu_tape_rewind(t, &r);
 *   while ((p = tcu_tape_read(t, &r, n))) ...   // n bytes at p, or NULL at the end
 *
 * Errors (the disk full, out of memory) are sticky: later writes fail and tcu_tape_error()
 * says what happened (an errno value).
 */
#ifndef TRACYC_UTIL_TAPE_H
#define TRACYC_UTIL_TAPE_H

#include <stddef.h>
#include <stdint.h>

#define TCU_TAPE_MEMORY ((size_t)16 << 20) /* the default budget */
#define TCU_TAPE_READ ((size_t)256 << 10)  /* bytes read from the file at a time; the most one read may ask */

struct tcu_tape;

/* A tape keeping at most `memory` bytes in memory (0: TCU_TAPE_MEMORY). NULL when out of
 * memory. */
struct tcu_tape *tcu_tape_new(size_t memory);
void tcu_tape_free(struct tcu_tape *t);

/* Appends len bytes. 0, or -1 (tcu_tape_error() says why). */
int tcu_tape_write(struct tcu_tape *t, const void *data, size_t len);

/* Where a reading is; zeroed before its first tcu_tape_rewind. */
struct tcu_tape_reader {
    uint64_t at; /* bytes of the tape read so far */
    char *buf;   /* what was read from the file, not yet handed out */
    size_t pos, len;
};

/* Starts reading from the first byte (after the writes so far). 0, or -1. */
int tcu_tape_rewind(struct tcu_tape *t, struct tcu_tape_reader *r);
/* The next n bytes (n at most TCU_TAPE_READ), valid until the next read; NULL at the end of
 * the tape, when fewer than n bytes are left, or on an error. */
const void *tcu_tape_read(struct tcu_tape *t, struct tcu_tape_reader *r, size_t n);
/* Ends a reading (frees its buffer). */
void tcu_tape_reader_free(struct tcu_tape_reader *r);

/* Bytes written. */
uint64_t tcu_tape_size(const struct tcu_tape *t);
/* 0, or the errno of the first failure. */
int tcu_tape_error(const struct tcu_tape *t);
/* Bytes of memory held. */
size_t tcu_tape_memory(const struct tcu_tape *t);

#endif
