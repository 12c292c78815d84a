/* tape.h - bytes appended, then read back from the start, kept on disk past a memory budget.
 *
 * What a capture keeps of its events to go over them again at the end (trace/trace.h,
 * tct_trace_replay): appended as they come, in memory until the budget is full, then in a
 * temporary file (`TMPDIR`, else /tmp; unlinked at once, so nothing is left behind), and
 * read back in order, as often as needed. Both ways the caller works in the tape's own
 * buffer, which spares a copy and a call per item (a capture keeps tens of millions):
 *
 *   struct tcu_tape *t = tcu_tape_new(0);
 *   p = tcu_tape_reserve(t, n); ...put k <= n bytes at p...; tcu_tape_commit(t, k); ...
 *   struct tcu_tape_reader r = {0};
 *   tcu_tape_rewind(t, &r);
 *   while ((p = tcu_tape_peek(t, &r, &avail)) && avail) { ...read k bytes...; tcu_tape_skip(&r, k); }
 *
 * Errors (the disk full, out of memory) are sticky: later writes fail and tcu_tape_error()
 * says what happened (an errno value).
 */
#ifndef TRACYC_UTIL_TAPE_H
#define TRACYC_UTIL_TAPE_H

#include <stddef.h>
#include <stdint.h>

#define TCU_TAPE_MEMORY ((size_t)16 << 20) /* the default budget */
#define TCU_TAPE_READ ((size_t)256 << 10)  /* the most one reserve may ask, and a peek shows at least */

struct tcu_tape;

/* A tape keeping at most `memory` bytes in memory (0: TCU_TAPE_MEMORY). NULL when out of
 * memory. */
struct tcu_tape *tcu_tape_new(size_t memory);
void tcu_tape_free(struct tcu_tape *t);

/* Room for n more bytes (n at most TCU_TAPE_READ): where to put them, valid until the next
 * call; NULL on an error. tcu_tape_commit then appends the first k <= n of them. */
void *tcu_tape_reserve(struct tcu_tape *t, size_t n);
void tcu_tape_commit(struct tcu_tape *t, size_t k);

/* Where a reading is; zeroed before its first tcu_tape_rewind. */
struct tcu_tape_reader {
    uint64_t at; /* bytes of the tape read so far */
    char *buf;   /* what was read from the file, not yet handed out */
    size_t pos, len;
};

/* Starts reading from the first byte (after the writes so far). 0, or -1. */
int tcu_tape_rewind(struct tcu_tape *t, struct tcu_tape_reader *r);
/* The bytes from where the reading is, without taking them: at least TCU_TAPE_READ of them,
 * or all that are left (then *avail is what is left: 0 at the end). Valid until the next
 * peek; NULL on an error. */
const void *tcu_tape_peek(struct tcu_tape *t, struct tcu_tape_reader *r, size_t *avail);
/* Takes the first n of the bytes the last peek showed. */
void tcu_tape_skip(struct tcu_tape_reader *r, size_t n);
/* Ends a reading (frees its buffer). */
void tcu_tape_reader_free(struct tcu_tape_reader *r);

/* Bytes written. */
uint64_t tcu_tape_size(const struct tcu_tape *t);
/* 0, or the errno of the first failure. */
int tcu_tape_error(const struct tcu_tape *t);
/* Bytes of memory held. */
size_t tcu_tape_memory(const struct tcu_tape *t);

#endif
