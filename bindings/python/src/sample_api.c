/* sample_api.c - the sampling mode's functions in tracer._tracer. */
#include "sample.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

static PyObject *api_start_sampling(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"hz", "hide_below", "hide_frame", NULL};
    PyObject *rate = NULL, *hide_below = NULL, *hide_frame = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$OO:start_sampling", kwlist, &rate, &hide_below, &hide_frame))
        return NULL;
    long hz = TP_SAMPLE_DEFAULT_HZ;
    if (rate && rate != Py_None) {
        if (!PyLong_Check(rate) || PyBool_Check(rate))
            return PyErr_Format(PyExc_TypeError, "sampling rate must be an int (samples per second), not %.100s",
                                Py_TYPE(rate)->tp_name);
        int overflow;
        hz = PyLong_AsLongAndOverflow(rate, &overflow);
        if (overflow)
            hz = overflow > 0 ? TP_SAMPLE_MAX_HZ + 1 : 0;
        else if (hz == -1 && PyErr_Occurred())
            return NULL;
    }
    if (hz < 1 || hz > TP_SAMPLE_MAX_HZ)
        return PyErr_Format(PyExc_ValueError, "sampling rate must be between 1 and %d samples per second, not %S",
                            TP_SAMPLE_MAX_HZ, rate);
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        PyErr_SetString(PyExc_RuntimeError, "sampling can only be started from the main interpreter");
        return NULL;
    }
    if (tracyc_disabled())
        Py_RETURN_FALSE;
    if (tp_sampling_start((unsigned)hz, hide_below, hide_frame) != 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *api_stop_sampling(PyObject *self, PyObject *unused)
{
    tp_sampling_stop();
    Py_RETURN_NONE;
}

static PyObject *api_sampling_rate(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLong(tp_sampling_hz());
}

/* The ids of tracer's own threads: the profiler's (worker, CPU sampler, symbol resolver)
 * and the sampling mode's drain thread, listed with them from the moment it exists. */
static PyObject *api_own_threads(PyObject *self, PyObject *unused)
{
    uint32_t tids[16];
    size_t n = tracyc_own_threads(tids, 16);
    n = n < 16 ? n : 16;
    PyObject *set = PyFrozenSet_New(NULL);
    for (size_t i = 0; set && i < n; i++) {
        PyObject *tid = PyLong_FromUnsignedLong(tids[i]);
        if (!tid || PySet_Add(set, tid) != 0)
            Py_CLEAR(set);
        Py_XDECREF(tid);
    }
    return set;
}

static PyObject *api_sampling_stats(PyObject *self, PyObject *unused)
{
    struct tp_sampling_stats s;
    tp_sampling_stats(&s);
    return Py_BuildValue("{sKsKsKsKsKsKsKsssNsL}", "samples", (unsigned long long)s.samples, "lost",
                         (unsigned long long)s.lost, "threads", (unsigned long long)s.threads, "gil_released",
                         (unsigned long long)s.gil_released, "truncated", (unsigned long long)s.truncated, "broken",
                         (unsigned long long)s.broken, "code_copies_refused", (unsigned long long)s.refused, "clock",
                         s.clock, "stopped_by_signal_handler", PyBool_FromLong(s.signal_taken), "sampler_cpu_ns",
                         (long long)s.cpu_ns);
}

static PyObject *api_name_thread(PyObject *self, PyObject *args)
{
    unsigned long tid;
    const char *name;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "ks#:name_thread", &tid, &name, &len))
        return NULL;
    tracyc_thread_name_set((uint32_t)tid, name, (size_t)len);
    tp_sampling_wake(); /* a thread threading starts says its name first thing */
    Py_RETURN_NONE;
}

/* signal.signal(SIGURG, ...) by the program: around it, the sampler's check waits, then
 * its handler goes back on top, passing on what is not its own. Meanwhile the signal is
 * blocked in this thread (the main thread: the only one Python lets set handlers), so a
 * sample due while the program's handler is briefly the installed one stays pending and
 * reaches ours, not the program's. A sample due then on another thread can still reach
 * the program's handler (docs/python.md, "Signals"). */
static PyObject *api_signal_guard(PyObject *self, PyObject *on)
{
    static sigset_t saved_mask;
    int enter = PyObject_IsTrue(on);
    if (enter < 0)
        return NULL;
    if (enter) {
        atomic_fetch_add(&tp_signal_changing, 1);
        sigset_t block;
        sigemptyset(&block);
        sigaddset(&block, TP_SAMPLE_SIGNAL);
        pthread_sigmask(SIG_BLOCK, &block, &saved_mask);
    } else {
        if (tp_sampling_hz() && tp_signal_install() != 0)
            PyErr_SetFromErrno(PyExc_OSError);
        pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
        atomic_fetch_sub(&tp_signal_changing, 1);
        if (PyErr_Occurred())
            return NULL;
    }
    Py_RETURN_NONE;
}

/* The calling thread's stack as the handler sees it: [(function, file, line), ...],
 * innermost first. For tests of the walk and of line numbers. */
static PyObject *api_sample_stack(PyObject *self, PyObject *unused)
{
    if (tp_codes_init() != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    struct tp_frame_ref frames[TP_SAMPLE_MAX_DEPTH];
    unsigned flags;
    int n = tp_walk_stack(frames, TP_SAMPLE_MAX_DEPTH, &flags);
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < n; i++) {
        const struct tp_code_copy *c = tp_codes_at(frames[i].code);
        PyObject *item = NULL;
        if (c) {
            const unsigned char *q = c->data, *f = q + (size_t)c->qualname_len * c->qualname_kind;
            const unsigned char *table = f + (size_t)c->filename_len * c->filename_kind;
            PyObject *name = PyUnicode_FromKindAndData(c->qualname_kind, q, c->qualname_len);
            PyObject *file = PyUnicode_FromKindAndData(c->filename_kind, f, c->filename_len);
            int line = tp_linetable_line(table, c->linetable_len, c->firstlineno, frames[i].offset);
            if (name && file)
                item = Py_BuildValue("(OOi)", name, file, line);
            Py_XDECREF(name);
            Py_XDECREF(file);
        } else {
            item = Py_BuildValue("(ssi)", "<unknown>", "", 0);
        }
        if (!item || PyList_Append(list, item) != 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* The line of every instruction of code by the sampler's decoding of its line table,
 * next to CPython's own (co_lines()): [(offset, ours), ...]. */
static PyObject *api_code_lines(PyObject *self, PyObject *code)
{
    if (!PyCode_Check(code)) {
        PyErr_SetString(PyExc_TypeError, "a code object is needed");
        return NULL;
    }
    PyCodeObject *co = (PyCodeObject *)code;
    const unsigned char *table = (const unsigned char *)PyBytes_AS_STRING(co->co_linetable);
    size_t len = (size_t)PyBytes_GET_SIZE(co->co_linetable);
    PyObject *list = PyList_New(0);
    for (Py_ssize_t offset = 0; list && offset < Py_SIZE(co) * 2; offset += 2) {
        PyObject *item = Py_BuildValue("(ni)", offset, tp_linetable_line(table, len, co->co_firstlineno, (int)offset));
        if (!item || PyList_Append(list, item) != 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

static void in_child(void)
{
    tp_sampling_forget_after_fork();
}

int tp_sample_init(void)
{
    return tp_sampling_init() == 0 && pthread_atfork(NULL, NULL, in_child) == 0 ? 0 : -1;
}

PyMethodDef tp_sample_methods[] = {
    {"start_sampling", (PyCFunction)(void (*)(void))api_start_sampling, METH_VARARGS | METH_KEYWORDS,
     "start_sampling(hz=1000, *, hide_below=None, hide_frame=None) -> bool\nSamples the Python stack of every"
     " thread hz times per second of its CPU time; frames of the files in hide_below are left out with those below"
     " them, frames of the files in hide_frame alone. False when the profiler is disabled."},
    {"stop_sampling", api_stop_sampling, METH_NOARGS,
     "stop_sampling()\nStops sampling; every sample taken is recorded first."},
    {"sampling_rate", api_sampling_rate, METH_NOARGS, "sampling_rate() -> int\nSamples per second, 0 when off."},
    {"sampling_stats", api_sampling_stats, METH_NOARGS, "sampling_stats() -> dict\nWhat sampling has done so far."},
    {"name_thread", api_name_thread, METH_VARARGS,
     "name_thread(native_id, name)\nNames a thread of the process in the profile (threading's native_id)."},
    {"_own_threads", api_own_threads, METH_NOARGS,
     "_own_threads() -> frozenset\nThe thread ids (native_id) of tracer's own threads running now."},
    {"_sampling_signal_guard", api_signal_guard, METH_O, NULL},
    {"_sample_stack", api_sample_stack, METH_NOARGS, NULL},
    {"_code_lines", api_code_lines, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
