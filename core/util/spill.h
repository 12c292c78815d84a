/* spill.h - records of a fixed size, read back sorted, kept on disk past a memory budget.
 *
 * An output that must write a capture's events in an order other than the one they came
 * in (a thread's zones in the order they began, messages by time) adds them here as they
 * come and reads them back sorted once the capture has ended, with memory that does not
 * grow with their number: an external merge sort.
 *
 *   struct tcu_spill *s = tcu_spill_new(sizeof(struct rec), by_key, 0);
 *   tcu_spill_add(s, &rec); ...                  // any number
 *   tcu_spill_sort(s);
 *   for (const struct rec *r; (r = tcu_spill_next(s));) ...
 *   tcu_spill_free(s);
 *
 * Records gather in memory; when the budget is full they are sorted and written to a
 * temporary file as one run (`TMPDIR`, else /tmp; unlinked at once, so nothing is left
 * behind whatever happens to the process). Reading merges the runs, at most TCU_SPILL_FAN
 * at a time. The sort is stable: records that compare equal come back in the order they
 * were added. A capture that never outgrows the budget never touches the disk.
 *
 * Texts and other variable-length data go beside the records (tcu_spill_put_blob), in a
 * file of their own past the budget, and are read back by reference.
 *
 * Errors (the disk full, out of memory) are sticky: every later call fails, and
 * tcu_spill_error() says what happened (an errno value).
 */
#ifndef TRACYC_UTIL_SPILL_H
#define TRACYC_UTIL_SPILL_H

#include <stddef.h>
#include <stdint.h>

#define TCU_SPILL_MEMORY ((size_t)8 << 20) /* the default budget of one spill, records and blobs each */
#define TCU_SPILL_FAN 64                   /* runs merged at once; more are merged in rounds */

struct tcu_spill;

/* A spill of records of record_size bytes (at most 4096), ordered by cmp (a qsort-style
 * comparison), keeping at most `memory` bytes of records in memory (0: TCU_SPILL_MEMORY).
 * NULL when out of memory. */
struct tcu_spill *tcu_spill_new(size_t record_size, int (*cmp)(const void *a, const void *b), size_t memory);
void tcu_spill_free(struct tcu_spill *s);

/* Adds a copy of record. 0, or -1 (tcu_spill_error() says why). Not after tcu_spill_sort. */
int tcu_spill_add(struct tcu_spill *s, const void *record);

/* Keeps len bytes beside the records; *ref receives where, for tcu_spill_get_blob.
 * 0, or -1. */
int tcu_spill_put_blob(struct tcu_spill *s, const void *data, size_t len, uint64_t *ref);
/* The len bytes kept at ref, valid until the next tcu_spill_get_blob; NULL on error. */
const void *tcu_spill_get_blob(struct tcu_spill *s, uint64_t ref, size_t len);

/* Ends adding and prepares to read in order. 0, or -1. */
int tcu_spill_sort(struct tcu_spill *s);
/* The next record in order, valid until the next tcu_spill_next or tcu_spill_rewind;
 * NULL at the end or on an error (tell them apart with tcu_spill_error()). */
const void *tcu_spill_next(struct tcu_spill *s);

/* Starts reading in order again from the first record (after tcu_spill_sort). 0, or -1. */
int tcu_spill_rewind(struct tcu_spill *s);

/* Records added so far. */
uint64_t tcu_spill_count(const struct tcu_spill *s);
/* 0, or the errno of the first failure. */
int tcu_spill_error(const struct tcu_spill *s);
/* Bytes of memory held (records, blobs, merge buffers), for benchmarks. */
size_t tcu_spill_memory(const struct tcu_spill *s);

#endif
