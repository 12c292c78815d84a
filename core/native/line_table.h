/* line_table.h - a compilation unit's line table as libdw gives it, and its bytes for the
 * debug cache.
 *
 * libdw decodes a unit's whole line program the first time one of its addresses is asked
 * about, with a malloc per row and a sort (read_srclines): 10.6 ms for zstd_lazy.c's 300 KB
 * program alone, most of the resolver's time on a zstd run. So the symbol resolver takes
 * the rows libdw made (their addresses, lines, files and ends of sequences, in libdw's
 * order) and the unit's file names into this table, looks addresses up in it as
 * dwfl_module_getsrc does (the same binary search, so the same row for every address), and
 * keeps its bytes in the debug cache by build ID and unit (debug_cache.h), where the next
 * process maps them and reads the rows and names where they are, instead of having libdw
 * decode the program again.
 *
 * The bytes carry a checksum and the unit they were made from; a table is taken only when
 * both match and every row is in order and names a file the table has. */
#ifndef TRACYC_NATIVE_LINE_TABLE_H
#define TRACYC_NATIVE_LINE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define TCN_LINE_END_SEQUENCE 0x80000000u /* in file: the row ends a sequence */
#define TCN_LINE_NO_FILE 0x7fffffffu      /* in file: libdw knows no name for the row's file */

struct tcn_line_row {
    uint64_t addr; /* before the module's bias */
    uint32_t line; /* libdw's (an int: a negative one is as libdw has it) */
    uint32_t file; /* index in files, or TCN_LINE_NO_FILE; | TCN_LINE_END_SEQUENCE */
};

struct tcn_line_table {
    struct tcn_line_row *rows;
    size_t nrows;
    const char **files; /* by the unit's file index (dwarf_filesrc's); NULL: no name */
    uint32_t nfiles;
    char *strings; /* the names, each ended by a 0 */
    size_t strings_len;
    void *bytes; /* decoded: the bytes the rows and names are read in (malloc'd); NULL: the rows
                  * and names are malloc'd apart */
    size_t bytes_len;
};

/* The row dwfl_module_getsrc would answer for addr (module address before bias), or NULL. */
const struct tcn_line_row *tcn_line_table_find(const struct tcn_line_table *t, uint64_t addr);

/* The table's bytes, for `unit` (a value naming the unit it was made from); malloc'd, *len
 * set, or NULL. */
void *tcn_line_table_encode(const struct tcn_line_table *t, uint64_t unit, size_t *len);

/* The table in data (len malloc'd bytes, 8-byte aligned) made for `unit`: 0, and t reads its
 * rows and names where they are in data, which it takes (freed with t); -1 when the bytes are
 * not a whole, valid table for that unit (the caller keeps data). */
int tcn_line_table_decode(void *data, size_t len, uint64_t unit, struct tcn_line_table *t);

/* Frees what t holds (the table itself is the caller's). */
void tcn_line_table_free(struct tcn_line_table *t);

#endif
