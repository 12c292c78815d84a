/* arena.h - an append-only arena of strings.
 *
 * Copies are packed into 64 KiB blocks and live until the arena is freed, so millions
 * of short strings cost neither millions of allocations nor a header each. A string
 * larger than a block gets a block of its own, put behind the current block so that
 * the current block's free room stays in use. Allocation goes through an optional budget
 * (budget.h). A zero-filled struct tcu_arena is an empty arena with no budget.
 */
#ifndef TRACYC_UTIL_ARENA_H
#define TRACYC_UTIL_ARENA_H

#include <stddef.h>

struct tcu_budget;
struct tcu_arena_block;

#define TCU_ARENA_BLOCK_SIZE ((size_t)64 * 1024)

struct tcu_arena {
    struct tcu_arena_block *blocks; /* the current block first */
    size_t memory;                  /* bytes allocated */
    struct tcu_budget *budget;
};

void tcu_arena_init(struct tcu_arena *a, struct tcu_budget *budget);
void tcu_arena_free(struct tcu_arena *a);
/* A NUL-terminated copy of s[0..len), or NULL when refused. s may be NULL when len is 0. */
char *tcu_arena_strdup(struct tcu_arena *a, const void *s, size_t len);

#endif
