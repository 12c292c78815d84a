/* unit_index.h - which compilation unit of a module's DWARF holds an address, and its
 * bytes for the debug cache.
 *
 * libdw answers that from the module's address ranges (dwarf_getaranges), which it builds
 * by reading every unit's header first: 23-29 ms for libc's 2083 units on this project's
 * machines, paid again by every process at its first address in libc. The index is what
 * libdwfl makes of those ranges (one run per stretch of ranges of one unit, the gaps between
 * runs counted to the run before), looked up as libdwfl looks it up, so it names the same
 * unit for every address; its bytes are kept in the debug cache by build ID. A unit is named
 * by its DIE's offset in .debug_info. */
#ifndef TRACYC_NATIVE_UNIT_INDEX_H
#define TRACYC_NATIVE_UNIT_INDEX_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct tcn_libdw;

struct tcn_unit_run {
    uint64_t start; /* module address before bias */
    uint64_t unit;  /* the unit's DIE offset */
};

struct tcn_unit_index {
    struct tcn_unit_run *runs; /* by start */
    size_t nruns;
    uint64_t last_end; /* the end of the module's last range: nothing after it */
    void *bytes;       /* decoded: the bytes runs point into (malloc'd); NULL: runs is malloc'd */
};

/* The index of dbg's units from its address ranges: 0, or -1 (libdw has none, or memory). */
int tcn_unit_index_build(const struct tcn_libdw *dw, Dwarf *dbg, struct tcn_unit_index *ix);

/* The unit whose code holds addr (before bias), as dwfl_module_addrdie finds it: 1 and *unit
 * set, or 0. */
int tcn_unit_index_find(const struct tcn_unit_index *ix, uint64_t addr, uint64_t *unit);

/* The index's bytes, for `dwarf` (a value naming the DWARF it was made from: one build ID
 * may have several, a debug package's dwz'd one and the build tree's); malloc'd, *len set,
 * or NULL. */
void *tcn_unit_index_encode(const struct tcn_unit_index *ix, uint64_t dwarf, size_t *len);

/* The index in data (len malloc'd bytes, 8-byte aligned) made for `dwarf`: 0, and ix reads
 * its runs where they are in data, which it takes; -1 when the bytes are not a whole, valid
 * index for that DWARF (the caller keeps data). */
int tcn_unit_index_decode(void *data, size_t len, uint64_t dwarf, struct tcn_unit_index *ix);

void tcn_unit_index_free(struct tcn_unit_index *ix);

#endif
