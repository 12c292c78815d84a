/* budget.h - allocation counted against an optional memory limit.
 *
 * Every container of core/util allocates through these three calls. With a NULL budget
 * they are plain calloc/realloc/free and nothing is counted. With a budget, `used` is
 * the bytes currently allocated through it; an allocation that would take `used` past
 * `limit` is refused (NULL), as is one the system cannot satisfy, and `refused` (when
 * set) is told why first: tcu_budget_over_limit or tcu_budget_out_of_memory.
 * Sizes passed to tcu_realloc and tcu_free must be the sizes allocated.
 */
#ifndef TRACYC_UTIL_BUDGET_H
#define TRACYC_UTIL_BUDGET_H

#include <stddef.h>

struct tcu_budget {
    size_t used, limit;
    void (*refused)(void *user, const char *why);
    void *user;
};

/* The two reasons given to `refused`; compare by address. */
extern const char tcu_budget_over_limit[];    /* "memory limit reached" */
extern const char tcu_budget_out_of_memory[]; /* "out of memory" */

/* size zero-filled bytes, or NULL when refused. */
void *tcu_alloc(struct tcu_budget *budget, size_t size);
/* Moves ptr's old_size bytes into new_size bytes (the new part not zeroed); NULL when
 * refused, ptr then left as it was. ptr may be NULL (old_size 0). */
void *tcu_realloc(struct tcu_budget *budget, void *ptr, size_t old_size, size_t new_size);
/* Frees ptr (NULL is ignored), giving its size back to the budget. */
void tcu_free(struct tcu_budget *budget, void *ptr, size_t size);

/* Tells the budget a size computation overflowed: refused as over the limit. */
void tcu_budget_refuse(struct tcu_budget *budget, const char *why);

#endif
