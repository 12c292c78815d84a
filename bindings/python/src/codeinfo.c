/* codeinfo.c - what the hooks need to know about a code object or a C function, found
 * in O(1) without allocating: per code object in its co_extra slot, per C function in a
 * table keyed by its PyMethodDef. */
#include "tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030C0000
#define request_extra_index PyUnstable_Eval_RequestCodeExtraIndex
#define code_get_extra PyUnstable_Code_GetExtra
#define code_set_extra PyUnstable_Code_SetExtra
#else
#define request_extra_index _PyEval_RequestCodeExtraIndex
#define code_get_extra _PyCode_GetExtra
#define code_set_extra _PyCode_SetExtra
#endif

/* What co_extra points at. The source locations outlive it (srcloc.c). */
struct code_extra {
    struct tp_code info;
    const char *qualname, *file;
    const char *owner_file; /* what the filters judge: file, or for code compiled at run
                               time, the file of the code that compiled it */
    int first_line;
    const tp_srcloc **lines; /* line zones, indexed by line - first_line */
    size_t nlines;
};

static Py_ssize_t extra_index = -1;

static void free_extra(void *p)
{
    struct code_extra *x = p;
    if (x)
        free(x->lines);
    free(x);
}

int tp_codeinfo_init(void)
{
    extra_index = request_extra_index(free_extra);
    if (extra_index < 0) {
        PyErr_SetString(PyExc_RuntimeError, "tracer: no code-object extra slot left");
        return -1;
    }
    return 0;
}

/* Decides whether the code is traced; a traced code gets its source location now, so
 * code that is never traced costs nothing from the budget. */
int tp_code_refresh(struct tp_code *info)
{
    const struct code_extra *x = (const struct code_extra *)info;
    info->traced = (uint8_t)tp_filter_traced(x->owner_file);
    info->gen = tp_filter_gen;
    if (info->traced && !info->loc)
        info->loc = tp_srcloc_get(NULL, x->qualname, x->file, (uint32_t)x->first_line, 0);
    return info->traced;
}

/* owner: the file the filters judge the code by, NULL for its own. */
static struct code_extra *make_extra(PyCodeObject *co, const char *owner)
{
    struct code_extra *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->qualname = tp_intern_str(co->co_qualname);
    x->file = tp_intern_str(co->co_filename);
    x->owner_file = owner ? owner : x->file;
    x->first_line = co->co_firstlineno;
    if (!x->qualname || !x->file) {
        free(x);
        return NULL;
    }
    tp_code_refresh(&x->info);
    if (code_set_extra((PyObject *)co, extra_index, x) != 0) {
        PyErr_Clear();
        free(x);
        return NULL;
    }
    return x;
}

struct tp_code *tp_code_lookup(PyCodeObject *co)
{
    void *x = NULL;
    if (__builtin_expect(code_get_extra((PyObject *)co, extra_index, &x) != 0, 0)) {
        PyErr_Clear();
        return NULL;
    }
    if (__builtin_expect(x == NULL, 0))
        x = make_extra(co, NULL);
    return x;
}

/* ---- code compiled at run time --------------------------------------------------- */

/* Code compiled from a string (namedtuple, dataclasses, attrs, numpy's dispatchers, a
 * program's own exec) has a made-up file name such as "<string>", or none at all (attrs'
 * classes: ""). Such code belongs to the module that compiled it and is filtered as that
 * module's file: the standard library's and site-packages' generated code is left out
 * with them. The "exec" audit event (exec and eval) names the code, and the frame running
 * exec is the module's. */
static int generated(PyCodeObject *co)
{
    const char *name = PyUnicode_AsUTF8(co->co_filename);
    if (!name) {
        PyErr_Clear();
        return 0;
    }
    return name[0] == 0 || (name[0] == '<' && strncmp(name, "<frozen ", 8) != 0);
}

static void attribute(PyCodeObject *co, const char *owner, int depth)
{
    if (generated(co)) {
        void *x = NULL;
        if (code_get_extra((PyObject *)co, extra_index, &x) != 0)
            PyErr_Clear();
        else if (!x) /* judged by its owner from the start: no source location for left-out code */
            make_extra(co, owner);
        else if (((struct code_extra *)x)->owner_file != owner) {
            ((struct code_extra *)x)->owner_file = owner;
            ((struct code_extra *)x)->info.gen = 0; /* judged again at its next call */
        }
    }
    PyObject *consts = co->co_consts;
    for (Py_ssize_t i = 0; depth < 64 && consts && i < PyTuple_GET_SIZE(consts); i++)
        if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
            attribute((PyCodeObject *)PyTuple_GET_ITEM(consts, i), owner, depth + 1);
}

static int on_audit(const char *event, PyObject *args, void *unused)
{
    if (strcmp(event, "exec") != 0 || !PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1 ||
        !PyCode_Check(PyTuple_GET_ITEM(args, 0)))
        return 0;
    PyCodeObject *co = (PyCodeObject *)PyTuple_GET_ITEM(args, 0);
    PyFrameObject *frame = PyEval_GetFrame(); /* the code calling exec(); none at a prompt */
    if (!frame || !generated(co))
        return 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyCodeObject *caller = PyFrame_GetCode(frame);
    struct code_extra *creator = (struct code_extra *)tp_code_lookup(caller);
    if (creator)
        attribute(co, creator->owner_file, 0); /* generated code making code: the same owner */
    Py_DECREF(caller);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return 0;
}

int tp_codeinfo_watch_generated(void)
{
    return PySys_AddAuditHook(on_audit, NULL);
}

const tp_srcloc *tp_line_srcloc(PyCodeObject *co, int line)
{
    struct code_extra *x = (struct code_extra *)tp_code_lookup(co);
    if (!x || line < x->first_line)
        return NULL;
    size_t i = (size_t)(line - x->first_line);
    if (i >= x->nlines) {
        size_t n = i + 16;
        const tp_srcloc **lines = realloc(x->lines, n * sizeof *lines);
        if (!lines)
            return NULL;
        for (size_t j = x->nlines; j < n; j++)
            lines[j] = NULL;
        x->lines = lines;
        x->nlines = n;
    }
    if (!x->lines[i]) {
        char name[1024];
        int len = snprintf(name, sizeof name, "%s:%d", x->qualname, line);
        if (len < 0 || (size_t)len >= sizeof name)
            len = (int)sizeof name - 1;
        x->lines[i] = tp_srcloc_get(tp_intern(name, (size_t)len), x->qualname, x->file, (uint32_t)line, 0);
    }
    return x->lines[i];
}

/* ---- C functions ----------------------------------------------------------------- */

struct cfunc {
    const PyMethodDef *def;
    const void *owner; /* the type a method belongs to, NULL for module functions */
    const tp_srcloc *loc;
};
static struct cfunc *cfuncs;
static size_t cfuncs_cap, cfuncs_len;

static size_t cfunc_slot(const PyMethodDef *def, const void *owner)
{
    uintptr_t h = ((uintptr_t)def >> 4) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)owner;
    size_t i = (h ^ (h >> 31)) & (cfuncs_cap - 1);
    while (cfuncs[i].def && (cfuncs[i].def != def || cfuncs[i].owner != owner))
        i = (i + 1) & (cfuncs_cap - 1);
    return i;
}

static int cfuncs_grow(void)
{
    size_t old_cap = cfuncs_cap;
    struct cfunc *old = cfuncs;
    cfuncs_cap = old_cap ? old_cap * 2 : 512;
    cfuncs = calloc(cfuncs_cap, sizeof *cfuncs);
    if (!cfuncs) {
        cfuncs = old;
        cfuncs_cap = old_cap;
        return -1;
    }
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].def)
            cfuncs[cfunc_slot(old[i].def, old[i].owner)] = old[i];
    free(old);
    return 0;
}

static const tp_srcloc *cfunc_make(const PyMethodDef *def, const char *prefix)
{
    char name[512];
    int len = prefix ? snprintf(name, sizeof name, "%s.%s", prefix, def->ml_name)
                     : snprintf(name, sizeof name, "%s", def->ml_name);
    if (len < 0 || (size_t)len >= sizeof name)
        len = (int)sizeof name - 1;
    static const char *builtin_file;
    if (!builtin_file)
        builtin_file = tp_intern("<built-in>", 10);
    return tp_srcloc_get(NULL, tp_intern(name, (size_t)len), builtin_file, 0, 0);
}

/* The module name of a builtin function, NULL when it has none. */
static const char *module_name(PyCFunctionObject *f)
{
    if (f->m_module && PyUnicode_Check(f->m_module))
        return PyUnicode_AsUTF8(f->m_module);
    if (f->m_self && PyModule_Check(f->m_self))
        return PyModule_GetName(f->m_self);
    return NULL;
}

const tp_srcloc *tp_cfunc_srcloc(PyObject *callable)
{
    const PyMethodDef *def;
    PyTypeObject *type = NULL;
    PyCFunctionObject *f = NULL;
    if (PyCFunction_Check(callable)) {
        f = (PyCFunctionObject *)callable;
        def = f->m_ml;
        PyObject *self = f->m_self;
        if (self == tp_module || (self && Py_TYPE(self) == &tp_ZoneType))
            return NULL; /* tracer's own functions are not part of the program */
        if (self && PyType_Check(self))
            type = (PyTypeObject *)self;
        else if (self && !PyModule_Check(self))
            type = Py_TYPE(self);
    } else if (Py_IS_TYPE(callable, &PyMethodDescr_Type)) {
        PyMethodDescrObject *d = (PyMethodDescrObject *)callable;
        def = d->d_method;
        type = d->d_common.d_type;
        if (type == &tp_ZoneType)
            return NULL;
    } else {
        return NULL;
    }
    if ((cfuncs_len + 1) * 2 > cfuncs_cap && cfuncs_grow() != 0)
        return NULL;
    size_t i = cfunc_slot(def, type);
    if (!cfuncs[i].def) {
        const char *prefix = type ? type->tp_name : module_name(f);
        if (!prefix)
            PyErr_Clear();
        cfuncs[i] = (struct cfunc){def, type, cfunc_make(def, prefix)};
        cfuncs_len++;
    }
    return cfuncs[i].loc;
}
