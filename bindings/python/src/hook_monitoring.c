/* hook_monitoring.c - automatic tracing on CPython 3.12+: sys.monitoring (PEP 669),
 * which reports every thread's events to C callbacks.
 *
 * Code the filters leave out answers sys.monitoring.DISABLE, so the interpreter stops
 * reporting it; so do call sites that call Python functions, which keeps a Python call
 * at one event instead of two (a site that later calls a C function is then not seen).
 * When tracing stops, events stay on until every thread has closed its zones at its next
 * event (a zone is only ever ended by its own thread), then go off.
 */
#include "tracer.h"

#if PY_VERSION_HEX >= 0x030C0000

int tp_tracing;
static int tool = -1;        /* our sys.monitoring tool id, -1 when not held */
static PyObject *monitoring; /* sys.monitoring */
static PyObject *disable;    /* sys.monitoring.DISABLE */

enum { CB_ENTER, CB_ENTER_ALWAYS, CB_EXIT, CB_EXIT_ALWAYS, CB_CALL, CB_C_EXIT, CB_LINE, CB_COUNT };
static PyObject *callbacks[CB_COUNT];
static long ev_py_start, ev_py_resume, ev_py_throw, ev_py_return, ev_py_yield, ev_py_unwind, ev_call, ev_c_return,
    ev_c_raise, ev_line;

static PyObject *monitoring_call(const char *method, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    if (!args)
        return NULL;
    PyObject *f = PyObject_GetAttrString(monitoring, method);
    PyObject *r = f ? PyObject_Call(f, args, NULL) : NULL;
    Py_XDECREF(f);
    Py_DECREF(args);
    return r;
}

static int set_events(long mask)
{
    PyObject *r = monitoring_call("set_events", "(il)", tool, mask);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static void release_tool(void)
{
    if (tool < 0)
        return;
    if (set_events(0) != 0)
        PyErr_WriteUnraisable(NULL);
    PyObject *r = monitoring_call("free_tool_id", "(i)", tool);
    if (!r)
        PyErr_WriteUnraisable(NULL);
    Py_XDECREF(r);
    tool = -1;
}

/* Tracing has stopped: close this thread's zones; the last thread turns events off. */
static PyObject *drain(struct tp_thread *t)
{
    tp_close_auto(t);
    t->epoch = tp_epoch;
    if (tp_open_auto == 0)
        release_tool();
    Py_RETURN_NONE;
}

/* The thread's stack, in step with tracing; NULL (with *ret set) when the callback
 * has nothing more to do. */
static struct tp_thread *enter_callback(PyObject **ret)
{
    struct tp_thread *t = tp_thread_get();
    if (!t) {
        *ret = Py_NewRef(Py_None);
        return NULL;
    }
    if (!tp_tracing) {
        *ret = drain(t);
        return NULL;
    }
    tp_thread_sync(t);
    return t;
}

/* PY_START, PY_RESUME (code, offset): a call or a generator/coroutine resume. */
static PyObject *cb_enter(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyCodeObject *co = (PyCodeObject *)args[0];
    struct tp_code *info = tp_code_lookup(co);
    if (!info)
        Py_RETURN_NONE;
    if (!tp_code_traced(info))
        return Py_NewRef(disable);
    tp_auto_begin(t, TP_PY, co, info->loc);
    Py_RETURN_NONE;
}

/* PY_THROW (code, offset, exc): a resume by generator.throw(); cannot be disabled. */
static PyObject *cb_enter_always(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyCodeObject *co = (PyCodeObject *)args[0];
    struct tp_code *info = tp_code_if_traced(co);
    if (info)
        tp_auto_begin(t, TP_PY, co, info->loc);
    Py_RETURN_NONE;
}

/* PY_RETURN, PY_YIELD (code, offset, value). */
static PyObject *cb_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyCodeObject *co = (PyCodeObject *)args[0];
    if (tp_auto_end_top(t, TP_PY, co))
        Py_RETURN_NONE;
    if (!tp_code_if_traced(co))
        return Py_NewRef(disable);
    tp_auto_end(t, TP_PY, co);
    Py_RETURN_NONE;
}

/* PY_UNWIND (code, offset, exc): a frame left by an exception; cannot be disabled. */
static PyObject *cb_exit_always(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyCodeObject *co = (PyCodeObject *)args[0];
    if (tp_code_if_traced(co))
        tp_auto_end(t, TP_PY, co);
    Py_RETURN_NONE;
}

/* CALL (code, offset, callable, arg0): every call; only C functions become zones. */
static PyObject *cb_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyObject *callable = args[2];
    if (!tp_code_if_traced((PyCodeObject *)args[0]) || PyFunction_Check(callable) ||
        (PyMethod_Check(callable) && PyFunction_Check(PyMethod_GET_FUNCTION(callable))))
        return Py_NewRef(disable);
    const tp_srcloc *loc = tp_cfunc_srcloc(callable);
    if (loc)
        tp_auto_begin(t, TP_C, callable, loc);
    Py_RETURN_NONE;
}

/* C_RETURN, C_RAISE (code, offset, callable, arg0). */
static PyObject *cb_c_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    if (tp_code_if_traced((PyCodeObject *)args[0])) /* a C call from untraced code has no entry */
        tp_auto_end(t, TP_C, args[2]);
    Py_RETURN_NONE;
}

/* LINE (code, line). */
static PyObject *cb_line(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ret;
    struct tp_thread *t = enter_callback(&ret);
    if (!t)
        return ret;
    PyCodeObject *co = (PyCodeObject *)args[0];
    if (!tp_code_if_traced(co))
        return Py_NewRef(disable);
    const tp_srcloc *loc = tp_line_srcloc(co, (int)PyLong_AsLong(args[1]));
    if (loc)
        tp_line(t, co, loc);
    Py_RETURN_NONE;
}

#define CALLBACK(fn)                                                                                                   \
    {                                                                                                                  \
#fn, (PyCFunction)(void (*)(void))fn, METH_FASTCALL, NULL                                                      \
    }
static PyMethodDef callback_defs[CB_COUNT] = {
    CALLBACK(cb_enter), CALLBACK(cb_enter_always), CALLBACK(cb_exit), CALLBACK(cb_exit_always),
    CALLBACK(cb_call),  CALLBACK(cb_c_exit),       CALLBACK(cb_line),
};

static int event_bit(PyObject *events, const char *name, long *out)
{
    PyObject *v = PyObject_GetAttrString(events, name);
    if (!v)
        return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

int tp_hook_init(PyObject *module)
{
    PyObject *sys = PyImport_ImportModule("sys");
    monitoring = sys ? PyObject_GetAttrString(sys, "monitoring") : NULL;
    Py_XDECREF(sys);
    if (!monitoring)
        return -1;
    disable = PyObject_GetAttrString(monitoring, "DISABLE");
    PyObject *events = PyObject_GetAttrString(monitoring, "events");
    int rc = disable && events ? 0 : -1;
    if (rc == 0 && (event_bit(events, "PY_START", &ev_py_start) || event_bit(events, "PY_RESUME", &ev_py_resume) ||
                    event_bit(events, "PY_THROW", &ev_py_throw) || event_bit(events, "PY_RETURN", &ev_py_return) ||
                    event_bit(events, "PY_YIELD", &ev_py_yield) || event_bit(events, "PY_UNWIND", &ev_py_unwind) ||
                    event_bit(events, "CALL", &ev_call) || event_bit(events, "C_RETURN", &ev_c_return) ||
                    event_bit(events, "C_RAISE", &ev_c_raise) || event_bit(events, "LINE", &ev_line)))
        rc = -1;
    Py_XDECREF(events);
    for (int i = 0; rc == 0 && i < CB_COUNT; i++)
        if (!(callbacks[i] = PyCFunction_NewEx(&callback_defs[i], NULL, NULL)))
            rc = -1;
    return rc;
}

/* Takes a sys.monitoring tool id that no standard tool claims (3 and 4; then 5, which is
 * reserved for optimizers), so that the program can still use pdb (DEBUGGER_ID 0),
 * coverage (COVERAGE_ID 1) and cProfile (PROFILER_ID 2). Only when those are all taken
 * does it fall back to a standard id, the profiler's first. */
static int acquire_tool(void)
{
    static const int order[] = {3, 4, 5, 2, 1, 0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        PyObject *r = monitoring_call("use_tool_id", "(is)", order[i], "tracer");
        if (r) {
            Py_DECREF(r);
            tool = order[i];
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
    }
    PyErr_SetString(PyExc_RuntimeError, "tracer: every sys.monitoring tool id is in use");
    return -1;
}

static int register_callbacks(void)
{
    const struct {
        long event;
        int cb;
    } table[] = {
        {ev_py_start, CB_ENTER}, {ev_py_resume, CB_ENTER}, {ev_py_throw, CB_ENTER_ALWAYS},
        {ev_py_return, CB_EXIT}, {ev_py_yield, CB_EXIT},   {ev_py_unwind, CB_EXIT_ALWAYS},
        {ev_call, CB_CALL},      {ev_c_return, CB_C_EXIT}, {ev_c_raise, CB_C_EXIT},
        {ev_line, CB_LINE},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        PyObject *r = monitoring_call("register_callback", "(ilO)", tool, table[i].event, callbacks[table[i].cb]);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

int tp_hook_start(void)
{
    if (tp_tracing)
        return 0;
    if (tool < 0 && (acquire_tool() != 0 || register_callbacks() != 0)) {
        if (tool >= 0) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            release_tool();
            PyErr_Restore(type, value, tb);
        }
        return -1;
    }
    long mask = ev_py_start | ev_py_resume | ev_py_throw | ev_py_return | ev_py_yield | ev_py_unwind;
    if (tp_cfg.c_calls)
        mask |= ev_call | ev_c_return | ev_c_raise;
    if (tp_cfg.lines)
        mask |= ev_line;
    PyObject *r = monitoring_call("restart_events", "()");
    if (!r || set_events(mask) != 0) {
        Py_XDECREF(r);
        return -1;
    }
    Py_DECREF(r);
    tp_tracing = 1;
    tp_epoch++;
    return 0;
}

int tp_hook_stop(void)
{
    if (!tp_tracing)
        return 0;
    tp_tracing = 0;
    tp_epoch++;
    struct tp_thread *t = tp_thread_get();
    if (t) {
        PyObject *r = drain(t);
        Py_XDECREF(r);
    } else if (tp_open_auto == 0) {
        release_tool();
    }
    return 0;
}

#endif
