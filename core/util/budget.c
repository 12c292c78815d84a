/* budget.c - allocation counted against an optional memory limit. */
#include "util/budget.h"

#include <stdlib.h>

const char tcu_budget_over_limit[] = "memory limit reached";
const char tcu_budget_out_of_memory[] = "out of memory";

void tcu_budget_refuse(struct tcu_budget *budget, const char *why)
{
    if (budget && budget->refused)
        budget->refused(budget->user, why);
}

/* 1 when growing by `more` bytes keeps the budget within its limit. */
static int budget_allows(struct tcu_budget *budget, size_t more)
{
    if (budget->used <= budget->limit && more <= budget->limit - budget->used)
        return 1;
    tcu_budget_refuse(budget, tcu_budget_over_limit);
    return 0;
}

/* p, the result of an allocation that replaced old_size bytes by new_size, counted; NULL
 * (refused) when the system had no memory. */
static void *counted(struct tcu_budget *budget, void *p, size_t old_size, size_t new_size)
{
    if (!p) {
        tcu_budget_refuse(budget, tcu_budget_out_of_memory);
        return NULL;
    }
    if (budget)
        budget->used = budget->used - old_size + new_size;
    return p;
}

void *tcu_alloc(struct tcu_budget *budget, size_t size)
{
    if (budget && !budget_allows(budget, size))
        return NULL;
    return counted(budget, calloc(1, size), 0, size);
}

void *tcu_realloc(struct tcu_budget *budget, void *ptr, size_t old_size, size_t new_size)
{
    if (budget && new_size > old_size && !budget_allows(budget, new_size - old_size))
        return NULL;
    return counted(budget, realloc(ptr, new_size), old_size, new_size);
}

void tcu_free(struct tcu_budget *budget, void *ptr, size_t size)
{
    if (!ptr)
        return;
    free(ptr);
    if (budget)
        budget->used -= size;
}
