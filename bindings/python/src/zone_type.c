/* zone_type.c - tracer.zone: a manual zone, as context manager and decorator.
 *
 * A zone object holds one source location, made when the object is made; entering it
 * pushes an entry owned by the object on the calling thread's stack (stack.c), so one
 * object serves recursion and many threads at once. __enter__ and __exit__ are C slots
 * of a C type: a `with` block adds no Python frame and no profile event of its own.
 */
#include "tracer.h"

typedef struct {
    PyObject_HEAD const tp_srcloc *loc;
    PyObject *name; /* as given: str or None */
    uint32_t color;
} ZoneObject;

/* name NULL: the zone is called after function. */
static PyObject *zone_make(PyTypeObject *type, PyObject *name, uint32_t color, PyObject *function, PyObject *file,
                           int line)
{
    const char *name_s = NULL;
    if (name != Py_None && !(name_s = tp_intern_str(name)))
        return PyErr_NoMemory();
    ZoneObject *z = (ZoneObject *)type->tp_alloc(type, 0);
    if (!z)
        return NULL;
    z->loc = tp_srcloc_get(name_s, tp_intern_str(function), tp_intern_str(file), (uint32_t)line, color);
    z->name = Py_NewRef(name);
    z->color = color;
    return (PyObject *)z;
}

static PyObject *zone_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", "color", NULL};
    PyObject *name = Py_None, *color = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:zone", kwlist, &name, &color))
        return NULL;
    if (name != Py_None && !PyUnicode_Check(name))
        return PyErr_Format(PyExc_TypeError, "zone name must be a str or None, not %.100s", Py_TYPE(name)->tp_name);
    long rgb = 0;
    if (color != Py_None) {
        if (!PyLong_Check(color) || PyBool_Check(color))
            return PyErr_Format(PyExc_TypeError, "zone color must be an int 0xRRGGBB or None, not %.100s",
                                Py_TYPE(color)->tp_name);
        rgb = PyLong_AsLong(color);
        if (rgb == -1 && PyErr_Occurred())
            return NULL;
        if (rgb < 0 || rgb > 0xffffff) {
            PyErr_SetString(PyExc_ValueError, "zone color must be between 0 and 0xFFFFFF");
            return NULL;
        }
    }
    /* The location is where zone() is called: the function, file and line of the caller. */
    PyFrameObject *frame = PyEval_GetFrame();
    if (!frame) {
        PyObject *unknown = PyUnicode_FromString("<unknown>");
        PyObject *z = unknown ? zone_make(type, name, (uint32_t)rgb, unknown, unknown, 0) : NULL;
        Py_XDECREF(unknown);
        return z;
    }
    PyCodeObject *co = PyFrame_GetCode(frame);
    PyObject *z = zone_make(type, name, (uint32_t)rgb, co->co_qualname, co->co_filename, PyFrame_GetLineNumber(frame));
    Py_DECREF(co);
    return z;
}

static void zone_dealloc(ZoneObject *z)
{
    Py_XDECREF(z->name);
    Py_TYPE(z)->tp_free((PyObject *)z);
}

static PyObject *zone_repr(ZoneObject *z)
{
    const char *label = z->loc->name ? z->loc->name : z->loc->function;
    return PyUnicode_FromFormat("<tracer.zone '%s' at %s:%u>", label, z->loc->file, (unsigned)z->loc->line);
}

static PyObject *zone_enter(ZoneObject *z, PyObject *unused)
{
    struct tp_thread *t = tp_thread_get();
    if (!t)
        return PyErr_NoMemory();
    tp_manual_begin(t, z, z->loc);
    return Py_NewRef(z);
}

static PyObject *zone_exit(ZoneObject *z, PyObject *args)
{
    if (tp_manual_end(tp_thread_get(), z) != 0)
        return NULL;
    Py_RETURN_FALSE; /* exceptions go on */
}

/* Decorating: a zone named after the function (unless a name was given), at its
 * definition, wrapped by tracer._decorate for plain, generator and async functions. */
static PyObject *zone_call(ZoneObject *z, PyObject *args, PyObject *kwargs)
{
    PyObject *fn;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "zone(...) decorates one function and takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:zone", &fn))
        return NULL;
    if (!PyCallable_Check(fn))
        return PyErr_Format(PyExc_TypeError, "zone(...) can only decorate a callable, not %.100s",
                            Py_TYPE(fn)->tp_name);
    PyObject *code = PyObject_GetAttrString(fn, "__code__");
    PyObject *inner;
    if (code && PyCode_Check(code)) {
        PyCodeObject *co = (PyCodeObject *)code;
        PyObject *qualname = PyObject_GetAttrString(fn, "__qualname__");
        if (!qualname || !PyUnicode_Check(qualname)) {
            PyErr_Clear();
            Py_XSETREF(qualname, Py_NewRef(co->co_qualname));
        }
        inner = zone_make(Py_TYPE(z), z->name, z->color, qualname, co->co_filename, co->co_firstlineno);
        Py_DECREF(qualname);
    } else {
        PyErr_Clear();
        inner = Py_NewRef(z);
    }
    Py_XDECREF(code);
    if (!inner)
        return NULL;
    PyObject *decorate = PyImport_ImportModule("tracer._decorate");
    PyObject *r = decorate ? PyObject_CallMethod(decorate, "wrap", "OO", inner, fn) : NULL;
    Py_XDECREF(decorate);
    Py_DECREF(inner);
    return r;
}

static PyObject *zone_set(ZoneObject *z, PyObject *arg, int name)
{
    Py_ssize_t len;
    const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &len) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "zone %s must be a str, not %.100s", name ? "name" : "text",
                         Py_TYPE(arg)->tp_name);
        return NULL;
    }
    TracyCZoneCtx ctx;
    if (tp_manual_ctx(tp_thread_get(), z, &ctx) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "tracer.zone: this zone is not the innermost open zone of this thread");
        return NULL;
    }
    (name ? ___tracy_emit_zone_name : ___tracy_emit_zone_text)(ctx, s, (size_t)len);
    Py_RETURN_NONE;
}

static PyObject *zone_set_name(ZoneObject *z, PyObject *arg)
{
    return zone_set(z, arg, 1);
}

static PyObject *zone_set_text(ZoneObject *z, PyObject *arg)
{
    return zone_set(z, arg, 0);
}

static PyMethodDef zone_methods[] = {
    {"__enter__", (PyCFunction)zone_enter, METH_NOARGS, "Opens the zone on the calling thread."},
    {"__exit__", (PyCFunction)zone_exit, METH_VARARGS, "Closes the zone's innermost opening on this thread."},
    {"set_name", (PyCFunction)zone_set_name, METH_O,
     "set_name(name)\nNames this opening of the zone (it must be the thread's innermost zone)."},
    {"set_text", (PyCFunction)zone_set_text, METH_O,
     "set_text(text)\nAttaches text to this opening of the zone (it must be the thread's innermost zone)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject tp_ZoneType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tracer.zone",
    .tp_basicsize = sizeof(ZoneObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "zone(name=None, color=None)\n\n"
              "A profiler zone: `with zone('load'):` or `@zone()` on a plain, generator or async\n"
              "function. Without a name the zone is called after the enclosing (or decorated) function.\n"
              "Generators and coroutines get one zone per resume.",
    .tp_new = zone_new,
    .tp_dealloc = (destructor)zone_dealloc,
    .tp_repr = (reprfunc)zone_repr,
    .tp_call = (ternaryfunc)zone_call,
    .tp_methods = zone_methods,
};

int tp_zone_type_init(PyObject *module)
{
    if (PyType_Ready(&tp_ZoneType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "zone", (PyObject *)&tp_ZoneType);
}
