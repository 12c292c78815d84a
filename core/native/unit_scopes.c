/* unit_scopes.c - a unit's functions and the scopes inside them (see unit_scopes.h). */
#include "native/unit_scopes.h"

#include "native/debug_cache.h"
#include "native/demangle.h"
#include "native/libdw.h"
#include "util/array.h"
#include "util/map.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ---- making the table from the unit's DIEs ------------------------------------------------ */

struct builder {
    const struct tcn_libdw *dw;
    struct tcn_unit_scopes *t;
    size_t functions_cap, scopes_cap, ranges_cap, strings_cap;
    struct tcu_map names; /* content hash -> offset in strings + 1 */
    int failed;
};

static uint32_t add_string(struct builder *b, const char *text)
{
    struct tcn_unit_scopes *t = b->t;
    size_t len = strlen(text);
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, text, len);
    const uint64_t *at = tcu_map_get(&b->names, h);
    if (at && strcmp(t->strings + *at - 1, text) == 0)
        return (uint32_t)(*at - 1);
    if (t->strings_len + len + 1 >= TCN_SCOPE_NO_NAME) {
        b->failed = 1;
        return TCN_SCOPE_NO_NAME;
    }
    char *grown = tcu_grow(NULL, t->strings, &b->strings_cap, t->strings_len + len + 1, 1);
    if (!grown) {
        b->failed = 1;
        return TCN_SCOPE_NO_NAME;
    }
    t->strings = grown;
    uint32_t offset = (uint32_t)t->strings_len;
    memcpy(t->strings + offset, text, len + 1);
    t->strings_len += len + 1;
    if (!at && tcu_map_put(&b->names, h, (uint64_t)offset + 1) < 0)
        b->failed = 1;
    return offset;
}

/* A function's name: its demangled linkage name (C++, Rust), else its plain name (both
 * through an inlined instance's abstract origin). */
static uint32_t function_name(struct builder *b, Dwarf_Die *die)
{
    const struct tcn_libdw *dw = b->dw;
    Dwarf_Attribute attr;
    const char *linkage = dw->dwarf_formstring(dw->dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!linkage)
        linkage = dw->dwarf_formstring(dw->dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (linkage) {
        char *readable = tcn_demangle(linkage);
        if (readable) {
            uint32_t name = add_string(b, readable);
            free(readable);
            return name;
        }
    }
    const char *name = dw->dwarf_diename(die);
    if (name)
        return add_string(b, name);
    return linkage ? add_string(b, linkage) : TCN_SCOPE_NO_NAME;
}

/* A new scope for die, with its ranges; its index, or UINT32_MAX. */
static uint32_t add_scope(struct builder *b, Dwarf_Die *die, uint32_t kind, int has_pc)
{
    const struct tcn_libdw *dw = b->dw;
    struct tcn_unit_scopes *t = b->t;
    if (t->nscopes >= UINT32_MAX - 1) {
        b->failed = 1;
        return UINT32_MAX;
    }
    struct tcn_scope *grown = tcu_grow(NULL, t->scopes, &b->scopes_cap, t->nscopes + 1, sizeof *grown);
    if (!grown) {
        b->failed = 1;
        return UINT32_MAX;
    }
    t->scopes = grown;
    uint32_t index = (uint32_t)t->nscopes++;
    struct tcn_scope s = {.first_range = (uint32_t)t->nranges,
                          .name = TCN_SCOPE_NO_NAME,
                          .call_file = TCN_SCOPE_NO_FILE,
                          .flags = kind | (has_pc ? TCN_SCOPE_HAS_PC : 0)};
    Dwarf_Addr base, start, end;
    for (ptrdiff_t off = 0; has_pc && (off = dw->dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
        struct tcn_scope_range *r = tcu_grow(NULL, t->ranges, &b->ranges_cap, t->nranges + 1, sizeof *r);
        if (!r) {
            b->failed = 1;
            break;
        }
        t->ranges = r;
        t->ranges[t->nranges++] = (struct tcn_scope_range){start, end};
        s.nranges++;
    }
    Dwarf_Attribute attr;
    Dwarf_Word word;
    if (kind != TCN_SCOPE_BLOCK)
        s.name = function_name(b, die);
    if (kind == TCN_SCOPE_INLINED) {
        if (dw->dwarf_formudata(dw->dwarf_attr(die, DW_AT_call_file, &attr), &word) == 0 && word < TCN_SCOPE_NO_FILE)
            s.call_file = (uint32_t)word;
        if (dw->dwarf_formudata(dw->dwarf_attr(die, DW_AT_call_line, &attr), &word) == 0)
            s.call_line = (uint32_t)word;
    }
    Dwarf_Addr low = 0, high = 0;
    if (kind == TCN_SCOPE_FUNCTION && dw->dwarf_lowpc(die, &low) == 0 && dw->dwarf_highpc(die, &high) == 0 &&
        high > low) {
        s.sym_low = low;
        s.sym_high = high;
    }
    t->scopes[index] = s;
    return index;
}

/* The inlined instances and blocks inside die (a scope nested `level` deep, a function 1),
 * each followed by its own, no deeper than TCN_SCOPE_MAX_NESTING. */
static void add_inner_scopes(struct builder *b, Dwarf_Die *die, int level)
{
    const struct tcn_libdw *dw = b->dw;
    Dwarf_Die child;
    if (level >= TCN_SCOPE_MAX_NESTING || dw->dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dw->dwarf_tag(&child);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
            continue;
        Dwarf_Attribute attr;
        int has_pc = dw->dwarf_attr(&child, DW_AT_low_pc, &attr) || dw->dwarf_attr(&child, DW_AT_ranges, &attr);
        uint32_t index =
            add_scope(b, &child, tag == DW_TAG_inlined_subroutine ? TCN_SCOPE_INLINED : TCN_SCOPE_BLOCK, has_pc);
        if (index == UINT32_MAX)
            return;
        add_inner_scopes(b, &child, level + 1);
        b->t->scopes[index].end = (uint32_t)b->t->nscopes;
    } while (!b->failed && dw->dwarf_siblingof(&child, &child) == 0);
}

static void add_function(struct builder *b, Dwarf_Die *die)
{
    struct tcn_unit_scopes *t = b->t;
    uint32_t index = add_scope(b, die, TCN_SCOPE_FUNCTION, 1);
    if (index == UINT32_MAX)
        return;
    if (t->scopes[index].nranges == 0) { /* no code: a declaration */
        t->nscopes--;
        return;
    }
    for (uint32_t i = 0; i < t->scopes[index].nranges; i++) {
        struct tcn_scope_function *f = tcu_grow(NULL, t->functions, &b->functions_cap, t->nfunctions + 1, sizeof *f);
        if (!f) {
            b->failed = 1;
            return;
        }
        t->functions = f;
        const struct tcn_scope_range *r = &t->ranges[t->scopes[index].first_range + i];
        t->functions[t->nfunctions++] = (struct tcn_scope_function){r->low, r->high, index, 0};
    }
    add_inner_scopes(b, die, 1);
    t->scopes[index].end = (uint32_t)t->nscopes;
}

/* Function definitions with code, at the top of the unit or in namespaces and classes. */
static void add_functions(struct builder *b, Dwarf_Die *parent)
{
    const struct tcn_libdw *dw = b->dw;
    Dwarf_Die child;
    if (dw->dwarf_child(parent, &child) != 0)
        return;
    do {
        switch (dw->dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            add_function(b, &child);
            break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
        case DW_TAG_module:
            add_functions(b, &child);
            break;
        default:
            break;
        }
    } while (!b->failed && dw->dwarf_siblingof(&child, &child) == 0);
}

static int by_low(const void *a, const void *b)
{
    const struct tcn_scope_function *x = a, *y = b;
    return x->low < y->low ? -1 : x->low > y->low;
}

int tcn_unit_scopes_build(const struct tcn_libdw *dw, Dwarf_Die *cu, struct tcn_unit_scopes *t)
{
    memset(t, 0, sizeof *t);
    struct builder b = {.dw = dw, .t = t};
    add_functions(&b, cu);
    tcu_map_free(&b.names);
    if (b.failed) {
        tcn_unit_scopes_free(t);
        return -1;
    }
    if (t->nfunctions)
        qsort(t->functions, t->nfunctions, sizeof *t->functions, by_low);
    return 0;
}

/* ---- lookups ------------------------------------------------------------------------------ */

int tcn_unit_scopes_range_at(const struct tcn_unit_scopes *t, uint32_t scope, uint64_t pc, uint64_t *low,
                             uint64_t *high)
{
    const struct tcn_scope *s = &t->scopes[scope];
    for (uint32_t i = 0; i < s->nranges; i++) {
        const struct tcn_scope_range *r = &t->ranges[s->first_range + i];
        if (pc >= r->low && pc < r->high) {
            *low = r->low;
            *high = r->high;
            return 1;
        }
    }
    return 0;
}

const char *tcn_unit_scopes_name(const struct tcn_unit_scopes *t, uint32_t scope)
{
    uint32_t name = t->scopes[scope].name;
    return name == TCN_SCOPE_NO_NAME ? NULL : t->strings + name;
}

/* The inlined instances inside scope that hold pc, outermost first, appended to chain: the
 * first child that holds pc is the way down; a block without addresses of its own is
 * looked into. */
static void inlined_at(const struct tcn_unit_scopes *t, uint32_t scope, uint64_t pc, uint32_t *chain, int *depth,
                       int max)
{
    uint64_t low, high;
    for (uint32_t child = scope + 1; child < t->scopes[scope].end; child = t->scopes[child].end) {
        const struct tcn_scope *c = &t->scopes[child];
        if (!(c->flags & TCN_SCOPE_HAS_PC)) {
            int before = *depth;
            inlined_at(t, child, pc, chain, depth, max);
            if (*depth != before)
                return;
            continue;
        }
        if (!tcn_unit_scopes_range_at(t, child, pc, &low, &high))
            continue;
        if ((c->flags & 0xff) == TCN_SCOPE_INLINED && *depth < max)
            chain[(*depth)++] = child;
        inlined_at(t, child, pc, chain, depth, max);
        return;
    }
}

int tcn_unit_scopes_at(const struct tcn_unit_scopes *t, uint64_t pc, uint32_t *chain, int max)
{
    size_t lo = 0, hi = t->nfunctions;
    while (lo < hi) { /* the first range starting after pc */
        size_t mid = (lo + hi) / 2;
        if (t->functions[mid].low <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0 && max > 0;) { /* ranges may nest (a function inside one's range) */
        if (pc < t->functions[i].high) {
            int depth = 1;
            chain[0] = t->functions[i].scope;
            inlined_at(t, chain[0], pc, chain, &depth, max);
            return depth;
        }
        if (lo - i > 8)
            break;
    }
    return 0;
}

/* ---- bytes ---------------------------------------------------------------------------------- */

/* This header, the functions, the scopes, the ranges, the names. In this machine's byte
 * order (the cache is the machine's own). */
struct header {
    char magic[8];
    uint32_t order, zero;
    uint64_t nfunctions, nscopes, nranges, strings_len, unit, checksum;
};

static const char magic[8] = "TCNSCOP1";

void *tcn_unit_scopes_encode(const struct tcn_unit_scopes *t, uint64_t unit, size_t *len)
{
    size_t parts[] = {t->nfunctions * sizeof *t->functions, t->nscopes * sizeof *t->scopes,
                      t->nranges * sizeof *t->ranges, t->strings_len};
    const void *from[] = {t->functions, t->scopes, t->ranges, t->strings};
    size_t size = sizeof(struct header);
    for (int i = 0; i < 4; i++)
        size += parts[i];
    unsigned char *out = malloc(size), *at = out + sizeof(struct header);
    if (!out)
        return NULL;
    for (int i = 0; i < 4; i++) {
        if (parts[i])
            memcpy(at, from[i], parts[i]);
        at += parts[i];
    }
    struct header h = {{0}, 0, 0, t->nfunctions, t->nscopes, t->nranges, t->strings_len, unit, 0};
    tcn_debug_cache_mark(&h, magic);
    h.checksum = tcn_debug_cache_checksum(out + sizeof h, size - sizeof h);
    memcpy(out, &h, sizeof h);
    *len = size;
    return out;
}

/* Every index within the table, and the scopes nested (each inside the one before it, or
 * after its end) no deeper than TCN_SCOPE_MAX_NESTING: no lookup can read outside the table or recurse
 * without end. */
static int valid(const struct tcn_unit_scopes *t)
{
    if (t->strings_len && t->strings[t->strings_len - 1] != 0)
        return 0;
    uint32_t ends[TCN_SCOPE_MAX_NESTING];
    int open = 0;
    for (size_t i = 0; i < t->nscopes; i++) {
        const struct tcn_scope *s = &t->scopes[i];
        if ((uint64_t)s->first_range + s->nranges > t->nranges || s->end <= i || s->end > t->nscopes ||
            (s->name != TCN_SCOPE_NO_NAME && s->name >= t->strings_len) || (s->flags & 0xff) > TCN_SCOPE_BLOCK)
            return 0;
        while (open && ends[open - 1] <= i)
            open--;
        if ((open && s->end > ends[open - 1]) || open == TCN_SCOPE_MAX_NESTING)
            return 0;
        ends[open++] = s->end;
    }
    for (size_t i = 0; i < t->nfunctions; i++)
        if (t->functions[i].scope >= t->nscopes || (i && t->functions[i].low < t->functions[i - 1].low))
            return 0;
    return 1;
}

int tcn_unit_scopes_decode(void *data, size_t len, uint64_t unit, struct tcn_unit_scopes *t)
{
    memset(t, 0, sizeof *t);
    struct header h;
    if (tcn_debug_cache_header(data, len, &h, sizeof h, magic) != 0)
        return -1;
    unsigned char *body = (unsigned char *)data + sizeof h;
    size_t left = len - sizeof h;
    uint64_t sizes[] = {sizeof *t->functions, sizeof *t->scopes, sizeof *t->ranges, 1};
    uint64_t counts[] = {h.nfunctions, h.nscopes, h.nranges, h.strings_len}, total = 0;
    for (int i = 0; i < 4; i++) {
        if (counts[i] > left / sizes[i] || counts[i] * sizes[i] > left - total)
            return -1;
        total += counts[i] * sizes[i];
    }
    if (h.unit != unit || total != left || tcn_debug_cache_checksum(body, left) != h.checksum)
        return -1;
    /* (after a 64-byte header, parts of multiples of 8 bytes but the last: aligned) */
    t->functions = (struct tcn_scope_function *)(void *)body;
    t->scopes = (struct tcn_scope *)(void *)(body + h.nfunctions * sizeof *t->functions);
    t->ranges = (struct tcn_scope_range *)(void *)((unsigned char *)t->scopes + h.nscopes * sizeof *t->scopes);
    t->strings = (char *)t->ranges + h.nranges * sizeof *t->ranges;
    t->nfunctions = (size_t)h.nfunctions;
    t->nscopes = (size_t)h.nscopes;
    t->nranges = (size_t)h.nranges;
    t->strings_len = (size_t)h.strings_len;
    if (!valid(t)) {
        memset(t, 0, sizeof *t);
        return -1;
    }
    t->bytes = data;
    return 0;
}

void tcn_unit_scopes_free(struct tcn_unit_scopes *t)
{
    if (t->bytes) {
        free(t->bytes);
    } else {
        free(t->functions);
        free(t->scopes);
        free(t->ranges);
        free(t->strings);
    }
    memset(t, 0, sizeof *t);
}
