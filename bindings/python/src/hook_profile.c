/* hook_profile.c - automatic tracing on CPython 3.11: a C profile function on every
 * thread (PyEval_SetProfile), plus a C trace function for line zones.
 *
 * Threads running when tracing starts get the hooks directly (_PyEval_SetProfile on each
 * thread state, as 3.12's PyEval_SetProfileAllThreads does); threads started later get
 * them from a trampoline installed with threading.setprofile, which swaps itself for the
 * C hooks on its first call. When tracing stops, every other thread closes its zones and
 * removes its hooks at its next event: a zone is only ever ended by its own thread.
 *
 * A thread has one profile function: while tracing, sys.setprofile is replaced by a guard
 * that lets the program set its own (tracing pauses on that thread, with a warning in the
 * profile) and puts tracer's hook back when the program sets None.
 */
#include "tracer.h"

#if PY_VERSION_HEX < 0x030C0000

#include <pthread.h>
#include <time.h>

int tp_tracing;
static PyObject *trampoline; /* the function given to threading.setprofile */

static int line_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);

/* Tracing has stopped: this thread closes its zones and takes its hooks off. */
static void drain(struct tp_thread *t)
{
    tp_close_auto(t);
    t->epoch = tp_epoch;
    PyThreadState *ts = PyThreadState_Get();
    PyEval_SetProfile(NULL, NULL);
    if (ts->c_tracefunc == line_hook)
        PyEval_SetTrace(NULL, NULL);
}

static int profile_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    struct tp_thread *t = tp_thread_get();
    if (!t)
        return 0;
    if (!tp_tracing) {
        drain(t);
        return 0;
    }
    tp_thread_sync(t);
    PyCodeObject *co = PyFrame_GetCode(frame);
    if (what == PyTrace_RETURN && tp_auto_end_top(t, TP_PY, co)) {
        Py_DECREF(co);
        return 0;
    }
    struct tp_code *info = tp_code_if_traced(co);
    if (info) {
        switch (what) {
        case PyTrace_CALL:
            tp_auto_begin(t, TP_PY, co, info->loc);
            break;
        case PyTrace_RETURN: /* also on unwinding by an exception, and on yield */
            tp_auto_end(t, TP_PY, co);
            break;
        case PyTrace_C_CALL:
            if (tp_cfg.c_calls) {
                const tp_srcloc *loc = tp_cfunc_srcloc(arg);
                if (loc)
                    tp_auto_begin(t, TP_C, arg, loc);
            }
            break;
        case PyTrace_C_RETURN:
        case PyTrace_C_EXCEPTION:
            tp_auto_end(t, TP_C, arg);
            break;
        }
    }
    Py_DECREF(co);
    return 0;
}

static int line_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    if (what != PyTrace_LINE)
        return 0;
    struct tp_thread *t = tp_thread_get();
    if (!t || !tp_tracing)
        return 0; /* the profile hook drains */
    tp_thread_sync(t);
    PyCodeObject *co = PyFrame_GetCode(frame);
    if (tp_code_if_traced(co)) {
        const tp_srcloc *loc = tp_line_srcloc(co, PyFrame_GetLineNumber(frame));
        if (loc)
            tp_line(t, co, loc);
    }
    Py_DECREF(co);
    return 0;
}

/* ---- CPython 3.11's spin at a function entry --------------------------------------- *
 * A signal caught while the main thread is blocked sets the interpreter's eval breaker,
 * which only the main thread can clear. In 3.11's eval loop with a profile function set,
 * a function's first instruction (RESUME) checks the breaker and, when it cannot clear it,
 * dispatches the same instruction again: the thread loops there, holding the GIL, and if
 * the main thread waits for it (join), forever. Every all-threads profiler meets it (a
 * pure-Python threading.setprofile too); 3.12's sys.monitoring has no such loop.
 * A thread that takes the GIL recomputes the breaker for itself, without the main
 * thread's signals, which ends the loop: while tracing and once a second thread has
 * started, a helper thread takes the GIL every 100 ms. */

static int ticker_running;

static void ticker_main(void *unused)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    while (tp_tracing) {
        Py_BEGIN_ALLOW_THREADS nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        Py_END_ALLOW_THREADS
    }
    ticker_running = 0;
    PyGILState_Release(gil);
}

static void start_ticker(void)
{
    if (ticker_running)
        return;
    ticker_running = 1;
    if (PyThread_start_new_thread(ticker_main, NULL) == PYTHREAD_INVALID_THREAD_ID)
        ticker_running = 0;
}

static void forget_ticker(void)
{
    ticker_running = 0; /* a forked child has no such thread */
}

/* threading.setprofile's hook, called once at the start of each new thread (for the
 * c_return of the sys.setprofile call that installed it, which matches no zone). */
static PyObject *thread_trampoline(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (tp_tracing) {
        PyEval_SetProfile(profile_hook, NULL);
        if (tp_cfg.lines)
            PyEval_SetTrace(line_hook, NULL);
        start_ticker();
    } else {
        PyEval_SetProfile(NULL, NULL);
    }
    Py_RETURN_NONE;
}

static PyMethodDef trampoline_def = {"_thread_trampoline", (PyCFunction)(void (*)(void))thread_trampoline,
                                     METH_FASTCALL, NULL};

/* ---- the program's own sys.setprofile --------------------------------------------- */

static PyObject *guard;              /* what sys.setprofile is while tracing */
static PyObject *program_setprofile; /* the real sys.setprofile meanwhile */

static void warn_paused(void)
{
    char text[200];
    int n = snprintf(text, sizeof text,
                     "tracer: the program set its own profile function (sys.setprofile) on thread %lu; its calls "
                     "are not traced until it sets None",
                     PyThread_get_thread_native_id());
    ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, (size_t)n, text);
}

static PyObject *guarded_setprofile(PyObject *self, PyObject *func)
{
    PyThreadState *ts = PyThreadState_Get();
    struct tp_thread *t = tp_thread_get();
    if (tp_tracing && func != Py_None && func != trampoline && ts->c_profilefunc == profile_hook && t) {
        tp_close_auto(t); /* its zones end here: their returns will not be seen */
        if (ts->c_tracefunc == line_hook)
            PyEval_SetTrace(NULL, NULL);
        warn_paused();
    }
    PyObject *r = PyObject_CallOneArg(program_setprofile, func);
    if (r && tp_tracing && func == Py_None) { /* the program's profiler is gone: trace again */
        PyEval_SetProfile(profile_hook, NULL);
        if (tp_cfg.lines)
            PyEval_SetTrace(line_hook, NULL);
    }
    return r;
}

static PyMethodDef guard_def = {"setprofile", guarded_setprofile, METH_O,
                                "setprofile(function)\nsys.setprofile, with tracer's hook put back at None."};

/* Puts the guard in place of sys.setprofile (on), or the real one back (off). */
static int guard_setprofile(int on)
{
    PyObject *sys = PyImport_ImportModule("sys");
    if (!sys)
        return -1;
    PyObject *current = PyObject_GetAttrString(sys, "setprofile");
    int rc = current ? 0 : -1;
    if (on && current && current != guard) {
        Py_XSETREF(program_setprofile, Py_NewRef(current));
        rc = PyObject_SetAttrString(sys, "setprofile", guard);
    } else if (!on && current == guard && program_setprofile) {
        rc = PyObject_SetAttrString(sys, "setprofile", program_setprofile);
    }
    Py_XDECREF(current);
    Py_DECREF(sys);
    return rc;
}

static PyObject *threading_name;      /* "threading" */
static PyObject *at_threading_import; /* what tracer._imports calls when threading is imported */
static int threading_awaited;         /* at_threading_import is waiting for that */

int tp_hook_init(PyObject *module)
{
    trampoline = PyCFunction_NewEx(&trampoline_def, NULL, NULL);
    guard = PyCFunction_NewEx(&guard_def, NULL, NULL);
    threading_name = PyUnicode_InternFromString("threading");
    pthread_atfork(NULL, NULL, forget_ticker);
    return trampoline && guard && threading_name ? 0 : -1;
}

/* threading.setprofile(func) on module threading; with func NULL, clears the hook if it
 * is still ours. */
static int threading_setprofile_on(PyObject *threading, PyObject *func)
{
    PyObject *r = NULL;
    if (!func) {
        PyObject *current = PyObject_GetAttrString(threading, "_profile_hook");
        if (current && current != trampoline)
            r = Py_NewRef(Py_None); /* someone else's hook: leave it */
        else if (current)
            func = Py_None;
        Py_XDECREF(current);
    }
    if (func)
        r = PyObject_CallMethod(threading, "setprofile", "O", func);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* Once the program imports threading: the trampoline for its threads, if still tracing. */
static PyObject *threading_imported(PyObject *self, PyObject *threading)
{
    threading_awaited = 0;
    if (tp_tracing && threading_setprofile_on(threading, trampoline) != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef threading_imported_def = {"_threading_imported", threading_imported, METH_O, NULL};

/* threading.setprofile(func); with func NULL, clears the hook if it is still ours. Tracing
 * does not import threading (~0.7 ms of every start-up): until the program does, no thread
 * of threading's runs, and tracer._imports sets the hook when it is imported. */
static int threading_setprofile(PyObject *func)
{
    PyObject *threading = PyImport_GetModule(threading_name);
    if (threading) {
        int rc = threading_setprofile_on(threading, func);
        Py_DECREF(threading);
        return rc;
    }
    if (PyErr_Occurred())
        return -1;
    if (!func || threading_awaited)
        return 0;
    if (!at_threading_import && !(at_threading_import = PyCFunction_NewEx(&threading_imported_def, NULL, NULL)))
        return -1;
    PyObject *imports = PyImport_ImportModule("tracer._imports");
    PyObject *r =
        imports ? PyObject_CallMethod(imports, "when_imported", "sO", "threading", at_threading_import) : NULL;
    Py_XDECREF(imports);
    Py_XDECREF(r);
    threading_awaited = r != NULL;
    return r ? 0 : -1;
}

int tp_hook_start(void)
{
    if (tp_tracing)
        return 0;
    if (threading_setprofile(trampoline) != 0 || guard_setprofile(1) != 0)
        return -1;
    tp_tracing = 1;
    tp_epoch++;
    PyInterpreterState *interp = PyInterpreterState_Get();
    int threads = 0;
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts), threads++) {
        _PyEval_SetProfile(ts, profile_hook, NULL);
        if (tp_cfg.lines)
            _PyEval_SetTrace(ts, line_hook, NULL);
    }
    if (threads > 1)
        start_ticker();
    return 0;
}

int tp_hook_stop(void)
{
    if (!tp_tracing)
        return 0;
    tp_tracing = 0;
    tp_epoch++;
    struct tp_thread *t = tp_thread_get();
    if (t)
        drain(t);
    else
        PyEval_SetProfile(NULL, NULL);
    int rc = guard_setprofile(0);
    return threading_setprofile(NULL) != 0 || rc != 0 ? -1 : 0;
}

#endif
