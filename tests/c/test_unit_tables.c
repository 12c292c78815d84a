/* test_unit_tables.c - the units' indexes (native/unit_index.h) and scopes
 * (native/unit_scopes.h) read back from their bytes answer as the tables they were made
 * from; bytes made for another DWARF or unit, cut short, changed, or that pass the checksum but hold no valid table
 * (indexes outside the table, scopes that cross or nest without end, runs out of order) are
 * refused. That libdw's DWARF gives the same frames through them, made or read, is
 * test_debug_cache_lines'. */
#include "native/unit_index.h"
#include "native/unit_scopes.h"
#include "test_util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void check_index(void)
{
    struct tcn_unit_run runs[] = {{0x100, 0xb}, {0x200, 0x2c}, {0x200, 0x4d}, {0x400, 0xb}};
    struct tcn_unit_index ix = {runs, 4, 0x480, NULL}, back;
    size_t len;
    void *bytes = tcn_unit_index_encode(&ix, 9, &len);
    CHECK(bytes && tcn_unit_index_decode(bytes, len, 9, &back) == 0); /* (back takes the bytes) */
    uint64_t unit = 0;
    CHECK(!tcn_unit_index_find(&back, 0xff, &unit));
    CHECK(tcn_unit_index_find(&back, 0x100, &unit) && unit == 0xb);
    CHECK(tcn_unit_index_find(&back, 0x1ff, &unit) && unit == 0xb); /* a gap: the run before's */
    CHECK(tcn_unit_index_find(&back, 0x3ff, &unit) && (unit == 0x2c || unit == 0x4d));
    CHECK(tcn_unit_index_find(&back, 0x480, &unit) && unit == 0xb); /* (libdwfl takes the end too) */
    CHECK(!tcn_unit_index_find(&back, 0x481, &unit));
    tcn_unit_index_free(&back);

    bytes = tcn_unit_index_encode(&ix, 9, &len);
    CHECK(tcn_unit_index_decode(bytes, len, 10, &back) == -1); /* another DWARF's */
    CHECK(tcn_unit_index_decode(bytes, len - 1, 9, &back) == -1);
    ((unsigned char *)bytes)[len - 3] ^= 0x40; /* a run's unit */
    CHECK(tcn_unit_index_decode(bytes, len, 9, &back) == -1);
    free(bytes);
    struct tcn_unit_run unsorted[] = {{0x200, 0xb}, {0x100, 0x2c}};
    struct tcn_unit_index bad = {unsorted, 2, 0x300, NULL};
    bytes = tcn_unit_index_encode(&bad, 9, &len);
    CHECK(bytes && tcn_unit_index_decode(bytes, len, 9, &back) == -1);
    free(bytes);
    struct tcn_unit_index empty = {runs, 0, 0, NULL};
    bytes = tcn_unit_index_encode(&empty, 9, &len);
    CHECK(bytes && tcn_unit_index_decode(bytes, len, 9, &back) == -1);
    free(bytes);
}

/* f (0x100..0x200) holds g inlined (0x120..0x180, called from file 2 line 7), inside a block
 * without addresses; g holds h inlined at 0x140..0x150. k (0x300..0x310, 0x380..0x390) is
 * split in two. */
static char strings[] = "f\0g\0h\0k";
static struct tcn_scope_range ranges[] = {
    {0x100, 0x200}, {0x120, 0x180}, {0x140, 0x150}, {0x300, 0x310}, {0x380, 0x390}};
static struct tcn_scope scopes[] = {
    {0x100, 0x200, 0, 1, 4, 0, TCN_SCOPE_NO_FILE, 0, TCN_SCOPE_FUNCTION | TCN_SCOPE_HAS_PC, 0},
    {0, 0, 1, 0, 4, TCN_SCOPE_NO_NAME, TCN_SCOPE_NO_FILE, 0, TCN_SCOPE_BLOCK, 0},
    {0, 0, 1, 1, 4, 2, 2, 7, TCN_SCOPE_INLINED | TCN_SCOPE_HAS_PC, 0},
    {0, 0, 2, 1, 4, 4, 3, 9, TCN_SCOPE_INLINED | TCN_SCOPE_HAS_PC, 0},
    {0, 0, 3, 2, 5, 6, TCN_SCOPE_NO_FILE, 0, TCN_SCOPE_FUNCTION | TCN_SCOPE_HAS_PC, 0},
};
static struct tcn_scope_function functions[] = {{0x100, 0x200, 0, 0}, {0x300, 0x310, 4, 0}, {0x380, 0x390, 4, 0}};

static struct tcn_unit_scopes table(struct tcn_scope *with)
{
    return (struct tcn_unit_scopes){functions, 3, with, 5, ranges, 5, strings, sizeof strings, NULL};
}

/* Encoded and decoded: 0 when taken. */
static int round_trip(const struct tcn_unit_scopes *t, struct tcn_unit_scopes *back)
{
    size_t len;
    void *bytes = tcn_unit_scopes_encode(t, 42, &len);
    CHECK(bytes != NULL);
    if (tcn_unit_scopes_decode(bytes, len, 42, back) != 0) {
        free(bytes);
        return -1;
    }
    return 0;
}

static void check_scopes(void)
{
    struct tcn_unit_scopes t = table(scopes), back;
    CHECK(round_trip(&t, &back) == 0);
    uint32_t chain[8];
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x145, chain, 8), 3);
    CHECK(chain[0] == 0 && chain[1] == 2 && chain[2] == 3);
    CHECK(!strcmp(tcn_unit_scopes_name(&back, chain[2]), "h"));
    CHECK(tcn_unit_scopes_name(&back, 1) == NULL);
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x145, chain, 2), 2); /* at most max */
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x1f0, chain, 8), 1);
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x385, chain, 8), 1);
    CHECK(chain[0] == 4);
    uint64_t low, high;
    CHECK(tcn_unit_scopes_range_at(&back, 4, 0x385, &low, &high) && low == 0x380 && high == 0x390);
    CHECK(!tcn_unit_scopes_range_at(&back, 4, 0x320, &low, &high));
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x320, chain, 8), 0);
    CHECK_EQ_INT(tcn_unit_scopes_at(&back, 0x50, chain, 8), 0);
    tcn_unit_scopes_free(&back);

    /* Another unit's, cut short, and a byte changed. */
    size_t len;
    void *bytes = tcn_unit_scopes_encode(&t, 42, &len);
    CHECK(tcn_unit_scopes_decode(bytes, len, 43, &back) == -1);
    CHECK(tcn_unit_scopes_decode(bytes, len - 1, 42, &back) == -1);
    ((unsigned char *)bytes)[64 + 5] ^= 0x40;
    CHECK(tcn_unit_scopes_decode(bytes, len, 42, &back) == -1);
    free(bytes);

    /* Valid checksums, invalid tables. */
    struct tcn_scope bad[5];
    struct {
        int scope;
        size_t field;
        uint32_t value;
    } breaks[] = {
        {2, offsetof(struct tcn_scope, first_range), 5},             /* a range past the ranges */
        {3, offsetof(struct tcn_scope, name), sizeof strings},       /* a name past the names */
        {1, offsetof(struct tcn_scope, end), 1},                     /* an end at itself */
        {4, offsetof(struct tcn_scope, end), 6},                     /* an end past the scopes */
        {2, offsetof(struct tcn_scope, end), 5},                     /* crossing its parent's end */
        {3, offsetof(struct tcn_scope, flags), TCN_SCOPE_BLOCK + 1}, /* no such kind */
    };
    for (size_t i = 0; i < sizeof breaks / sizeof *breaks; i++) {
        memcpy(bad, scopes, sizeof bad);
        memcpy((char *)&bad[breaks[i].scope] + breaks[i].field, &breaks[i].value, sizeof(uint32_t));
        struct tcn_unit_scopes b = table(bad);
        CHECK(round_trip(&b, &back) == -1);
    }
    struct tcn_scope_function stray[] = {{0x100, 0x200, 5, 0}},
                              unsorted[] = {{0x300, 0x310, 4, 0}, {0x100, 0x200, 0, 0}};
    struct tcn_unit_scopes b = table(scopes);
    b.functions = stray;
    b.nfunctions = 1;
    CHECK(round_trip(&b, &back) == -1);
    b.functions = unsorted;
    b.nfunctions = 2;
    CHECK(round_trip(&b, &back) == -1);

    /* Nested deeper than any DWARF: refused (a lookup would recurse once a level). */
    enum { DEEP = 5000 };
    struct tcn_scope *deep = calloc(DEEP, sizeof *deep);
    CHECK(deep != NULL);
    for (uint32_t i = 0; i < DEEP; i++)
        deep[i] = (struct tcn_scope){.end = DEEP, .name = TCN_SCOPE_NO_NAME, .flags = TCN_SCOPE_BLOCK};
    deep[0].flags = TCN_SCOPE_FUNCTION;
    b = (struct tcn_unit_scopes){NULL, 0, deep, DEEP, NULL, 0, NULL, 0, NULL};
    CHECK(round_trip(&b, &back) == -1);
    free(deep);
}

int main(void)
{
    check_index();
    check_scopes();
    return tt_finish("test_unit_tables");
}
