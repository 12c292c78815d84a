/* symbols.c - addresses to images, functions, files and lines (see symbols.h).
 *
 * libdwfl knows the process's modules from /proc/self/maps and finds each one's symbol
 * table and DWARF (in the file, or in a separate debug file found by build ID under
 * /usr/lib/debug/.build-id; never through debuginfod: tcn_symbols_new); libdw's scopes give
 * the functions inlined at an address, innermost first, each called from the
 * call_file/call_line of the one inside it (as eu-addr2line -i does). Files and lines come
 * from each unit's line table as libdw decodes it, kept in the debug cache for the next
 * process (line_table.h). The module list is read again when the dynamic loader has loaded
 * or unloaded something since (dl_iterate_phdr's adds/subs counters), or when an address
 * is in no known module. A fresh Dwfl is made then: reporting modules again into one that
 * has already been used leaves libdwfl's symbol tables broken (and can crash it).
 *
 * libdw is loaded at run time (libdw.c). Without it the dynamic loader answers (dladdr):
 * the image and the exported symbol at the address, nothing more.
 */
#include "native/symbols.h"

#include "native/debug_cache.h"
#include "native/demangle.h"
#include "native/libdw.h"
#include "native/line_table.h"
#include "native/loader_stamp.h"
#include "util/arena.h"
#include "util/map.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct symbol_source {
    const char *file;
    uint32_t line;
};

struct tcn_symbols {
    const struct tcn_libdw *dw; /* NULL: libdw is missing; dladdr answers */
    Dwfl_Callbacks callbacks;
    Dwfl *dwfl;
    FILE *maps; /* /proc/self/maps, kept (tcn_libdw_report_self) */
    struct tcn_loader_stamp loader;
    struct tcu_arena strings;
    struct tcu_map interned;  /* content hash -> string in `strings` */
    struct tcu_map locations; /* address -> struct tcn_symbol_location * */
    struct tcu_map sources;   /* symbol address -> struct symbol_source * */
    struct tcu_map units;     /* compilation unit -> struct cu_functions *, of the current Dwfl */
    struct tcu_map modules;   /* Dwfl_Module -> struct module_symbols *, of the current Dwfl */
    struct tcu_map lines;     /* compilation unit -> struct tcn_line_table * or &no_lines, of the current Dwfl */
    size_t memory;            /* of the locations and sources */
};

static const char unknown[] = "[unknown]";

/* A string that lives as long as the resolver; equal strings share one copy. */
static const char *intern(struct tcn_symbols *s, const char *text, size_t len)
{
    if (len > 65534) /* the protocol's longest string */
        len = 65534;
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, text, len);
    uint64_t *v = tcu_map_get(&s->interned, h);
    if (v) {
        const char *old = (const char *)(uintptr_t)*v;
        if (strncmp(old, text, len) == 0 && old[len] == 0)
            return old;
    }
    char *copy = tcu_arena_strdup(&s->strings, text, len);
    if (!copy)
        return unknown;
    if (!v)
        tcu_map_put(&s->interned, h, (uint64_t)(uintptr_t)copy);
    return copy;
}

static const char *intern_cstr(struct tcn_symbols *s, const char *text)
{
    return intern(s, text, strlen(text));
}

/* A Dwfl for the modules mapped now. The cached answers keep their own copies of every
 * string, so the old one can go. */
static void free_units(struct tcu_map *units);
static void free_modules(struct tcu_map *modules);
static void free_lines(struct tcu_map *lines);

static void report_modules(struct tcn_symbols *s)
{
    const struct tcn_libdw *dw = s->dw;
    free_units(&s->units); /* they point into the old Dwfl's data */
    free_modules(&s->modules);
    free_lines(&s->lines);
    if (s->dwfl)
        dw->dwfl_end(s->dwfl);
    s->dwfl = dw->dwfl_begin(&s->callbacks);
    if (!s->dwfl)
        return;
    dw->dwfl_report_begin(s->dwfl);
    tcn_libdw_report_self(s->dwfl, &s->maps);
    dw->dwfl_report_end(s->dwfl, NULL, NULL);
}

struct tcn_symbols *tcn_symbols_new(void)
{
    struct tcn_symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dw = tcn_libdw();
    if (s->dw) {
        /* Separate debug files by build ID only (/usr/lib/debug/.build-id, where distributions
         * install them). The standard search would go on to debuginfod: libdw loads
         * libdebuginfod, whose start-up initialises curl and OpenSSL in this thread, which
         * crashes when the program is exiting meanwhile (and could reach the network). */
        s->callbacks = (Dwfl_Callbacks){
            .find_elf = tcn_libdw_find_elf,
            .find_debuginfo = tcn_libdw_find_debuginfo,
        };
        tcn_loader_changed(&s->loader);
        report_modules(s);
    }
    return s;
}

/* Frees what the map's values point to: the table's, and address 0's, which the map keeps
 * apart (a server may ask about 0). */
static void free_values(struct tcu_map *m)
{
    for (size_t i = 0; m->slots && i <= m->mask; i++)
        if (m->slots[i].key)
            free((void *)(uintptr_t)m->slots[i].value);
    uint64_t *zero = tcu_map_get(m, 0);
    if (zero)
        free((void *)(uintptr_t)*zero);
}

void tcn_symbols_free(struct tcn_symbols *s)
{
    if (!s)
        return;
    free_values(&s->locations);
    free_values(&s->sources);
    free_units(&s->units);
    free_modules(&s->modules);
    free_lines(&s->lines);
    tcu_map_free(&s->locations);
    tcu_map_free(&s->sources);
    tcu_map_free(&s->interned);
    tcu_arena_free(&s->strings);
    if (s->dwfl)
        s->dw->dwfl_end(s->dwfl);
    if (s->maps)
        fclose(s->maps);
    free(s);
}

size_t tcn_symbols_memory(const struct tcn_symbols *s)
{
    return s->memory + s->strings.memory + tcu_map_memory(&s->interned) + tcu_map_memory(&s->locations) +
           tcu_map_memory(&s->sources);
}

/* The module of address, as the loader has things now: a library loaded since is found,
 * one unloaded since is not. An address in no library (JIT code, nothing mapped) reads
 * the module list only when the loader has changed something. */
static Dwfl_Module *module_of(struct tcn_symbols *s, uint64_t address)
{
    const struct tcn_libdw *dw = s->dw;
    if (tcn_loader_changed(&s->loader))
        report_modules(s);
    Dwfl_Module *mod = s->dwfl ? dw->dwfl_addrmodule(s->dwfl, address) : NULL;
    /* A module spans from its first mapping to its last; other memory (a JIT's) can lie in
     * a hole between them. Code of the module is in one of its sections. */
    Dwarf_Addr rel = address, bias;
    if (mod && !dw->dwfl_module_address_section(mod, &rel, &bias))
        return NULL;
    return mod;
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A function's name: its demangled linkage name (C++, Rust), else its plain name. */
static const char *function_name(struct tcn_symbols *s, Dwarf_Die *die)
{
    const struct tcn_libdw *dw = s->dw;
    Dwarf_Attribute attr;
    const char *linkage = dw->dwarf_formstring(dw->dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!linkage)
        linkage = dw->dwarf_formstring(dw->dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (linkage) {
        char *readable = tcn_demangle(linkage);
        if (readable) {
            const char *name = intern_cstr(s, readable);
            free(readable);
            return name;
        }
    }
    const char *name = dw->dwarf_diename(die);
    if (name)
        return intern_cstr(s, name);
    return linkage ? intern_cstr(s, linkage) : unknown;
}

static const char *symbol_name(struct tcn_symbols *s, const char *name)
{
    char *readable = tcn_demangle(name);
    if (!readable)
        return intern_cstr(s, name);
    const char *out = intern_cstr(s, readable);
    free(readable);
    return out;
}

/* The start of the address range of die that holds pc (a module address, before bias). */
static uint64_t range_start(const struct tcn_libdw *dw, Dwarf_Die *die, Dwarf_Addr pc)
{
    Dwarf_Addr base, start, end;
    for (ptrdiff_t off = 0; (off = dw->dwarf_ranges(die, off, &base, &start, &end)) > 0;)
        if (pc >= start && pc < end)
            return start;
    Dwarf_Addr entry;
    return dw->dwarf_entrypc(die, &entry) == 0 ? entry : 0;
}

/* The file of a call_file index in the CU's line table (lines: the unit's table, or NULL
 * to ask libdw). */
static const char *call_file(struct tcn_symbols *s, Dwarf_Die *cu, const struct tcn_line_table *lines,
                             Dwarf_Die *inlined)
{
    const struct tcn_libdw *dw = s->dw;
    Dwarf_Attribute attr;
    Dwarf_Word index;
    if (dw->dwarf_formudata(dw->dwarf_attr(inlined, DW_AT_call_file, &attr), &index) != 0)
        return unknown;
    if (lines)
        return index < lines->nfiles && lines->files[index] ? intern_cstr(s, lines->files[index]) : unknown;
    Dwarf_Files *files;
    size_t count;
    if (dw->dwarf_getsrcfiles(cu, &files, &count) != 0 || index >= count)
        return unknown;
    const char *file = dw->dwarf_filesrc(files, index, NULL, NULL);
    return file ? intern_cstr(s, file) : unknown;
}

static uint32_t call_line(const struct tcn_libdw *dw, Dwarf_Die *inlined)
{
    Dwarf_Attribute attr;
    Dwarf_Word line;
    return dw->dwarf_formudata(dw->dwarf_attr(inlined, DW_AT_call_line, &attr), &line) == 0 ? (uint32_t)line : 0;
}

/* ---- the symbol table ---------------------------------------------------------------- */

/* A module's function symbols by address, built on its first lookup (libdwfl's own lookup
 * reads the whole table each time). */
struct symbol_entry {
    uint64_t addr, size;
    const char *name; /* libdwfl's, valid while its Dwfl lives */
};

struct module_symbols {
    struct symbol_entry *v;
    size_t n;
};

static int by_addr(const void *a, const void *b)
{
    const struct symbol_entry *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct module_symbols *symbols_of(struct tcn_symbols *s, Dwfl_Module *mod)
{
    uint64_t key = (uint64_t)(uintptr_t)mod;
    uint64_t *v = tcu_map_get(&s->modules, key);
    if (v)
        return (struct module_symbols *)(uintptr_t)*v;
    struct module_symbols *ms = calloc(1, sizeof *ms);
    if (!ms)
        return NULL;
    const struct tcn_libdw *dw = s->dw;
    int count = dw->dwfl_module_getsymtab(mod);
    if (count > 0)
        ms->v = calloc((size_t)count, sizeof *ms->v);
    for (int i = 1; ms->v && i < count; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dw->dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        if (name && *name && addr && sym.st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC))
            ms->v[ms->n++] = (struct symbol_entry){addr, sym.st_size, name};
    }
    if (ms->n)
        qsort(ms->v, ms->n, sizeof *ms->v, by_addr);
    if (tcu_map_put(&s->modules, key, (uint64_t)(uintptr_t)ms) < 0) {
        free(ms->v);
        free(ms);
        return NULL;
    }
    s->memory += sizeof *ms + ms->n * sizeof *ms->v;
    return ms;
}

/* The function symbol that holds address (a sized one, else the nearest before it). */
static const struct symbol_entry *symbol_at(struct module_symbols *ms, uint64_t address)
{
    size_t lo = 0, hi = ms->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ms->v[mid].addr <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct symbol_entry *e = &ms->v[lo - 1];
    /* Aliases share an address: prefer one with a size. */
    for (size_t i = lo - 1; i > 0 && ms->v[i - 1].addr == e->addr && !e->size; i--)
        e = &ms->v[i - 1];
    if (e->size && address >= e->addr + e->size)
        return NULL;
    return e;
}

static void free_modules(struct tcu_map *modules)
{
    for (size_t i = 0; modules->slots && i <= modules->mask; i++)
        if (modules->slots[i].key) {
            struct module_symbols *ms = (struct module_symbols *)(uintptr_t)modules->slots[i].value;
            free(ms->v);
            free(ms);
        }
    tcu_map_free(modules);
    memset(modules, 0, sizeof *modules);
}

/* ---- the lines of a compilation unit ----------------------------------------------------- */

static struct tcn_line_table no_lines; /* a unit whose table libdw cannot give: ask libdw each time */
static int line_tables = 1;

void tcn_symbols_line_tables_for_tests(int on)
{
    line_tables = on;
}

/* The unit's table as libdw has it: its rows in libdw's order, each file by its index in
 * the unit's file names (libdw gives a row's file as a pointer to one of them). */
static int lines_from_libdw(struct tcn_symbols *s, Dwarf_Die *cu, struct tcn_line_table *t)
{
    const struct tcn_libdw *dw = s->dw;
    Dwarf_Lines *lines;
    Dwarf_Files *files;
    size_t nlines, nfiles;
    if (dw->dwarf_getsrclines(cu, &lines, &nlines) != 0 || dw->dwarf_getsrcfiles(cu, &files, &nfiles) != 0 ||
        nfiles >= TCN_LINE_NO_FILE)
        return -1;
    size_t total = 0;
    for (size_t i = 0; i < nfiles; i++) {
        const char *name = dw->dwarf_filesrc(files, i, NULL, NULL);
        total += name ? strlen(name) + 1 : 0;
    }
    struct tcu_map by_name = {0}; /* libdw's name -> index + 1 */
    t->strings = malloc(total ? total : 1);
    t->files = calloc(nfiles ? nfiles : 1, sizeof *t->files);
    t->rows = malloc(nlines ? nlines * sizeof *t->rows : 1);
    int ok = t->strings && t->files && t->rows;
    for (size_t i = 0; ok && i < nfiles; i++) {
        const char *name = dw->dwarf_filesrc(files, i, NULL, NULL);
        if (!name)
            continue;
        size_t len = strlen(name) + 1;
        memcpy(t->strings + t->strings_len, name, len);
        t->files[i] = t->strings + t->strings_len;
        t->strings_len += len;
        if (!tcu_map_get(&by_name, (uint64_t)(uintptr_t)name))
            ok = tcu_map_put(&by_name, (uint64_t)(uintptr_t)name, i + 1) >= 0;
    }
    t->nfiles = (uint32_t)nfiles;
    for (size_t i = 0; ok && i < nlines; i++) {
        Dwarf_Line *line = dw->dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        int lineno;
        bool end;
        ok = line && dw->dwarf_lineaddr(line, &addr) == 0 && dw->dwarf_lineno(line, &lineno) == 0 &&
             dw->dwarf_lineendsequence(line, &end) == 0;
        const char *name = ok ? dw->dwarf_linesrc(line, NULL, NULL) : NULL;
        const uint64_t *index = name ? tcu_map_get(&by_name, (uint64_t)(uintptr_t)name) : NULL;
        ok = ok && (!name || index); /* (a name not in the unit's files: libdw is asked instead) */
        if (!ok)
            break;
        t->rows[i] = (struct tcn_line_row){addr, (uint32_t)lineno,
                                           (index ? (uint32_t)(*index - 1) : TCN_LINE_NO_FILE) |
                                               (end ? TCN_LINE_END_SEQUENCE : 0)};
    }
    t->nrows = nlines;
    tcu_map_free(&by_name);
    if (!ok)
        tcn_line_table_free(t);
    return ok ? 0 : -1;
}

/* What names the unit, for its table's bytes: where it is and what it says it is. */
static uint64_t unit_identity(const struct tcn_libdw *dw, Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    Dwarf_Word stmt_list = 0;
    uint64_t offset = dw->dwarf_dieoffset(cu);
    const char *name = dw->dwarf_diename(cu);
    const char *comp_dir = dw->dwarf_formstring(dw->dwarf_attr(cu, DW_AT_comp_dir, &attr));
    dw->dwarf_formudata(dw->dwarf_attr(cu, DW_AT_stmt_list, &attr), &stmt_list);
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, &offset, sizeof offset);
    h = tcu_hash_bytes(h, &stmt_list, sizeof stmt_list);
    h = tcu_hash_bytes(h, name ? name : "", name ? strlen(name) : 0);
    return tcu_hash_bytes(h, comp_dir ? comp_dir : "", comp_dir ? strlen(comp_dir) : 0);
}

/* The unit's line table: from the debug cache when a process made it already, else from
 * libdw (and put there); NULL when libdw cannot give one (ask it row by row then). */
static const struct tcn_line_table *lines_of(struct tcn_symbols *s, Dwfl_Module *mod, Dwarf_Die *cu)
{
    uint64_t key = (uint64_t)(uintptr_t)cu->addr;
    uint64_t *v = tcu_map_get(&s->lines, key);
    if (v)
        return *v == (uint64_t)(uintptr_t)&no_lines ? NULL : (const struct tcn_line_table *)(uintptr_t)*v;
    if (!line_tables)
        return NULL;
    const struct tcn_libdw *dw = s->dw;
    struct tcn_line_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    /* Named by the module's build ID and the unit's offset. */
    char name[2 * 64 + 40] = "";
    const unsigned char *id;
    GElf_Addr id_at;
    int len = dw->dwfl_module_build_id(mod, &id, &id_at);
    for (int i = 0; len >= 1 && len <= 64 && i < len; i++)
        snprintf(name + 2 * i, 3, "%02x", id[i]);
    if (name[0])
        snprintf(name + 2 * len, sizeof name - 2 * (size_t)len, "-%" PRIx64 ".lines",
                 (uint64_t)dw->dwarf_dieoffset(cu));
    uint64_t unit = unit_identity(dw, cu);
    size_t size = 0;
    void *bytes = name[0] ? tcn_debug_cache_read(name, &size) : NULL;
    int ok = bytes && tcn_line_table_decode(bytes, size, unit, t) == 0;
    if (bytes && !ok)
        free(bytes);
    if (!ok && (ok = lines_from_libdw(s, cu, t) == 0) && name[0] && (bytes = tcn_line_table_encode(t, unit, &size))) {
        tcn_debug_cache_write(name, bytes, size);
        free(bytes);
    }
    if (!ok) {
        free(t);
        t = &no_lines;
    }
    if (tcu_map_put(&s->lines, key, (uint64_t)(uintptr_t)t) < 0) {
        if (t != &no_lines) {
            tcn_line_table_free(t);
            free(t);
        }
        return NULL;
    }
    if (t == &no_lines)
        return NULL;
    s->memory += sizeof *t + t->nrows * sizeof *t->rows + t->nfiles * sizeof *t->files + t->strings_len;
    return t;
}

static void free_lines(struct tcu_map *lines)
{
    for (size_t i = 0; lines->slots && i <= lines->mask; i++)
        if (lines->slots[i].key) {
            struct tcn_line_table *t = (struct tcn_line_table *)(uintptr_t)lines->slots[i].value;
            if (t != &no_lines) {
                tcn_line_table_free(t);
                free(t);
            }
        }
    tcu_map_free(lines);
    memset(lines, 0, sizeof *lines);
}

/* Where the code at address is: the file and line of the line table's row for it, or
 * "[unknown]" and 0. */
static void source_of(struct tcn_symbols *s, Dwfl_Module *mod, const struct tcn_line_table *lines, uint64_t address,
                      uint64_t pc, const char **file, uint32_t *line)
{
    *file = unknown;
    *line = 0;
    if (lines) {
        const struct tcn_line_row *row = tcn_line_table_find(lines, pc);
        uint32_t index = row ? row->file & ~TCN_LINE_END_SEQUENCE : TCN_LINE_NO_FILE;
        if (index < lines->nfiles && lines->files[index]) {
            *file = intern_cstr(s, lines->files[index]);
            *line = (int)row->line > 0 ? row->line : 0;
        }
        return;
    }
    Dwfl_Line *row = s->dw->dwfl_module_getsrc(mod, address);
    int lineno = 0;
    const char *src = row ? s->dw->dwfl_lineinfo(row, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (src) {
        *file = intern_cstr(s, src);
        *line = lineno > 0 ? (uint32_t)lineno : 0;
    }
}

/* ---- the functions at an address ------------------------------------------------------- */

/* A compilation unit's functions by address, built the first time one of its addresses is
 * asked about: one walk over its DIEs, then a binary search per address, where
 * dwarf_getscopes would walk the whole unit again for every address. */
struct function_range {
    uint64_t low, high; /* module addresses before bias */
    Dwarf_Die die;
};

struct cu_functions {
    struct function_range *v;
    size_t n, cap;
};

static void add_function(const struct tcn_libdw *dw, struct cu_functions *fns, Dwarf_Die *die)
{
    Dwarf_Addr base, start, end;
    for (ptrdiff_t off = 0; (off = dw->dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
        if (fns->n == fns->cap) {
            size_t cap = fns->cap ? fns->cap * 2 : 64;
            struct function_range *v = realloc(fns->v, cap * sizeof *v);
            if (!v)
                return;
            fns->v = v;
            fns->cap = cap;
        }
        fns->v[fns->n++] = (struct function_range){start, end, *die};
    }
}

/* Function definitions with code, at the top of the unit or in namespaces and classes. */
static void collect_functions(const struct tcn_libdw *dw, struct cu_functions *fns, Dwarf_Die *parent)
{
    Dwarf_Die child;
    if (dw->dwarf_child(parent, &child) != 0)
        return;
    do {
        switch (dw->dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            add_function(dw, fns, &child);
            break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
        case DW_TAG_module:
            collect_functions(dw, fns, &child);
            break;
        default:
            break;
        }
    } while (dw->dwarf_siblingof(&child, &child) == 0);
}

static int by_low(const void *a, const void *b)
{
    const struct function_range *x = a, *y = b;
    return x->low < y->low ? -1 : x->low > y->low;
}

static struct cu_functions *functions_of(struct tcn_symbols *s, Dwarf_Die *cu)
{
    uint64_t key = (uint64_t)(uintptr_t)cu->addr;
    uint64_t *v = tcu_map_get(&s->units, key);
    if (v)
        return (struct cu_functions *)(uintptr_t)*v;
    struct cu_functions *fns = calloc(1, sizeof *fns);
    if (!fns)
        return NULL;
    collect_functions(s->dw, fns, cu);
    if (fns->n)
        qsort(fns->v, fns->n, sizeof *fns->v, by_low);
    if (tcu_map_put(&s->units, key, (uint64_t)(uintptr_t)fns) < 0) {
        free(fns->v);
        free(fns);
        return NULL;
    }
    s->memory += sizeof *fns + fns->cap * sizeof *fns->v;
    return fns;
}

static void free_units(struct tcu_map *units)
{
    for (size_t i = 0; units->slots && i <= units->mask; i++)
        if (units->slots[i].key) {
            struct cu_functions *fns = (struct cu_functions *)(uintptr_t)units->slots[i].value;
            free(fns->v);
            free(fns);
        }
    tcu_map_free(units);
    memset(units, 0, sizeof *units);
}

static int function_at(struct cu_functions *fns, uint64_t pc, Dwarf_Die *out)
{
    size_t lo = 0, hi = fns->n;
    while (lo < hi) { /* the first range starting after pc */
        size_t mid = (lo + hi) / 2;
        if (fns->v[mid].low <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) { /* ranges may nest (a function inside one's range) */
        if (pc < fns->v[i].high) {
            *out = fns->v[i].die;
            return 1;
        }
        if (lo - i > 8)
            break;
    }
    return 0;
}

/* The inlined instances that hold pc inside die, outermost first, appended to chain. */
static void inlined_at(const struct tcn_libdw *dw, Dwarf_Die *die, uint64_t pc, Dwarf_Die *chain, int *depth, int max)
{
    Dwarf_Die child;
    if (dw->dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dw->dwarf_tag(&child);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
            continue;
        Dwarf_Attribute attr;
        int has_pc = dw->dwarf_attr(&child, DW_AT_low_pc, &attr) || dw->dwarf_attr(&child, DW_AT_ranges, &attr);
        if (has_pc && dw->dwarf_haspc(&child, pc) != 1)
            continue;
        if (!has_pc) { /* a block without addresses of its own: look inside */
            int before = *depth;
            inlined_at(dw, &child, pc, chain, depth, max);
            if (*depth != before)
                return;
            continue;
        }
        if (tag == DW_TAG_inlined_subroutine && *depth < max)
            chain[(*depth)++] = child;
        inlined_at(dw, &child, pc, chain, depth, max);
        return;
    } while (dw->dwarf_siblingof(&child, &child) == 0);
}

/* Fills frames from the DWARF at address, innermost first; returns how many. */
static int dwarf_frames(struct tcn_symbols *s, Dwfl_Module *mod, uint64_t address, struct tcn_symbol_frame *frames)
{
    const struct tcn_libdw *dw = s->dw;
    Dwarf_Addr bias;
    Dwarf_Die *cu = dw->dwfl_module_addrdie(mod, address, &bias);
    if (!cu)
        return 0;
    uint64_t pc = address - bias;
    /* The function, then the instances inlined into it that hold the address. */
    Dwarf_Die chain[TCN_SYMBOLS_MAX_FRAMES];
    int depth = 0;
    struct cu_functions *fns = functions_of(s, cu);
    if (!fns || !function_at(fns, pc, &chain[0]))
        return 0;
    depth = 1;
    inlined_at(dw, &chain[0], pc, chain, &depth, TCN_SYMBOLS_MAX_FRAMES);

    /* Where the innermost function is: the line table's row for the address. */
    const char *file;
    uint32_t line;
    const struct tcn_line_table *lines = lines_of(s, mod, cu);
    source_of(s, mod, lines, address, pc, &file, &line);
    int n = 0;
    for (int i = depth; i-- > 0;) {
        Dwarf_Die *die = &chain[i];
        struct tcn_symbol_frame *f = &frames[n++];
        f->name = function_name(s, die);
        f->file = file;
        f->line = line;
        if (i == 0) { /* the function that contains the address: its code's extent */
            Dwarf_Addr low = 0, high = 0;
            if (dw->dwarf_lowpc(die, &low) == 0 && dw->dwarf_highpc(die, &high) == 0 && high > low) {
                f->sym_addr = low + bias;
                f->sym_len = (uint32_t)(high - low);
            } else { /* split in several ranges (hot and cold parts): the one at pc */
                Dwarf_Addr base, start, end;
                for (ptrdiff_t off = 0; (off = dw->dwarf_ranges(die, off, &base, &start, &end)) > 0;)
                    if (pc >= start && pc < end) {
                        f->sym_addr = start + bias;
                        f->sym_len = (uint32_t)(end - start);
                        break;
                    }
            }
            break;
        }
        uint64_t start = range_start(dw, die, pc);
        f->sym_addr = start ? start + bias : 0;
        f->sym_len = 0;
        /* The function it was inlined into is at the call site. */
        file = call_file(s, cu, lines, die);
        line = call_line(dw, die);
    }
    return n;
}

/* A frame named by a symbol table's entry. */
static struct tcn_symbol_frame symbol_frame(struct tcn_symbols *s, const char *sym_name, uint64_t sym_addr,
                                            uint32_t sym_len)
{
    return (struct tcn_symbol_frame){symbol_name(s, sym_name), unknown, 0, sym_addr, sym_len};
}

/* An address no symbol covers (a stripped library's own functions, as zlib's in Debian):
 * named by its file and its address in the file's ELF layout, "libz.so.1.2.13+0x4a26", as
 * perf shows it and addr2line or objdump take it. Each address is its own entry: one
 * "[libz.so.1.2.13]" for all of them lumped every function of the file together. */
static struct tcn_symbol_frame offset_frame(struct tcn_symbols *s, const char *image, uint64_t file_address)
{
    char name[300];
    snprintf(name, sizeof name, "%s+0x%" PRIx64, basename_of(image), file_address);
    return (struct tcn_symbol_frame){intern_cstr(s, name), unknown, 0, 0, 0};
}

/* With libdw: the DWARF's functions, else the whole symbol table's. */
static int libdw_frames(struct tcn_symbols *s, uint64_t address, const char **image, struct tcn_symbol_frame *frames)
{
    Dwfl_Module *mod = module_of(s, address);
    if (!mod)
        return 0;
    const char *path = s->dw->dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    *image = path ? intern_cstr(s, path) : unknown;
    int n = dwarf_frames(s, mod, address, frames);
    if (n == 0) {
        /* No debug information: the symbol table's name, else the image and the offset. */
        struct module_symbols *ms = symbols_of(s, mod);
        const struct symbol_entry *e = ms ? symbol_at(ms, address) : NULL;
        Dwarf_Addr rel = address, bias = 0;
        s->dw->dwfl_module_address_section(mod, &rel, &bias);
        frames[0] = e ? symbol_frame(s, e->name, e->addr, (uint32_t)e->size) : offset_frame(s, *image, address - bias);
        n = 1;
    }
    return n;
}

/* Without libdw: what the dynamic loader knows, the image and its exported (dynamic)
 * symbols with their sizes; no files, lines or inlined functions, and an address in a
 * function the library keeps to itself is named by the image and its offset. */
static int dladdr_frames(struct tcn_symbols *s, uint64_t address, const char **image, struct tcn_symbol_frame *frames)
{
    Dl_info info;
    struct link_map *map = NULL;
    const ElfW(Sym) *sym = NULL;
    void *at = (void *)(uintptr_t)address;
    if (!dladdr1(at, &info, (void **)&map, RTLD_DL_LINKMAP) || !map || !info.dli_fname)
        return 0;
    /* The program itself has no name in the loader's list (dladdr says argv[0]). */
    char exe[4096];
    const char *path = info.dli_fname;
    if (!map->l_name || !map->l_name[0]) {
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len > 0) {
            exe[len] = 0;
            path = exe;
        }
    }
    *image = intern_cstr(s, path);
    if (info.dli_sname && info.dli_saddr && dladdr1(at, &info, (void **)&sym, RTLD_DL_SYMENT) && sym)
        frames[0] = symbol_frame(s, info.dli_sname, (uint64_t)(uintptr_t)info.dli_saddr, (uint32_t)sym->st_size);
    else
        frames[0] = offset_frame(s, *image, address - (uint64_t)map->l_addr);
    return 1;
}

static const struct tcn_symbol_location *resolve(struct tcn_symbols *s, uint64_t address)
{
    struct tcn_symbol_frame frames[TCN_SYMBOLS_MAX_FRAMES];
    const char *image = unknown;
    int n = s->dw ? libdw_frames(s, address, &image, frames) : dladdr_frames(s, address, &image, frames);
    if (n == 0) {
        frames[0] = (struct tcn_symbol_frame){unknown, unknown, 0, 0, 0};
        n = 1;
    }
    size_t size = sizeof(struct tcn_symbol_location) + (size_t)n * sizeof(struct tcn_symbol_frame);
    struct tcn_symbol_location *loc = malloc(size);
    if (!loc) {
        static const struct tcn_symbol_location none = {unknown, 1, {{unknown, unknown, 0, 0, 0}}};
        return &none;
    }
    loc->image = image;
    loc->count = (uint8_t)n;
    memcpy(loc->frames, frames, (size_t)n * sizeof *frames);
    if (tcu_map_put(&s->locations, address, (uint64_t)(uintptr_t)loc) < 0) {
        free(loc);
        static const struct tcn_symbol_location none = {unknown, 1, {{unknown, unknown, 0, 0, 0}}};
        return &none;
    }
    s->memory += size;
    return loc;
}

const struct tcn_symbol_location *tcn_symbols_location(struct tcn_symbols *s, uint64_t address)
{
    const uint64_t *v = tcu_map_get(&s->locations, address);
    return v ? (const struct tcn_symbol_location *)(uintptr_t)*v : resolve(s, address);
}

void tcn_symbols_symbol(struct tcn_symbols *s, uint64_t sym_addr, const char **file, uint32_t *line)
{
    const uint64_t *v = tcu_map_get(&s->sources, sym_addr);
    if (v) {
        const struct symbol_source *src = (const struct symbol_source *)(uintptr_t)*v;
        *file = src->file;
        *line = src->line;
        return;
    }
    *file = unknown;
    *line = 0;
    if (!s->dw)
        return; /* dladdr knows no files */
    Dwfl_Module *mod = module_of(s, sym_addr);
    Dwarf_Addr bias;
    Dwarf_Die *cu = mod ? s->dw->dwfl_module_addrdie(mod, sym_addr, &bias) : NULL;
    if (cu)
        source_of(s, mod, lines_of(s, mod, cu), sym_addr, sym_addr - bias, file, line);
    struct symbol_source *src = malloc(sizeof *src);
    if (src) {
        *src = (struct symbol_source){*file, *line};
        if (tcu_map_put(&s->sources, sym_addr, (uint64_t)(uintptr_t)src) < 0)
            free(src);
        else
            s->memory += sizeof *src;
    }
}
