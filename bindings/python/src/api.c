/* api.c - the module's functions: tracing control, messages, plots, frames, threads,
 * the in-process capture. Argument errors raise TypeError or ValueError. */
#include "sample.h"

/* A colour argument: None (0, the default colour) or 0xRRGGBB. */
static int parse_color(PyObject *o, uint32_t *out)
{
    if (!o || o == Py_None) {
        *out = 0;
        return 0;
    }
    if (!PyLong_Check(o) || PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "color must be an int 0xRRGGBB or None, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > 0xffffff) {
        PyErr_SetString(PyExc_ValueError, "color must be between 0 and 0xFFFFFF");
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* The UTF-8 text of a str argument, or NULL with TypeError. */
static const char *text_arg(PyObject *o, const char *what, Py_ssize_t *len)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(o, len);
}

/* A str argument as an interned string: the profiler keeps plot, frame and thread
 * names by address. */
static const char *name_arg(PyObject *o, const char *what)
{
    Py_ssize_t len;
    const char *s = text_arg(o, what, &len);
    if (!s)
        return NULL;
    const char *r = tp_intern(s, (size_t)len);
    if (!r)
        PyErr_NoMemory();
    return r;
}

static PyObject *api_start(PyObject *self, PyObject *unused)
{
    if (tracyc_disabled())
        Py_RETURN_FALSE;
    if (tp_hook_start() != 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *api_stop(PyObject *self, PyObject *unused)
{
    if (tp_hook_stop() != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *api_is_tracing(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(tp_tracing);
}

static PyObject *api_message(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"text", "color", NULL};
    PyObject *text, *color = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:message", kwlist, &text, &color))
        return NULL;
    Py_ssize_t len;
    const char *s = text_arg(text, "message text", &len);
    uint32_t rgb;
    if (!s || parse_color(color, &rgb) != 0)
        return NULL;
    ___tracy_emit_logString(TracyMessageSeverityInfo, (int32_t)rgb, 0, (size_t)len, s);
    Py_RETURN_NONE;
}

static PyObject *api_warning(PyObject *self, PyObject *text)
{
    Py_ssize_t len;
    const char *s = text_arg(text, "warning text", &len);
    if (!s)
        return NULL;
    ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, (size_t)len, s);
    Py_RETURN_NONE;
}

static PyObject *api_budget_warning(PyObject *self, PyObject *unused)
{
    const char *text = tp_srcloc_budget_warning();
    return text[0] ? PyUnicode_FromString(text) : Py_NewRef(Py_None);
}

static PyObject *api_plot(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "plot() takes 2 arguments (name, value), %zd given", nargs);
        return NULL;
    }
    const char *name = name_arg(args[0], "plot name");
    if (!name)
        return NULL;
    PyObject *v = args[1];
    if (PyLong_Check(v) && !PyBool_Check(v)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow) {
            ___tracy_emit_plot_int(name, (int64_t)i);
            Py_RETURN_NONE;
        }
    } else if (!PyFloat_Check(v)) {
        PyErr_Format(PyExc_TypeError, "plot value must be an int or a float, not %.100s", Py_TYPE(v)->tp_name);
        return NULL;
    }
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred())
        return NULL;
    ___tracy_emit_plot(name, d);
    Py_RETURN_NONE;
}

static PyObject *api_frame_mark(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "frame_mark() takes at most 1 argument (name), %zd given", nargs);
        return NULL;
    }
    const char *name = NULL;
    if (nargs == 1 && args[0] != Py_None && !(name = name_arg(args[0], "frame name")))
        return NULL;
    ___tracy_emit_frame_mark(name);
    Py_RETURN_NONE;
}

static PyObject *api_set_thread_name(PyObject *self, PyObject *name)
{
    Py_ssize_t len;
    const char *s = text_arg(name, "thread name", &len);
    if (!s)
        return NULL;
    ___tracy_set_thread_name(s);
    Py_RETURN_NONE;
}

static PyObject *api_is_connected(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(___tracy_connected());
}

static PyObject *api_set_program_name(PyObject *self, PyObject *name)
{
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(name, &len);
    if (!s)
        return NULL;
    tracyc_program_name_set(s, (size_t)len);
    Py_RETURN_NONE;
}

/* The in-process capture's collector sets TRACYC_CONNECT in the C environment when the
 * profiler starts, which os.environ, copied at the interpreter's start, does not see. */
static PyObject *api_collector_address(PyObject *self, PyObject *unused)
{
    const char *address = getenv("TRACYC_CONNECT");
    if (!address || !*address)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(address);
}

static PyObject *api_disabled(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(tracyc_disabled());
}

static PyObject *api_forget_zones_after_fork(PyObject *self, PyObject *unused)
{
    tp_forget_zones_after_fork();
    Py_RETURN_NONE;
}

static PyObject *api_profiler_started(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(___tracy_profiler_started());
}

static PyObject *api_capture_start(PyObject *self, PyObject *path)
{
    PyObject *bytes;
    if (!PyUnicode_FSConverter(path, &bytes))
        return NULL;
    int rc = tracyc_capture_start(PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    if (rc != 0)
        return PyErr_Format(PyExc_RuntimeError, "%s", tracyc_last_error());
    Py_RETURN_NONE;
}

static PyObject *api_check_output(PyObject *self, PyObject *path)
{
    PyObject *bytes;
    if (!PyUnicode_FSConverter(path, &bytes))
        return NULL;
    int rc = tracyc_output_check(PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    if (rc != 0)
        return PyErr_Format(PyExc_ValueError, "%s", tracyc_last_error());
    Py_RETURN_NONE;
}

static PyObject *api_startup(PyObject *self, PyObject *unused)
{
    ___tracy_startup_profiler();
    Py_RETURN_NONE;
}

static PyObject *api_shutdown(PyObject *self, PyObject *unused)
{
    tp_hook_stop();
    tp_sampling_stop(); /* its handler reads the profiler's clock: not past the profiler's end */
    ___tracy_shutdown_profiler();
    Py_RETURN_NONE;
}

PyMethodDef tp_api_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))tp_configure, METH_VARARGS | METH_KEYWORDS,
     "configure(*, c_calls, lines, max_depth, min_duration_ns, include, exclude, skip_dirs, own_dirs,"
     " srcloc_budget)\nSets the tracing options; only the ones given change."},
    {"start", api_start, METH_NOARGS, "start() -> bool\nStarts automatic tracing on every thread."},
    {"stop", api_stop, METH_NOARGS, "stop()\nStops automatic tracing; open function zones are closed."},
    {"is_tracing", api_is_tracing, METH_NOARGS, "is_tracing() -> bool"},
    {"message", (PyCFunction)(void (*)(void))api_message, METH_VARARGS | METH_KEYWORDS,
     "message(text, color=None)\nA message in the profile's timeline."},
    {"budget_warning", api_budget_warning, METH_NOARGS,
     "budget_warning() -> str or None\nThe warning given when the source-location budget ran out."},
    {"warning", api_warning, METH_O, "warning(text)\nA warning in the profile's timeline (tracer's own notes)."},
    {"plot", (PyCFunction)(void (*)(void))api_plot, METH_FASTCALL, "plot(name, value)\nA value of the plot name."},
    {"frame_mark", (PyCFunction)(void (*)(void))api_frame_mark, METH_FASTCALL,
     "frame_mark(name=None)\nThe end of a frame of the main frame set, or of the set name."},
    {"set_thread_name", api_set_thread_name, METH_O, "set_thread_name(name)\nNames the calling thread."},
    {"is_connected", api_is_connected, METH_NOARGS, "is_connected() -> bool\nTrue while a Tracy server is connected."},
    {"set_program_name", api_set_program_name, METH_O,
     "set_program_name(name)\nThe program's name in the welcome servers and collectors get from now on."},
    {"collector_address", api_collector_address, METH_NOARGS,
     "collector_address() -> str or None\nTRACYC_CONNECT as the C environment has it (the children's collector)."},
    {"disabled", api_disabled, METH_NOARGS,
     "disabled() -> bool\nThe profiler is off for good (TRACYC_DISABLE=1, or a forked child it does not follow)."},
    {"forget_zones_after_fork", api_forget_zones_after_fork, METH_NOARGS,
     "forget_zones_after_fork()\nIn a forked child: the zones open at the fork are the parent's; none is ended here."},
    {"profiler_started", api_profiler_started, METH_NOARGS,
     "profiler_started() -> bool\nThe profiler runs (and so does its worker thread)."},
    {"capture_start", api_capture_start, METH_O,
     "capture_start(path)\nProfiles in-process and writes path (.json, .csv, else a summary; '-' = stdout) at"
     " shutdown."},
    {"check_output", api_check_output, METH_O,
     "check_output(path)\nValueError when the in-process capture cannot write path's format (.tracy, ...)."},
    {"startup", api_startup, METH_NOARGS,
     "startup()\nStarts the profiler now, reading its environment (TRACY_PORT, TRACY_NO_EXIT, ...)."},
    {"shutdown", api_shutdown, METH_NOARGS,
     "shutdown()\nStops tracing and the profiler: everything is sent and the capture file written."},
    {NULL, NULL, 0, NULL},
};
