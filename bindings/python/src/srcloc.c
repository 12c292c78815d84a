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

#include "util/map.h"

size_t tp_srcloc_budget = 30000;

static const tp_srcloc fallback = {NULL, "(tracer: source-location budget exhausted)", "<tracer>", 0, 0x808080};

/* Both tables map a hash of the content to the newest entry with that hash; entries
 * whose 64-bit hashes are equal are chained, newest first. */
struct interned {
    struct interned *same_hash;
    char text[];
};
struct interned_loc {
    tp_srcloc loc; /* first: the address handed out */
    struct interned_loc *same_hash;
};
static struct tcu_map strings, locs;
static size_t locs_len;

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

/* The newest entry stored under hash, or NULL. */
static void *newest(const struct tcu_map *m, uint64_t hash)
{
    const uint64_t *entry = tcu_map_get(m, hash);
    return entry ? (void *)(uintptr_t)*entry : NULL;
}

const char *tp_intern(const char *s, size_t len)
{
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, s, len);
    struct interned *first = newest(&strings, h);
    for (struct interned *e = first; e; e = e->same_hash)
        if (strncmp(e->text, s, len) == 0 && e->text[len] == '\0')
            return e->text;
    struct interned *e = malloc(sizeof *e + len + 1);
    if (!e)
        return NULL;
    e->same_hash = first;
    memcpy(e->text, s, len);
    e->text[len] = '\0';
    if (tcu_map_put(&strings, h, (uintptr_t)e) < 0) {
        free(e);
        return NULL;
    }
    return e->text;
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
    uint64_t h = hash_loc(&key);
    struct interned_loc *first = newest(&locs, h);
    for (struct interned_loc *e = first; e; e = e->same_hash)
        if (same_loc(&e->loc, &key))
            return &e->loc;
    if (locs_len >= tp_srcloc_budget)
        return over_budget();
    struct interned_loc *e = malloc(sizeof *e);
    if (!e)
        return &fallback;
    *e = (struct interned_loc){key, first};
    if (tcu_map_put(&locs, h, (uintptr_t)e) < 0) {
        free(e);
        return &fallback;
    }
    locs_len++;
    return &e->loc;
}
