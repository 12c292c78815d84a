/* config.c - the tracing options and the file filters, set by _tracer.configure(). */
#include "tracer.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tp_config tp_cfg = {.c_calls = 1};
uint32_t tp_filter_gen = 1;

struct list {
    char **items;
    size_t len;
};
static struct list include_globs, exclude_globs, skip_dirs, own_dirs;
static char *cwd;
static int configured; /* until the first configure() there are no filters: nothing is traced */

static void list_clear(struct list *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = 0;
}

/* Replaces l with the strings of seq. -1 with an exception set. */
static int list_set(struct list *l, PyObject *seq, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    char **items = calloc((size_t)n + 1, sizeof *items);
    if (!items) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(fast, i);
        const char *utf8 = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        if (!utf8 || !(items[i] = strdup(utf8))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s must be strings, not %.100s", what, Py_TYPE(s)->tp_name);
            for (Py_ssize_t j = 0; j < i; j++)
                free(items[j]);
            free(items);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    list_clear(l);
    l->items = items;
    l->len = (size_t)n;
    return 0;
}

static int starts_with_any(const char *path, const struct list *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (strncmp(path, l->items[i], strlen(l->items[i])) == 0)
            return 1;
    return 0;
}

static int matches_any(const char *path, const struct list *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (fnmatch(l->items[i], path, 0) == 0)
            return 1;
    return 0;
}

int tp_filter_traced(const char *file)
{
    if (!configured) /* code met before (tracer's own imports) makes no source location */
        return 0;
    char buf[4096];
    const char *path = file;
    if (file[0] != '/' && file[0] != '<' && cwd) {
        snprintf(buf, sizeof buf, "%s/%s", cwd, file);
        path = buf;
    }
    if (starts_with_any(path, &own_dirs) || matches_any(path, &exclude_globs))
        return 0;
    if (include_globs.len)
        return matches_any(path, &include_globs);
    return !starts_with_any(path, &skip_dirs) && strncmp(path, "<frozen ", 8) != 0;
}

static int parse_count(PyObject *o, const char *what, long long max, long long *out)
{
    if (!PyLong_Check(o) || PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > max) {
        PyErr_Format(PyExc_ValueError, "%s must be between 0 and %lld", what, max);
        return -1;
    }
    *out = v;
    return 0;
}

PyObject *tp_configure(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"c_calls", "lines",     "max_depth", "min_duration_ns", "include",
                             "exclude", "skip_dirs", "own_dirs",  "srcloc_budget",   NULL};
    int c_calls = tp_cfg.c_calls, lines = tp_cfg.lines;
    PyObject *max_depth = NULL, *min_duration = NULL, *budget = NULL;
    PyObject *include = NULL, *exclude = NULL, *skip = NULL, *own = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$ppOOOOOOO:configure", kwlist, &c_calls, &lines, &max_depth,
                                     &min_duration, &include, &exclude, &skip, &own, &budget))
        return NULL;
    long long depth = tp_cfg.max_depth, min_ns = -1, budget_v = (long long)tp_srcloc_budget;
    if ((max_depth && parse_count(max_depth, "max_depth", UINT32_MAX, &depth) != 0) ||
        (min_duration && parse_count(min_duration, "min_duration_ns", INT64_MAX / 1000, &min_ns) != 0) ||
        (budget && parse_count(budget, "srcloc_budget", 32000, &budget_v) != 0))
        return NULL;
    if ((include && list_set(&include_globs, include, "include") != 0) ||
        (exclude && list_set(&exclude_globs, exclude, "exclude") != 0) ||
        (skip && list_set(&skip_dirs, skip, "skip_dirs") != 0) || (own && list_set(&own_dirs, own, "own_dirs") != 0))
        return NULL;
    if (!cwd) {
        char buf[4096];
        if (getcwd(buf, sizeof buf))
            cwd = strdup(buf);
    }
    tp_cfg.c_calls = c_calls;
    tp_cfg.lines = lines;
    tp_cfg.max_depth = (uint32_t)depth;
    if (min_ns >= 0)
        tp_cfg.min_ticks = min_ns ? (int64_t)((double)min_ns * tp_ticks_per_ns()) : 0;
    tp_srcloc_budget = (size_t)budget_v;
    configured = 1;
    tp_filter_gen++;
    Py_RETURN_NONE;
}
