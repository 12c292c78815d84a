/* array.h - growable contiguous arrays.
 *
 * One growth rule, doubling from TCU_ARRAY_FIRST elements, in two forms:
 *   tcu_grow grows a typed array the caller keeps as a pointer, a count and a capacity
 *   (so readers index it as usual: `threads[i]`);
 *   struct tcu_array keeps them together with its element size and budget.
 * Elements move when the array grows: keep indices, not pointers, across a push.
 * Allocation goes through an optional budget (budget.h); a failed growth leaves the
 * array as it was.
 */
#ifndef TRACYC_UTIL_ARRAY_H
#define TRACYC_UTIL_ARRAY_H

#include <stddef.h>

struct tcu_budget;

#define TCU_ARRAY_FIRST 16

/* Makes room for at least `need` (> 0) elements in array (*cap of them now): the array,
 * possibly moved, with *cap updated; NULL when refused (array and *cap unchanged). */
void *tcu_grow(struct tcu_budget *budget, void *array, size_t *cap, size_t need, size_t elem_size);

struct tcu_array {
    void *data;
    size_t count, cap; /* elements stored, elements allocated */
    size_t elem_size;
    struct tcu_budget *budget;
};

void tcu_array_init(struct tcu_array *a, size_t elem_size, struct tcu_budget *budget);
void tcu_array_free(struct tcu_array *a);
/* 0 when the array holds room for `need` elements, -1 when refused. */
int tcu_array_reserve(struct tcu_array *a, size_t need);
/* A zero-filled new element at index count (then count + 1), or NULL when refused. */
void *tcu_array_push(struct tcu_array *a);

static inline void *tcu_array_at(const struct tcu_array *a, size_t i)
{
    return (char *)a->data + i * a->elem_size;
}

/* Bytes allocated. */
static inline size_t tcu_array_memory(const struct tcu_array *a)
{
    return a->cap * a->elem_size;
}

#endif
