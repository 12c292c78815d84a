/* srcloc.c - interned strings and source locations, made once and kept forever.
 *
 * The profiler reads a source location and its strings lazily, by address, possibly
 * long after the code object that produced them is gone, so nothing here is ever freed.
 * Locations are shared by content, so code compiled again (exec, namedtuple) does not
 * make new ones; the budget keeps the total under the protocol's limit of static
 * source locations (a signed 16-bit index on the server) with room for other users.
 */
#include "tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tp_srcloc_budget = 30000;

static const tp_srcloc fallback = {NULL, "(tracer: source-location budget exhausted)", "<tracer>", 0, 0x808080};

/* Open addressing, linear probing, power-of-two sizes, grown at 1/2 load. */
struct table {
    void **slots;
    size_t cap, len;
};
static struct table strings, locs;

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_loc(const tp_srcloc *l)
{
    uint64_t h = (uintptr_t)l->name * 31 + (uintptr_t)l->function;
    h = h * 31 + (uintptr_t)l->file;
    h = h * 31 + l->line;
    h = h * 31 + l->color;
    return h ^ (h >> 29);
}

static int same_loc(const tp_srcloc *a, const tp_srcloc *b)
{
    return a->name == b->name && a->function == b->function && a->file == b->file && a->line == b->line &&
           a->color == b->color;
}

static int grow(struct table *t, uint64_t (*hash)(const void *))
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    void **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = hash(t->slots[i]) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

static uint64_t hash_string_entry(const void *s)
{
    return hash_bytes(s, strlen(s));
}

static uint64_t hash_loc_entry(const void *l)
{
    return hash_loc(l);
}

const char *tp_intern(const char *s, size_t len)
{
    if ((strings.len + 1) * 2 > strings.cap && grow(&strings, hash_string_entry) != 0)
        return NULL;
    size_t i = hash_bytes(s, len) & (strings.cap - 1);
    for (; strings.slots[i]; i = (i + 1) & (strings.cap - 1)) {
        const char *e = strings.slots[i];
        if (strncmp(e, s, len) == 0 && e[len] == '\0')
            return e;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    strings.slots[i] = copy;
    strings.len++;
    return copy;
}

const char *tp_intern_str(PyObject *s)
{
    Py_ssize_t len;
    const char *utf8 = PyUnicode_AsUTF8AndSize(s, &len);
    if (utf8)
        return tp_intern(utf8, (size_t)len);
    PyErr_Clear(); /* lone surrogates: keep them visible as escapes */
    PyObject *bytes = PyUnicode_AsEncodedString(s, "utf-8", "backslashreplace");
    if (!bytes) {
        PyErr_Clear();
        return NULL;
    }
    const char *r = tp_intern(PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
    return r;
}

/* The warning given when the budget ran out, "" before. */
static char budget_warning[256];

const char *tp_srcloc_budget_warning(void)
{
    return budget_warning;
}

static const tp_srcloc *over_budget(void)
{
    if (!budget_warning[0]) {
        int n = snprintf(budget_warning, sizeof budget_warning,
                         "tracer: more than %zu source locations; further functions are recorded as '%s' "
                         "(raise the limit with TRACER_SRCLOC_BUDGET)",
                         tp_srcloc_budget, fallback.function);
        PySys_WriteStderr("%s\n", budget_warning);
        ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, (size_t)n, budget_warning);
    }
    return &fallback;
}

const tp_srcloc *tp_srcloc_get(const char *name, const char *function, const char *file, uint32_t line, uint32_t color)
{
    if (!function || !file)
        return &fallback;
    tp_srcloc key = {name, function, file, line, color};
    if (locs.cap) {
        for (size_t i = hash_loc(&key) & (locs.cap - 1); locs.slots[i]; i = (i + 1) & (locs.cap - 1))
            if (same_loc(locs.slots[i], &key))
                return locs.slots[i];
    }
    if (locs.len >= tp_srcloc_budget)
        return over_budget();
    if ((locs.len + 1) * 2 > locs.cap && grow(&locs, hash_loc_entry) != 0)
        return &fallback;
    tp_srcloc *l = malloc(sizeof *l);
    if (!l)
        return &fallback;
    *l = key;
    size_t i = hash_loc(l) & (locs.cap - 1);
    while (locs.slots[i])
        i = (i + 1) & (locs.cap - 1);
    locs.slots[i] = l;
    locs.len++;
    return l;
}
