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
#include "native/unit_index.h"
#include "native/unit_scopes.h"
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
    struct tcu_map units;     /* Dwfl_Module -> struct module_units *, of the current Dwfl */
    struct tcu_map modules;   /* Dwfl_Module -> struct module_symbols *, of the current Dwfl */
    size_t memory;            /* of the locations and sources */
    size_t dwfl_memory;       /* of the units, modules' symbols and line tables, of the current Dwfl */
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

static void report_modules(struct tcn_symbols *s)
{
    const struct tcn_libdw *dw = s->dw;
    free_units(&s->units); /* they point into the old Dwfl's data */
    free_modules(&s->modules);
    s->dwfl_memory = 0;
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
    return s->memory + s->dwfl_memory + s->strings.memory + tcu_map_memory(&s->interned) +
           tcu_map_memory(&s->locations) + tcu_map_memory(&s->sources);
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

static const char *symbol_name(struct tcn_symbols *s, const char *name)
{
    char *readable = tcn_demangle(name);
    if (!readable)
        return intern_cstr(s, name);
    const char *out = intern_cstr(s, readable);
    free(readable);
    return out;
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
    s->dwfl_memory += sizeof *ms + ms->n * sizeof *ms->v;
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

/* ---- the units of a module --------------------------------------------------------------- */

/* A compilation unit, as far as its addresses have been asked about: its scopes (made or
 * read from the debug cache when it is first found), its line table (at its first line). */
struct unit {
    uint64_t offset;   /* its DIE's, in .debug_info */
    uint64_t identity; /* names it for its cached tables: its module's DWARF and its offset */
    struct tcn_unit_scopes scopes;
    struct tcn_line_table *lines; /* NULL: libdw gives none (ask it row by row) */
    int lines_tried;
};

/* A module's DWARF: which unit holds an address, and the units found so far. */
struct module_units {
    Dwarf *dbg; /* NULL: the module has no DWARF */
    Dwarf_Addr bias;
    uint64_t dwarf_id; /* dwarf_identity's */
    struct tcn_unit_index index;
    struct tcu_map units; /* DIE offset -> struct unit * */
};

/* The debug cache's name for what is made of mod's DWARF: its build ID in hex, then tail;
 * "" when it has no build ID. */
static void cache_name(const struct tcn_libdw *dw, Dwfl_Module *mod, const char *tail, char *name, size_t cap)
{
    const unsigned char *id;
    GElf_Addr id_at;
    int len = dw->dwfl_module_build_id(mod, &id, &id_at);
    name[0] = 0;
    if (len < 1 || len > 64 || (size_t)(2 * len) + strlen(tail) >= cap)
        return;
    for (int i = 0; i < len; i++)
        snprintf(name + 2 * i, 3, "%02x", id[i]);
    strcpy(name + 2 * len, tail);
}

/* What tells the DWARF libdw reads for a module apart from another with the same build ID
 * (a debug package's, compressed by dwz, and the build tree's: other units at other
 * offsets): the layout of the file's sections. What is cached of a module's DWARF is named
 * by its build ID and taken only when made for the same layout. */
static uint64_t dwarf_identity(const struct tcn_libdw *dw, Dwarf *dbg)
{
    Elf *elf = dw->dwarf_getelf(dbg);
    uint64_t h = TCU_HASH_INIT;
    GElf_Shdr shdr;
    for (Elf_Scn *scn = NULL; elf && (scn = dw->elf_nextscn(elf, scn)) != NULL;)
        if (dw->gelf_getshdr(scn, &shdr)) {
            uint64_t fields[] = {shdr.sh_name, shdr.sh_type, shdr.sh_flags, shdr.sh_offset, shdr.sh_size};
            h = tcu_hash_bytes(h, fields, sizeof fields);
        }
    return h;
}

static void free_unit(struct unit *u)
{
    tcn_unit_scopes_free(&u->scopes);
    if (u->lines) {
        tcn_line_table_free(u->lines);
        free(u->lines);
    }
    free(u);
}

static void free_units(struct tcu_map *modules)
{
    for (size_t i = 0; modules->slots && i <= modules->mask; i++)
        if (modules->slots[i].key) {
            struct module_units *mu = (struct module_units *)(uintptr_t)modules->slots[i].value;
            for (size_t j = 0; mu->units.slots && j <= mu->units.mask; j++)
                if (mu->units.slots[j].key)
                    free_unit((struct unit *)(uintptr_t)mu->units.slots[j].value);
            tcu_map_free(&mu->units);
            tcn_unit_index_free(&mu->index);
            free(mu);
        }
    tcu_map_free(modules);
    memset(modules, 0, sizeof *modules);
}

/* The module's DWARF and its index of units: read from the debug cache, else made from the
 * DWARF's address ranges (and put there). */
static struct module_units *units_of(struct tcn_symbols *s, Dwfl_Module *mod)
{
    uint64_t key = (uint64_t)(uintptr_t)mod;
    uint64_t *v = tcu_map_get(&s->units, key);
    if (v)
        return (struct module_units *)(uintptr_t)*v;
    const struct tcn_libdw *dw = s->dw;
    struct module_units *mu = calloc(1, sizeof *mu);
    if (!mu)
        return NULL;
    mu->dbg = dw->dwfl_module_getdwarf(mod, &mu->bias);
    if (mu->dbg)
        mu->dwarf_id = dwarf_identity(dw, mu->dbg);
    char name[2 * 64 + sizeof ".units"];
    cache_name(dw, mod, ".units", name, sizeof name);
    size_t size = 0;
    void *bytes = mu->dbg && name[0] ? tcn_debug_cache_read(name, &size) : NULL;
    if (bytes && tcn_unit_index_decode(bytes, size, mu->dwarf_id, &mu->index) != 0) {
        free(bytes);
        bytes = NULL;
    }
    if (!bytes && mu->dbg && tcn_unit_index_build(dw, mu->dbg, &mu->index) == 0 && name[0] &&
        (bytes = tcn_unit_index_encode(&mu->index, mu->dwarf_id, &size))) {
        tcn_debug_cache_write(name, bytes, size);
        free(bytes);
    }
    if (tcu_map_put(&s->units, key, (uint64_t)(uintptr_t)mu) < 0) {
        tcn_unit_index_free(&mu->index);
        free(mu);
        return NULL;
    }
    s->dwfl_memory += sizeof *mu + mu->index.nruns * sizeof *mu->index.runs;
    return mu;
}

/* The unit's DIE (libdw reads every unit header before it, the first time). */
static Dwarf_Die *unit_die(const struct module_units *mu, const struct unit *u, struct tcn_symbols *s, Dwarf_Die *die)
{
    return mu->dbg ? s->dw->dwarf_offdie(mu->dbg, u->offset, die) : NULL;
}

/* The unit's scopes: from the debug cache when a process made them already, else from its
 * DIEs (and put there). 0, or -1. */
static int scopes_of(struct tcn_symbols *s, Dwfl_Module *mod, struct module_units *mu, struct unit *u)
{
    const struct tcn_libdw *dw = s->dw;
    char tail[40], name[2 * 64 + 40];
    snprintf(tail, sizeof tail, "-%" PRIx64 ".scopes", u->offset);
    cache_name(dw, mod, tail, name, sizeof name);
    size_t size = 0;
    void *bytes = name[0] ? tcn_debug_cache_read(name, &size) : NULL;
    if (bytes && tcn_unit_scopes_decode(bytes, size, u->identity, &u->scopes) == 0)
        return 0;
    free(bytes);
    Dwarf_Die die;
    if (!unit_die(mu, u, s, &die) || tcn_unit_scopes_build(dw, &die, &u->scopes) != 0)
        return -1;
    if (name[0] && (bytes = tcn_unit_scopes_encode(&u->scopes, u->identity, &size))) {
        tcn_debug_cache_write(name, bytes, size);
        free(bytes);
    }
    return 0;
}

/* The unit whose code holds address (as dwfl_module_addrdie finds it), and the bias of the
 * module's DWARF; NULL when there is none. */
static struct unit *unit_at(struct tcn_symbols *s, Dwfl_Module *mod, uint64_t address, Dwarf_Addr *bias)
{
    struct module_units *mu = units_of(s, mod);
    uint64_t offset;
    if (!mu || !mu->dbg || !tcn_unit_index_find(&mu->index, address - mu->bias, &offset))
        return NULL;
    *bias = mu->bias;
    uint64_t *v = tcu_map_get(&mu->units, offset);
    if (v)
        return (struct unit *)(uintptr_t)*v;
    struct unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->offset = offset;
    u->identity =
        tcu_hash_bytes(tcu_hash_bytes(TCU_HASH_INIT, &mu->dwarf_id, sizeof mu->dwarf_id), &offset, sizeof offset);
    /* A unit libdw cannot read keeps no scopes and no lines: it is not asked again. */
    if (scopes_of(s, mod, mu, u) != 0)
        u->lines_tried = 1;
    if (tcu_map_put(&mu->units, offset, (uint64_t)(uintptr_t)u) < 0) {
        free_unit(u);
        return NULL;
    }
    const struct tcn_unit_scopes *t = &u->scopes;
    s->dwfl_memory += sizeof *u + t->nfunctions * sizeof *t->functions + t->nscopes * sizeof *t->scopes +
                      t->nranges * sizeof *t->ranges + t->strings_len;
    return u;
}

/* ---- the lines of a compilation unit ----------------------------------------------------- */

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

/* The unit's line table: from the debug cache when a process made it already, else from
 * libdw (and put there); NULL when libdw cannot give one (ask it row by row then). */
static const struct tcn_line_table *lines_of(struct tcn_symbols *s, Dwfl_Module *mod, struct unit *u)
{
    if (u->lines_tried || !line_tables)
        return u->lines;
    u->lines_tried = 1;
    const struct tcn_libdw *dw = s->dw;
    struct tcn_line_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    char tail[40], name[2 * 64 + 40];
    snprintf(tail, sizeof tail, "-%" PRIx64 ".lines", u->offset);
    cache_name(dw, mod, tail, name, sizeof name);
    size_t size = 0;
    void *bytes = name[0] ? tcn_debug_cache_read(name, &size) : NULL;
    int ok = bytes && tcn_line_table_decode(bytes, size, u->identity, t) == 0;
    if (bytes && !ok)
        free(bytes);
    Dwarf_Die die;
    if (!ok && unit_die(units_of(s, mod), u, s, &die) && (ok = lines_from_libdw(s, &die, t) == 0) && name[0] &&
        (bytes = tcn_line_table_encode(t, u->identity, &size))) {
        tcn_debug_cache_write(name, bytes, size);
        free(bytes);
    }
    if (!ok) {
        free(t);
        return NULL;
    }
    u->lines = t;
    s->dwfl_memory += sizeof *t + t->nrows * sizeof *t->rows + t->nfiles * sizeof *t->files + t->strings_len;
    return t;
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

/* The file of an inlined instance's call site: the name of its file index in the unit's
 * line table (lines), or libdw's when there is no table. */
static const char *call_file(struct tcn_symbols *s, Dwfl_Module *mod, struct unit *u,
                             const struct tcn_line_table *lines, const struct tcn_scope *inlined)
{
    uint32_t index = inlined->call_file;
    if (index == TCN_SCOPE_NO_FILE)
        return unknown;
    if (lines)
        return index < lines->nfiles && lines->files[index] ? intern_cstr(s, lines->files[index]) : unknown;
    Dwarf_Die die;
    Dwarf_Files *files;
    size_t count;
    if (!unit_die(units_of(s, mod), u, s, &die) || s->dw->dwarf_getsrcfiles(&die, &files, &count) != 0 ||
        index >= count)
        return unknown;
    const char *file = s->dw->dwarf_filesrc(files, index, NULL, NULL);
    return file ? intern_cstr(s, file) : unknown;
}

static const char *scope_name(struct tcn_symbols *s, const struct tcn_unit_scopes *t, uint32_t scope)
{
    const char *name = tcn_unit_scopes_name(t, scope);
    return name ? intern_cstr(s, name) : unknown;
}

/* Fills frames from the DWARF at address, innermost first; returns how many. */
static int dwarf_frames(struct tcn_symbols *s, Dwfl_Module *mod, uint64_t address, struct tcn_symbol_frame *frames)
{
    Dwarf_Addr bias;
    struct unit *u = unit_at(s, mod, address, &bias);
    if (!u)
        return 0;
    uint64_t pc = address - bias;
    /* The function, then the instances inlined into it that hold the address. */
    uint32_t chain[TCN_SYMBOLS_MAX_FRAMES];
    int depth = tcn_unit_scopes_at(&u->scopes, pc, chain, TCN_SYMBOLS_MAX_FRAMES);
    if (depth == 0)
        return 0;

    /* Where the innermost function is: the line table's row for the address. */
    const char *file;
    uint32_t line;
    const struct tcn_line_table *lines = lines_of(s, mod, u);
    source_of(s, mod, lines, address, pc, &file, &line);
    int n = 0;
    for (int i = depth; i-- > 0;) {
        const struct tcn_scope *scope = &u->scopes.scopes[chain[i]];
        struct tcn_symbol_frame *f = &frames[n++];
        f->name = scope_name(s, &u->scopes, chain[i]);
        f->file = file;
        f->line = line;
        uint64_t low = 0, high = 0;
        int found = tcn_unit_scopes_range_at(&u->scopes, chain[i], pc, &low, &high);
        if (i == 0) { /* the function that contains the address: its code's extent */
            if (scope->sym_high > scope->sym_low) {
                low = scope->sym_low;
                high = scope->sym_high;
            } else if (!found) { /* (split in several ranges, hot and cold: the one at pc) */
                low = high = 0;
            }
            f->sym_addr = high > low ? low + bias : 0;
            f->sym_len = (uint32_t)(high - low);
            break;
        }
        f->sym_addr = found && low ? low + bias : 0;
        f->sym_len = 0;
        /* The function it was inlined into is at the call site. */
        file = call_file(s, mod, u, lines, scope);
        line = scope->call_line;
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
    struct unit *u = mod ? unit_at(s, mod, sym_addr, &bias) : NULL;
    if (u)
        source_of(s, mod, lines_of(s, mod, u), sym_addr, sym_addr - bias, file, line);
    struct symbol_source *src = malloc(sizeof *src);
    if (src) {
        *src = (struct symbol_source){*file, *line};
        if (tcu_map_put(&s->sources, sym_addr, (uint64_t)(uintptr_t)src) < 0)
            free(src);
        else
            s->memory += sizeof *src;
    }
}
