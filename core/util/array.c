/* array.c - growable contiguous arrays: the growth rule and the struct form. */
#include "util/array.h"

#include <stdint.h>
#include <string.h>

#include "util/budget.h"

void *tcu_grow(struct tcu_budget *budget, void *array, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap)
        return array;
    size_t grown = *cap ? *cap : TCU_ARRAY_FIRST;
    while (grown < need && grown <= SIZE_MAX / 2)
        grown *= 2;
    if (grown < need || grown > SIZE_MAX / elem_size) {
        tcu_budget_refuse(budget, tcu_budget_over_limit);
        return NULL;
    }
    void *p = tcu_realloc(budget, array, *cap * elem_size, grown * elem_size);
    if (p)
        *cap = grown;
    return p;
}

void tcu_array_init(struct tcu_array *a, size_t elem_size, struct tcu_budget *budget)
{
    memset(a, 0, sizeof *a);
    a->elem_size = elem_size;
    a->budget = budget;
}

void tcu_array_free(struct tcu_array *a)
{
    tcu_free(a->budget, a->data, tcu_array_memory(a));
    tcu_array_init(a, a->elem_size, a->budget);
}

int tcu_array_reserve(struct tcu_array *a, size_t need)
{
    if (need <= a->cap)
        return 0;
    void *data = tcu_grow(a->budget, a->data, &a->cap, need, a->elem_size);
    if (!data)
        return -1;
    a->data = data;
    return 0;
}

void *tcu_array_push(struct tcu_array *a)
{
    if (a->count == a->cap && tcu_array_reserve(a, a->count + 1) != 0)
        return NULL;
    void *e = tcu_array_at(a, a->count++);
    memset(e, 0, a->elem_size);
    return e;
}
