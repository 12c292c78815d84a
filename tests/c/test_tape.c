/* test_tape.c - util/tape.h: items of every size, up to the largest a reserve may ask,
 * come back byte for byte and in order, from memory and from a file past the budget, and
 * again after a rewind; a peek always shows a whole item (at least TCU_TAPE_READ bytes, or
 * all that is left); a temporary directory that cannot be written makes the tape fail
 * with its errno, not lose items silently. */
#include "test_util.h"
#include "util/tape.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Item i: its length, then bytes made from i and their place. Lengths vary from 3 to
 * TCU_TAPE_READ, mostly small, as a capture's events are. */
static size_t item_len(uint32_t i)
{
    if (i % 997 == 5)
        return TCU_TAPE_READ;
    if (i % 101 == 7)
        return 4096 + i % 30000;
    return 3 + i % 40;
}

static uint8_t item_byte(uint32_t i, size_t k)
{
    return (uint8_t)(i * 31 + k * 7);
}

static void write_items(struct tcu_tape *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t len = item_len(i);
        /* Reserve more than is put, as the trace's log does. */
        uint8_t *p = tcu_tape_reserve(t, len < TCU_TAPE_READ ? len + 50 : len);
        if (!p)
            break;
        for (size_t k = 0; k < len; k++)
            p[k] = item_byte(i, k);
        tcu_tape_commit(t, len);
    }
}

/* Reads the n items back: how many came back whole; *short_peeks counts peeks that showed
 * less than promised. */
static uint32_t read_items(struct tcu_tape *t, uint32_t n, uint32_t *short_peeks)
{
    struct tcu_tape_reader r = {0};
    CHECK_EQ_INT(tcu_tape_rewind(t, &r), 0);
    uint32_t good = 0;
    uint64_t left = tcu_tape_size(t);
    for (uint32_t i = 0; i < n; i++) {
        size_t avail, len = item_len(i);
        const uint8_t *p = tcu_tape_peek(t, &r, &avail);
        if (!p || avail < len)
            break;
        if (avail < TCU_TAPE_READ && avail != left)
            (*short_peeks)++;
        size_t k = 0;
        while (k < len && p[k] == item_byte(i, k))
            k++;
        good += k == len;
        tcu_tape_skip(&r, len);
        left -= len;
    }
    size_t avail;
    CHECK(tcu_tape_peek(t, &r, &avail) != NULL && avail == 0); /* the end */
    CHECK(r.at == tcu_tape_size(t));
    tcu_tape_reader_free(&r);
    return good;
}

static void round_trip(const char *what, uint32_t n, size_t memory)
{
    struct tcu_tape *t = tcu_tape_new(memory);
    CHECK(t != NULL);
    write_items(t, n);
    uint64_t size = 0;
    for (uint32_t i = 0; i < n; i++)
        size += item_len(i);
    tt_check(tcu_tape_size(t) == size && !tcu_tape_error(t), "%s: %llu bytes written of %llu, error %d", what,
             (unsigned long long)tcu_tape_size(t), (unsigned long long)size, tcu_tape_error(t));
    for (int pass = 0; pass < 2; pass++) { /* a rewind reads it all again */
        uint32_t short_peeks = 0, good = read_items(t, n, &short_peeks);
        tt_check(good == n && !short_peeks && !tcu_tape_error(t),
                 "%s, pass %d: %u items back whole of %u, %u peeks showed less than an item may take, error %d", what,
                 pass, good, n, short_peeks, tcu_tape_error(t));
    }
    tcu_tape_free(t);
}

static void unwritable_directory(void)
{
    setenv("TMPDIR", "/nonexistent/tracyc", 1);
    struct tcu_tape *t = tcu_tape_new(4096);
    CHECK(t != NULL);
    write_items(t, 1000);
    CHECK(tcu_tape_error(t) == ENOENT);
    CHECK(tcu_tape_reserve(t, 10) == NULL);
    struct tcu_tape_reader r = {0};
    CHECK(tcu_tape_rewind(t, &r) != 0);
    tcu_tape_reader_free(&r);
    tcu_tape_free(t);
    unsetenv("TMPDIR");
}

int main(void)
{
    round_trip("empty", 0, 0);
    round_trip("in memory", 3000, 0);
    round_trip("on disk past a small budget", 3000, 4096);
    /* the budget reached by a largest item, the file read in many refills */
    round_trip("on disk, 40,000 items", 40000, 1 << 20);
    unwritable_directory();
    return tt_finish("test_tape");
}
