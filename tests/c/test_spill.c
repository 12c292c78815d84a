/* test_spill.c - the external merge sort of util/spill.h: records come back sorted and
 * stable whether they fit in memory, fill a few runs, or so many runs that they are
 * merged in rounds; blobs come back byte for byte from memory and from disk; a
 * temporary directory that cannot be written makes the spill fail with its errno, not
 * lose records silently. */
#include "test_util.h"
#include "util/spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rec {
    uint32_t key;
    uint32_t seq; /* the order added: equal keys must come back in it */
    uint64_t blob;
    uint32_t blob_len;
    uint32_t pad;
};

static int by_key(const void *a, const void *b)
{
    uint32_t ka = ((const struct rec *)a)->key, kb = ((const struct rec *)b)->key;
    return ka < kb ? -1 : ka > kb;
}

/* Adds n records with keys from a fixed pseudo-random sequence (few distinct keys, so
 * ties are many), each with a blob of its own text, and checks what comes back. */
static void sort_check(const char *what, uint32_t n, size_t memory)
{
    struct tcu_spill *s = tcu_spill_new(sizeof(struct rec), by_key, memory);
    CHECK(s != NULL);
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        char text[32];
        int len = snprintf(text, sizeof text, "record %u", i);
        struct rec r = {.key = (uint32_t)(x % 1000), .seq = i, .blob_len = (uint32_t)len};
        if (tcu_spill_put_blob(s, text, (size_t)len, &r.blob) != 0 || tcu_spill_add(s, &r) != 0)
            break;
    }
    CHECK_EQ_INT(tcu_spill_count(s), n);
    CHECK_EQ_INT(tcu_spill_sort(s), 0);
    uint32_t seen = 0, bad_order = 0, bad_blob = 0;
    struct rec prev = {0};
    for (const struct rec *r; (r = tcu_spill_next(s)); seen++) {
        if (seen && (r->key < prev.key || (r->key == prev.key && r->seq <= prev.seq)))
            bad_order++;
        char text[32];
        snprintf(text, sizeof text, "record %u", r->seq);
        const char *blob = tcu_spill_get_blob(s, r->blob, r->blob_len);
        if (!blob || r->blob_len != strlen(text) || memcmp(blob, text, r->blob_len) != 0)
            bad_blob++;
        prev = *r;
    }
    tt_check(seen == n && !bad_order && !bad_blob && !tcu_spill_error(s),
             "%s: %u records back of %u, %u out of order, %u blobs wrong, error %d", what, seen, n, bad_order, bad_blob,
             tcu_spill_error(s));
    /* Read again from the start: the same records in the same order. */
    CHECK_EQ_INT(tcu_spill_rewind(s), 0);
    uint32_t again = 0, same = 1;
    prev = (struct rec){0};
    for (const struct rec *r; (r = tcu_spill_next(s)); again++) {
        if (again && (r->key < prev.key || (r->key == prev.key && r->seq <= prev.seq)))
            same = 0;
        prev = *r;
    }
    tt_check(again == n && same, "%s: read again, %u records in order", what, again);
    tcu_spill_free(s);
}

static void unwritable_directory(void)
{
    setenv("TMPDIR", "/nonexistent/tracyc", 1);
    struct tcu_spill *s = tcu_spill_new(sizeof(struct rec), by_key, 4096);
    int rc = 0;
    for (uint32_t i = 0; i < 10000 && rc == 0; i++)
        rc = tcu_spill_add(s, &(struct rec){.key = i});
    tt_check(rc == -1 && tcu_spill_error(s) == ENOENT,
             "a spill past memory into an unwritable TMPDIR fails with ENOENT");
    CHECK(tcu_spill_sort(s) == -1 && tcu_spill_next(s) == NULL);
    tcu_spill_free(s);
    unsetenv("TMPDIR");
}

int main(void)
{
    sort_check("empty", 0, 0);
    sort_check("in memory", 10000, 0);
    sort_check("a few runs", 20000, 64 << 10);
    /* 300,000 records of 24 bytes in runs of ~2,300: ~130 runs, merged in two rounds */
    sort_check("merged in rounds", 300000, 64 << 10);
    unwritable_directory();
    return tt_finish("test_spill");
}
