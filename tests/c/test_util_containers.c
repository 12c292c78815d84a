/* test_util_containers.c - core/util's containers: the hash map against a plain reference
 * under random operations, the arrays, the chunked array, the string arena, and the
 * budget they all allocate through. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/array.h"
#include "util/budget.h"
#include "util/chunks.h"
#include "util/map.h"

#include "test_util.h"

/* ---- a budget that remembers why it refused ---------------------------------------------- */

struct refusals {
    int count;
    const char *last;
};

static void on_refused(void *user, const char *why)
{
    struct refusals *r = user;
    r->count++;
    r->last = why;
}

static struct tcu_budget budget_of(size_t limit, struct refusals *r)
{
    return (struct tcu_budget){.limit = limit, .refused = on_refused, .user = r};
}

/* xorshift64*: the same sequence on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* ---- map ------------------------------------------------------------------------------------ */

#define POOL 96

struct reference {
    uint64_t keys[POOL], values[POOL];
    int present[POOL];
};

/* Keys whose home is slot 0 of a 16-slot table with seed 0: they all share one probe run. */
static size_t colliding_keys(uint64_t *out, size_t n)
{
    struct tcu_map probe;
    tcu_map_init(&probe, 0, NULL);
    tcu_map_put(&probe, 1, 1); /* a 16-slot table, to ask tcu_map_home */
    size_t found = 0;
    for (uint64_t k = 1; found < n; k++)
        if (tcu_map_home(&probe, k) == 0)
            out[found++] = k;
    tcu_map_free(&probe);
    return found;
}

/* Checks every key of the pool against the reference. Returns the mismatches. */
static int map_mismatches(const struct tcu_map *m, const struct reference *ref)
{
    int bad = 0;
    size_t count = 0;
    for (size_t i = 0; i < POOL; i++) {
        const uint64_t *v = tcu_map_get(m, ref->keys[i]);
        if (ref->present[i]) {
            count++;
            bad += !v || *v != ref->values[i];
        } else {
            bad += v != NULL;
        }
    }
    return bad + (tcu_map_count(m) != count);
}

static void test_map_random(uint64_t seed)
{
    struct reference ref;
    memset(&ref, 0, sizeof ref);
    size_t n = 0;
    ref.keys[n++] = 0;
    n += colliding_keys(ref.keys + n, 40);
    ref.keys[n++] = UINT64_MAX;
    while (n < POOL)
        ref.keys[n++] = rng();

    struct tcu_map m;
    tcu_map_init(&m, seed, NULL);
    int wrong_result = 0, mismatches = 0;
    for (int op = 0; op < 200000; op++) {
        size_t i = (size_t)(rng() % POOL);
        uint64_t value = rng();
        switch (rng() % 4) {
        case 0:
        case 1: /* put: 1 when new, 0 when replaced */
            wrong_result += tcu_map_put(&m, ref.keys[i], value) != !ref.present[i];
            ref.present[i] = 1;
            ref.values[i] = value;
            break;
        case 2: { /* remove: 1 and the value when present */
            uint64_t got = 0;
            int removed = tcu_map_remove(&m, ref.keys[i], &got);
            wrong_result += removed != ref.present[i] || (removed && got != ref.values[i]);
            ref.present[i] = 0;
            break;
        }
        default: { /* get */
            const uint64_t *v = tcu_map_get(&m, ref.keys[i]);
            wrong_result += ref.present[i] ? !v || *v != ref.values[i] : v != NULL;
        }
        }
        if (op % 97 == 0)
            mismatches += map_mismatches(&m, &ref);
    }
    mismatches += map_mismatches(&m, &ref);
    tt_check(wrong_result == 0 && mismatches == 0,
             "map (seed %#llx): 200000 random put/get/remove over key 0, UINT64_MAX, 40 colliding and random keys "
             "agree with a reference (%d wrong results, %d mismatches)",
             (unsigned long long)seed, wrong_result, mismatches);

    tcu_map_clear(&m);
    int empty = tcu_map_count(&m) == 0;
    for (size_t i = 0; i < POOL; i++)
        empty &= tcu_map_get(&m, ref.keys[i]) == NULL;
    tt_check(empty && tcu_map_memory(&m) > 0, "map: clear removes every key and keeps the table");
    tcu_map_free(&m);
    tt_check(m.slots == NULL && tcu_map_memory(&m) == 0 && tcu_map_get(&m, 0) == NULL, "map: free leaves it empty");
}

/* Removing from the middle of one probe run must keep every later member reachable,
 * including a run that wraps around the end of the table. */
static void test_map_backward_shift(void)
{
    uint64_t keys[6];
    colliding_keys(keys, 6);
    struct tcu_map m;
    tcu_map_init(&m, 0, NULL);
    for (uint64_t i = 0; i < 6; i++)
        tcu_map_put(&m, keys[i], i);
    int ok = m.mask == 15; /* six keys keep the first 16-slot table */
    for (int gone = 0; gone < 6; gone++) {
        uint64_t v = 99;
        ok &= tcu_map_remove(&m, keys[gone], &v) == 1 && v == (uint64_t)gone;
        ok &= tcu_map_remove(&m, keys[gone], &v) == 0;
        for (int k = gone + 1; k < 6; k++) {
            const uint64_t *got = tcu_map_get(&m, keys[k]);
            ok &= got && *got == (uint64_t)k;
        }
    }
    tt_check(ok && tcu_map_count(&m) == 0, "map: removal shifts the rest of a probe run back");

    /* Keys whose home is the last slot: their run wraps to slots 0, 1, ... */
    uint64_t wrap[4];
    size_t found = 0;
    tcu_map_put(&m, keys[0], 0);
    for (uint64_t k = 1; found < 4; k++)
        if (tcu_map_home(&m, k) == m.mask)
            wrap[found++] = k;
    tcu_map_remove(&m, keys[0], NULL);
    for (uint64_t i = 0; i < 4; i++)
        tcu_map_put(&m, wrap[i], i);
    ok = tcu_map_remove(&m, wrap[1], NULL) == 1;
    for (uint64_t i = 0; i < 4; i++) {
        const uint64_t *got = tcu_map_get(&m, wrap[i]);
        ok &= i == 1 ? got == NULL : got && *got == i;
    }
    tt_check(ok, "map: removal inside a probe run that wraps around the table end");
    tcu_map_free(&m);
}

static void test_map_growth(void)
{
    struct tcu_map m;
    tcu_map_init(&m, 0, NULL);
    int ok = 1;
    for (uint64_t k = 1; k <= 100000; k++)
        ok &= tcu_map_put(&m, k * 0x10000, k) == 1; /* addresses: low bits all zero */
    for (uint64_t k = 1; k <= 100000; k++) {
        const uint64_t *v = tcu_map_get(&m, k * 0x10000);
        ok &= v && *v == k;
    }
    ok &= tcu_map_get(&m, 0x10000 + 1) == NULL && tcu_map_count(&m) == 100000;
    /* at most half full, a power of two */
    ok &= (m.mask & (m.mask + 1)) == 0 && tcu_map_count(&m) * 2 <= m.mask + 1;
    tt_check(ok, "map: 100000 keys, grown to %zu slots, all found", m.mask + 1);
    tcu_map_free(&m);
}

/* Keys chosen to share one slot under one seed do not under another. */
static void test_map_seeded(void)
{
    uint64_t keys[40];
    colliding_keys(keys, 40);
    struct tcu_map plain, seeded;
    tcu_map_init(&plain, 0, NULL);
    tcu_map_init(&seeded, 0x5eed5eed12345678ull, NULL);
    tcu_map_put(&plain, 1, 1);
    tcu_map_put(&seeded, 1, 1);
    size_t homes_plain = 0, homes_seeded = 0;
    int seen_plain[16] = {0}, seen_seeded[16] = {0};
    for (size_t i = 0; i < 40; i++) {
        size_t hp = tcu_map_home(&plain, keys[i]), hs = tcu_map_home(&seeded, keys[i]);
        homes_plain += !seen_plain[hp]++;
        homes_seeded += !seen_seeded[hs]++;
    }
    tt_check(homes_plain == 1 && homes_seeded >= 8,
             "map: 40 keys that share one home slot unseeded spread over %zu of 16 slots with a seed", homes_seeded);
    tcu_map_free(&plain);
    tcu_map_free(&seeded);
}

static void test_map_budget(void)
{
    struct refusals r = {0};
    /* room for the 16-slot table (17 slots of 16 bytes) but not the 32-slot one */
    struct tcu_budget b = budget_of(17 * 16 + 100, &r);
    struct tcu_map m;
    tcu_map_init(&m, 7, &b);
    int ok = 1;
    for (uint64_t k = 0; k < 8; k++)
        ok &= tcu_map_put(&m, k, k + 100) == 1;
    ok &= b.used == 17 * 16 && r.count == 0;
    tt_check(ok, "map: a budget counts its table (%zu bytes)", b.used);
    ok = tcu_map_put(&m, 8, 108) == -1 && r.count == 1 && r.last == tcu_budget_over_limit;
    for (uint64_t k = 0; k < 8; k++) {
        const uint64_t *v = tcu_map_get(&m, k);
        ok &= v && *v == k + 100;
    }
    ok &= tcu_map_get(&m, 8) == NULL && tcu_map_count(&m) == 8;
    tt_check(ok, "map: growth past the limit is refused (reason \"%s\") and leaves the map as it was",
             r.last ? r.last : "");
    ok = tcu_map_put(&m, 3, 7) == 0; /* replacing needs no memory */
    tcu_map_free(&m);
    tt_check(ok && b.used == 0, "map: free gives every byte back to the budget (%zu left)", b.used);
}

static void test_hash_bytes(void)
{
    uint64_t ab_c = tcu_hash_bytes(tcu_hash_bytes(TCU_HASH_INIT, "ab", 2), "c", 1);
    uint64_t a_bc = tcu_hash_bytes(tcu_hash_bytes(TCU_HASH_INIT, "a", 1), "bc", 2);
    uint64_t abc = tcu_hash_bytes(TCU_HASH_INIT, "abc", 3);
    tt_check(ab_c != a_bc && ab_c != abc && a_bc != abc && abc == tcu_hash_bytes(TCU_HASH_INIT, "abc", 3),
             "hash_bytes: the same bytes give the same key; (\"ab\", \"c\"), (\"a\", \"bc\") and \"abc\" do not");
}

/* ---- arrays ---------------------------------------------------------------------------------- */

static void test_grow(void)
{
    uint32_t *a = NULL;
    size_t count = 0, cap = 0;
    int ok = 1;
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t *g = tcu_grow(NULL, a, &cap, count + 1, sizeof *a);
        ok &= g != NULL;
        a = g;
        a[count++] = i * 3;
    }
    for (uint32_t i = 0; i < 1000; i++)
        ok &= a[i] == i * 3;
    tt_check(ok && cap == 1024, "grow: a typed array doubles from %d to %zu, keeping its elements", TCU_ARRAY_FIRST,
             cap);
    free(a);

    size_t big_cap = 0;
    tt_check(tcu_grow(NULL, NULL, &big_cap, SIZE_MAX / 2, 8) == NULL && big_cap == 0,
             "grow: a size that overflows is refused");
}

static void test_array(void)
{
    struct refusals r = {0};
    struct tcu_budget b = budget_of(16 * 8 * 4, &r); /* 64 elements of 8 bytes fit, 128 do not */
    struct tcu_array a;
    tcu_array_init(&a, 8, &b);
    int ok = 1;
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t *e = tcu_array_push(&a);
        ok &= e && *e == 0; /* zero-filled */
        if (e)
            *e = i;
    }
    ok &= a.count == 64 && a.cap == 64 && b.used == 64 * 8 && tcu_array_memory(&a) == 64 * 8;
    tt_check(ok, "array: 64 zero-filled pushes, counted by the budget (%zu bytes)", b.used);
    ok = tcu_array_push(&a) == NULL && r.count == 1 && r.last == tcu_budget_over_limit && a.count == 64;
    for (uint64_t i = 0; i < 64; i++)
        ok &= *(uint64_t *)tcu_array_at(&a, i) == i;
    tt_check(ok, "array: a push past the limit is refused and keeps the elements");
    ok = tcu_array_reserve(&a, 10) == 0 && a.cap == 64;
    tcu_array_free(&a);
    tt_check(ok && b.used == 0 && a.data == NULL && a.count == 0, "array: free gives every byte back");
}

/* ---- chunked array ------------------------------------------------------------------------- */

static void test_chunks(void)
{
    struct refusals r = {0};
    struct tcu_budget b = budget_of(SIZE_MAX, &r);
    struct tcu_chunks c;
    tcu_chunks_init(&c, sizeof(uint64_t) * 3, 2, &b); /* 4 elements a chunk */
    uint64_t *first = NULL, *tenth = NULL;
    int ok = 1;
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t *e = tcu_chunks_push(&c);
        ok &= e && e[0] == 0 && e[1] == 0 && e[2] == 0;
        if (!e)
            break;
        e[0] = i;
        e[2] = ~i;
        if (i == 0)
            first = e;
        if (i == 10)
            tenth = e;
    }
    ok &= c.count == 1000 && first == tcu_chunks_at(&c, 0) && tenth == tcu_chunks_at(&c, 10);
    for (uint64_t i = 0; i < 1000; i++) {
        const uint64_t *e = tcu_chunks_at(&c, i);
        ok &= e[0] == i && e[2] == ~i;
    }
    tt_check(ok, "chunks: 1000 zero-filled elements in 250 chunks; addresses stable as it grows");
    ok = tcu_chunks_memory(&c) == b.used && b.used == 250 * 4 * 24 + c.chunk_slots * sizeof(char *);
    tcu_chunks_free(&c);
    tt_check(ok && b.used == 0 && c.count == 0, "chunks: memory as counted by the budget, all of it back after free");

    /* A reserved directory does not move while pushing within it. */
    tcu_chunks_init(&c, 1, 3, NULL);
    ok = tcu_chunks_reserve(&c, 256) == 0 && c.chunk_slots == 32;
    char **directory = c.chunks;
    for (int i = 0; i < 256; i++)
        ok &= tcu_chunks_push(&c) != NULL;
    tt_check(ok && c.chunks == directory && c.chunk_slots == 32,
             "chunks: a directory reserved for 256 elements holds them without moving");
    tcu_chunks_free(&c);

    struct tcu_budget tight = budget_of(8 * sizeof(char *) + 10, &r);
    tcu_chunks_init(&c, 4, 2, &tight);
    tt_check(tcu_chunks_push(&c) == NULL && c.count == 0 && r.last == tcu_budget_over_limit,
             "chunks: a chunk past the limit is refused");
    tcu_chunks_free(&c);
    tt_check(tight.used == 0, "chunks: free after a refusal gives every byte back");
}

/* ---- arena ----------------------------------------------------------------------------------- */

static void test_arena(void)
{
    struct refusals r = {0};
    struct tcu_budget b = budget_of(SIZE_MAX, &r);
    struct tcu_arena a;
    tcu_arena_init(&a, &b);
    char *hello = tcu_arena_strdup(&a, "hello world", 5);
    char *empty = tcu_arena_strdup(&a, NULL, 0);
    int ok = hello && strcmp(hello, "hello") == 0 && empty && *empty == 0 && empty == hello + 6;
    tt_check(ok, "arena: NUL-terminated copies packed one after another");

    size_t big_len = TCU_ARENA_BLOCK_SIZE * 2;
    char *big_src = malloc(big_len);
    memset(big_src, 'x', big_len);
    char *big = tcu_arena_strdup(&a, big_src, big_len);
    char *after = tcu_arena_strdup(&a, "next", 4);
    ok = big && big[big_len] == 0 && big[0] == 'x' && big[big_len - 1] == 'x' && after == empty + 1 &&
         strcmp(after, "next") == 0;
    tt_check(ok, "arena: a string larger than a block gets its own block; the current block keeps its room");
    ok = a.memory == b.used && b.used > TCU_ARENA_BLOCK_SIZE * 3 && b.used < TCU_ARENA_BLOCK_SIZE * 3 + 256;
    tt_check(ok, "arena: two blocks, counted (%zu bytes)", a.memory);

    /* Fill the first block: the next string starts a new one. */
    size_t room = TCU_ARENA_BLOCK_SIZE - 6 - 1 - 5;
    char *filler = tcu_arena_strdup(&a, big_src, room - 1);
    char *fresh = tcu_arena_strdup(&a, "y", 1);
    ok = filler == after + 5 && fresh && fresh != filler + room && strcmp(fresh, "y") == 0;
    tt_check(ok, "arena: a full block is followed by a new one");
    tcu_arena_free(&a);
    tt_check(b.used == 0 && a.memory == 0, "arena: free gives every byte back");

    struct tcu_budget tight = budget_of(1000, &r);
    tcu_arena_init(&a, &tight);
    r.count = 0;
    tt_check(tcu_arena_strdup(&a, "z", 1) == NULL && r.count == 1 && tight.used == 0,
             "arena: a block past the limit is refused");
    tcu_arena_free(&a);
    free(big_src);
}

/* ---- budget ----------------------------------------------------------------------------------- */

static void test_budget(void)
{
    struct refusals r = {0};
    struct tcu_budget b = budget_of(1000, &r);
    unsigned char *p = tcu_alloc(&b, 600);
    int ok = p && p[0] == 0 && p[599] == 0 && b.used == 600;
    ok &= tcu_alloc(&b, 401) == NULL && r.count == 1 && r.last == tcu_budget_over_limit;
    unsigned char *q = tcu_realloc(&b, p, 600, 1000);
    ok &= q && b.used == 1000;
    ok &= tcu_realloc(&b, q, 1000, 1001) == NULL && r.count == 2 && b.used == 1000;
    q = tcu_realloc(&b, q, 1000, 10);
    ok &= q && b.used == 10;
    tcu_free(&b, q, 10);
    tcu_free(&b, NULL, 123);
    ok &= b.used == 0;
    tt_check(ok, "budget: alloc, realloc and free counted; past the limit refused with a reason");

    /* A budget already past its limit refuses growth rather than wrapping around. */
    struct tcu_budget over = budget_of(100, &r);
    over.used = 200;
    tt_check(tcu_alloc(&over, 1) == NULL, "budget: already past the limit, nothing more is allowed");

    void *plain = tcu_alloc(NULL, 64);
    tt_check(plain && ((unsigned char *)plain)[63] == 0, "budget: NULL budget is plain zeroed allocation");
    tcu_free(NULL, plain, 64);
}

int main(void)
{
    test_map_random(0);
    test_map_random(0x0123456789abcdefull);
    test_map_backward_shift();
    test_map_growth();
    test_map_seeded();
    test_map_budget();
    test_hash_bytes();
    test_grow();
    test_array();
    test_chunks();
    test_arena();
    test_budget();
    return tt_finish("test_util_containers");
}
