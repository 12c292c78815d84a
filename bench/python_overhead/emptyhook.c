/* emptyhook.c - the interpreter's floor for a C profile hook: the same hook kind as
 * tracer (PyEval_SetProfile on 3.11, sys.monitoring with the same events on 3.12+),
 * doing nothing; and the floor of a hook that timestamps each event: the same, reading
 * tracyc's clock once per event (the TSC on x86, CLOCK_MONOTONIC_RAW elsewhere, as
 * core/client/clock.h). bench.py compiles it on the fly. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static volatile uint64_t last_timestamp; /* kept, so that the read is not optimised away */

static void timestamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
    last_timestamp = __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    last_timestamp = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

#if PY_VERSION_HEX < 0x030C0000

static int empty_profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    return 0;
}

static int clocked_profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    timestamp();
    return 0;
}

static PyObject *install(PyObject *self, PyObject *unused)
{
    PyEval_SetProfile(empty_profile, NULL);
    Py_RETURN_NONE;
}

static PyObject *install_clocked(PyObject *self, PyObject *unused)
{
    PyEval_SetProfile(clocked_profile, NULL);
    Py_RETURN_NONE;
}

static PyObject *uninstall(PyObject *self, PyObject *unused)
{
    PyEval_SetProfile(NULL, NULL);
    Py_RETURN_NONE;
}

#else

static PyObject *empty_callback(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_RETURN_NONE;
}

static PyObject *clocked_callback(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    timestamp();
    Py_RETURN_NONE;
}

static PyMethodDef empty_def = {"empty", (PyCFunction)(void (*)(void))empty_callback, METH_FASTCALL, NULL};
static PyMethodDef clocked_def = {"clocked", (PyCFunction)(void (*)(void))clocked_callback, METH_FASTCALL, NULL};
static const char *event_names[] = {"PY_START",  "PY_RESUME", "PY_THROW", "PY_RETURN", "PY_YIELD",
                                    "PY_UNWIND", "CALL",      "C_RETURN", "C_RAISE"};
#define TOOL 4

static PyObject *monitoring(void)
{
    PyObject *sys = PyImport_ImportModule("sys");
    PyObject *mon = sys ? PyObject_GetAttrString(sys, "monitoring") : NULL;
    Py_XDECREF(sys);
    return mon;
}

static PyObject *install_callback(PyMethodDef *def)
{
    PyObject *callback = PyCFunction_NewEx(def, NULL, NULL);
    PyObject *mon = monitoring();
    PyObject *events = mon ? PyObject_GetAttrString(mon, "events") : NULL;
    PyObject *r = mon ? PyObject_CallMethod(mon, "use_tool_id", "is", TOOL, "emptyhook") : NULL;
    long mask = 0;
    for (size_t i = 0; r && i < sizeof event_names / sizeof *event_names; i++) {
        PyObject *bit = PyObject_GetAttrString(events, event_names[i]);
        Py_DECREF(r);
        r = bit ? PyObject_CallMethod(mon, "register_callback", "iOO", TOOL, bit, callback) : NULL;
        if (bit)
            mask |= PyLong_AsLong(bit);
        Py_XDECREF(bit);
    }
    if (r) {
        Py_DECREF(r);
        r = PyObject_CallMethod(mon, "set_events", "il", TOOL, mask);
    }
    Py_XDECREF(callback);
    Py_XDECREF(mon);
    Py_XDECREF(events);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

static PyObject *install(PyObject *self, PyObject *unused)
{
    return install_callback(&empty_def);
}

static PyObject *install_clocked(PyObject *self, PyObject *unused)
{
    return install_callback(&clocked_def);
}

static PyObject *uninstall(PyObject *self, PyObject *unused)
{
    PyObject *mon = monitoring();
    PyObject *r = mon ? PyObject_CallMethod(mon, "set_events", "ii", TOOL, 0) : NULL;
    if (r) {
        Py_DECREF(r);
        r = PyObject_CallMethod(mon, "free_tool_id", "i", TOOL);
    }
    Py_XDECREF(mon);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

#endif

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS, "Installs the empty hook on the calling thread (3.11) or globally."},
    {"install_clocked", install_clocked, METH_NOARGS, "Installs the hook that reads the clock at each event."},
    {"uninstall", uninstall, METH_NOARGS, "Removes it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "emptyhook", NULL, -1, methods};

PyMODINIT_FUNC PyInit_emptyhook(void)
{
    return PyModule_Create(&module_def);
}
