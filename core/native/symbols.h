/* symbols.h - what an address of the program is: its image, function, source file and
 * line, with the functions inlined there expanded (elfutils' libdwfl and libdw). Answers
 * the server's CallstackFrame and Symbol queries (docs/protocol.md §26.3). Without libdw
 * (libdw.h), only the image and its exported symbols are known (dladdr).
 *
 * Not thread-safe: one resolver thread owns it (resolver.c). Results are cached for the
 * resolver's life, so a second server asking again costs a lookup.
 */
#ifndef TRACYC_NATIVE_SYMBOLS_H
#define TRACYC_NATIVE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Most frames one address expands to (the protocol's count is a byte). */
#define TCN_SYMBOLS_MAX_FRAMES 64

struct tcn_symbol_frame {
    const char *name; /* demangled; "image+0x<address in the file>" when no symbol covers it,
                       * "[unknown]" outside any file */
    const char *file; /* "[unknown]" without line information */
    uint32_t line;
    uint64_t sym_addr; /* the function's (or inlined instance's) first address; 0: none */
    uint32_t sym_len;  /* its size; 0 for inlined instances and unknown sizes */
};

/* One address: frames[0] is the innermost function inlined there, frames[count - 1] the
 * function that contains it, as upstream sends them. */
struct tcn_symbol_location {
    const char *image; /* path of the loaded file, "[unknown]" outside any */
    uint8_t count;     /* >= 1 */
    struct tcn_symbol_frame frames[];
};

struct tcn_symbols;

struct tcn_symbols *tcn_symbols_new(void);
void tcn_symbols_free(struct tcn_symbols *s);

/* The frames of address; never NULL (an unknown address gets one "[unknown]" frame). */
const struct tcn_symbol_location *tcn_symbols_location(struct tcn_symbols *s, uint64_t address);
/* Source file and line of a symbol address this resolver returned as a sym_addr
 * ("[unknown]" and 0 when it has none). */
void tcn_symbols_symbol(struct tcn_symbols *s, uint64_t sym_addr, const char **file, uint32_t *line);
/* Bytes held by the caches (not libdw's own). */
size_t tcn_symbols_memory(const struct tcn_symbols *s);

/* Tests: 0 has resolvers made from then on ask libdw for each address's line and each
 * inlined call's file (dwfl_module_getsrc, dwarf_getsrcfiles) instead of reading the units'
 * line tables (line_table.h): what the tables must answer alike. 1 (the default): tables. */
void tcn_symbols_line_tables_for_tests(int on);

#endif
