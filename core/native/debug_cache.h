/* debug_cache.h - separate debug files kept uncompressed on disk, by build ID (and what
 * else libdw makes slowly from DWARF: copies of files to map, units' line tables).
 *
 * Distributions ship debug files with compressed sections (SHF_COMPRESSED: Debian's
 * libc6-dbg has 4 MB of them for libc, 10 MB inflated). libdw inflates every one of them
 * whole when it opens the file (dwarf_begin_elf), even to resolve one address: 40 ms of
 * libc alone, in every profiled process whose samples pass through libc (all of them).
 * So the first process that needs such a file writes an uncompressed copy of it to a cache
 * directory (TRACYC_DEBUG_CACHE, default $XDG_CACHE_HOME/tracyc/debug, else
 * $HOME/.cache/tracyc/debug), named by its build ID, and libdw reads that copy from then on
 * (mapped: only the pages it looks at are read). The copy has the same sections in the same
 * order, with the same contents inflated, so the DWARF read from it, and every name, file,
 * line and inlined frame resolved, is the same (tests/c/test_debug_cache.c compares them).
 *
 * A copy is written to a temporary name and renamed into place, so a reader sees a whole
 * file or none; files are taken out, least recently used first, when the directory's copies
 * pass TRACYC_DEBUG_CACHE_LIMIT (default 512M). Called from libdwfl's callbacks (libdw.c):
 * the symbol resolver's thread and the sample unwinder's; two threads making the same copy
 * at once meet at its temporary name (O_EXCL), and one of them reads the original.
 */
#ifndef TRACYC_NATIVE_DEBUG_CACHE_H
#define TRACYC_NATIVE_DEBUG_CACHE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* The libelf functions it uses: libdw.c's table (libdw.h), which loads them. */
struct tcn_debug_cache_elf {
    __typeof__(elf_begin) *begin;
    __typeof__(elf_end) *end;
    __typeof__(elf_nextscn) *nextscn;
    __typeof__(gelf_getshdr) *getshdr;
    __typeof__(elf_compress) *compress; /* NULL (libelf before 0.165): no cache */
    __typeof__(elf_update) *update;
};

/* The directory (NULL: no cache) and the most bytes its copies may take together. Copied;
 * called at start-up, before symbols are resolved. */
void tcn_debug_cache_configure(const char *dir, size_t limit);

/* Writes to path (cap bytes) the path of an uncompressed copy of the debug file
 * `debug_file`, whose build ID is id[len], made now when there is none yet, and returns 0;
 * -1 when there is no cache, the file has no compressed sections, or no copy can be made
 * (the caller then reads debug_file itself). */
int tcn_debug_cache_copy(const struct tcn_debug_cache_elf *elf, const unsigned char *id, int len,
                         const char *debug_file, char *path, size_t cap);

/* A module's own file that carries its DWARF (a program or library built with -g, not
 * stripped) is read by libelf into memory, all of it, when libdw first looks at it (8 MB
 * for a zstd built with -g: ~5 ms in each of the resolver and the sample unwinder): it
 * cannot be mapped, as perf would take the mapping for the loaded file (libdw.h). A copy of
 * it can: the first process writes one, byte for byte, named by the file's build ID with
 * ".elf", in the same directory under the same limit and rules, and libdw maps it from
 * then on, reading only the pages it looks at. Taken when its size, ELF header and section
 * headers are the file's; files with less than TCN_DEBUG_CACHE_MODULE_MIN bytes of sections
 * that are not loaded, with compressed sections or without a build ID are not copied.
 * Writes to path (cap bytes) the copy's path, made now when missing and `make` (a bad one is
 * replaced by the rename), and returns 0; -1 when there is no cache or no copy (the caller
 * reads the file itself). */
#define TCN_DEBUG_CACHE_MODULE_MIN (64 * 1024)
int tcn_debug_cache_module(const char *file, int make, char *path, size_t cap);

/* Files of bytes named `name` (ending with ".lines": line tables, line_table.h; ".units":
 * unit_index.h; ".scopes": unit_scopes.h), under the
 * same limit and rules. Read: the whole file, malloc'd (free it), *len set, marked used;
 * NULL when there is none (the caller validates what it reads; read, not mapped, so a file
 * changed or cut short afterwards changes nothing). Write: 0 when it is in place. */
void *tcn_debug_cache_read(const char *name, size_t *len);
int tcn_debug_cache_write(const char *name, const void *data, size_t len);

/* A checksum of bytes kept in the cache: what a file cut short or changed fails. */
uint64_t tcn_debug_cache_checksum(const void *data, size_t len);

/* Each file of bytes begins with a header whose first 12 bytes are its kind's 8-byte magic
 * and this machine's byte order (the cache is the machine's own, read as it was written).
 * Mark: writes them into header. Header: copies the header_len bytes of data's header out
 * (alignment aside): 0 when data holds one and it is marked magic, in this machine's order;
 * -1 otherwise. */
void tcn_debug_cache_mark(void *header, const char *magic);
int tcn_debug_cache_header(const void *data, size_t len, void *header, size_t header_len, const char *magic);

#endif
