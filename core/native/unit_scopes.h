/* unit_scopes.h - a compilation unit's functions and the scopes inside them (inlined
 * instances, blocks), as the symbol resolver looks addresses up in them, and their bytes for
 * the debug cache.
 *
 * With libdw, the functions at an address come from the unit's DIEs, and a unit's DIE costs
 * libdw every unit header before it (dwarf_offdie: up to 15 ms in libc). The table holds all
 * an address needs (the functions with code, by address; below each, its inlined instances
 * and blocks with their ranges, names and call sites, in the DIEs' order), so a unit whose
 * table is in the debug cache (by build ID and unit) needs no DIE at all. One walk of the
 * unit makes it; lookups are binary searches and a descent, the same answers for the same
 * DWARF whether the table was made now or read. */
#ifndef TRACYC_NATIVE_UNIT_SCOPES_H
#define TRACYC_NATIVE_UNIT_SCOPES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct tcn_libdw;

enum { TCN_SCOPE_FUNCTION, TCN_SCOPE_INLINED, TCN_SCOPE_BLOCK };
#define TCN_SCOPE_HAS_PC 0x100u       /* in flags: the scope gives addresses (ranges or low_pc) */
#define TCN_SCOPE_NO_NAME 0xffffffffu /* in name */
#define TCN_SCOPE_NO_FILE 0xffffffffu /* in call_file: no DW_AT_call_file */
/* Deeper than any real nesting of inlined instances and blocks (a function is 1 deep): what
 * lies deeper is left out, and a table read that nests deeper is refused (a lookup recurses
 * once a level). */
#define TCN_SCOPE_MAX_NESTING 1024

/* Addresses are the module's, before bias. */
struct tcn_scope {
    uint64_t sym_low, sym_high; /* a function's low_pc and high_pc when high > low, else 0 */
    uint32_t first_range, nranges;
    uint32_t end;                  /* the index after the scope's last descendant */
    uint32_t name;                 /* offset in strings: the demangled linkage name, else the name */
    uint32_t call_file, call_line; /* an inlined instance's call site (file: the unit's file index) */
    uint32_t flags;                /* TCN_SCOPE_FUNCTION/INLINED/BLOCK | TCN_SCOPE_HAS_PC */
    uint32_t zero;
};

struct tcn_scope_range {
    uint64_t low, high;
};

struct tcn_scope_function { /* one range of a function's code */
    uint64_t low, high;
    uint32_t scope, zero;
};

struct tcn_unit_scopes {
    struct tcn_scope_function *functions; /* by low */
    size_t nfunctions;
    struct tcn_scope *scopes; /* each function followed by its descendants, depth first */
    size_t nscopes;
    struct tcn_scope_range *ranges;
    size_t nranges;
    char *strings; /* the names, each ended by a 0 */
    size_t strings_len;
    void *bytes; /* decoded: the bytes everything points into (malloc'd); NULL: each is malloc'd */
};

/* The table of the unit whose DIE is cu: 0, or -1 (memory). */
int tcn_unit_scopes_build(const struct tcn_libdw *dw, Dwarf_Die *cu, struct tcn_unit_scopes *t);

/* The scopes that hold pc, into chain: the function first, then the inlined instances in it,
 * outermost first (blocks are looked into, not listed); how many (at most max), 0 when no
 * function has code at pc. */
int tcn_unit_scopes_at(const struct tcn_unit_scopes *t, uint64_t pc, uint32_t *chain, int max);

/* The range of scope that holds pc: 1 with *low and *high set, or 0. */
int tcn_unit_scopes_range_at(const struct tcn_unit_scopes *t, uint32_t scope, uint64_t pc, uint64_t *low,
                             uint64_t *high);

/* The scope's name, or NULL. */
const char *tcn_unit_scopes_name(const struct tcn_unit_scopes *t, uint32_t scope);

/* The table's bytes for `unit` (a value naming the unit it was made from; malloc'd, *len
 * set), or NULL. */
void *tcn_unit_scopes_encode(const struct tcn_unit_scopes *t, uint64_t unit, size_t *len);

/* The table in data (len malloc'd bytes, 8-byte aligned) made for `unit`: 0, and t reads
 * where things are in data, which it takes; -1 when the bytes are not a whole, valid table
 * for that unit (the caller keeps data). */
int tcn_unit_scopes_decode(void *data, size_t len, uint64_t unit, struct tcn_unit_scopes *t);

void tcn_unit_scopes_free(struct tcn_unit_scopes *t);

#endif
