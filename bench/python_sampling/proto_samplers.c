/* proto_samplers.c - the two sampling mechanisms tracer measured and did not choose,
 * built just well enough to measure what they cost the program (bench.py compiles it):
 *
 *   gil     a thread that, hz times a second, takes the GIL and walks every other
 *           thread's frame chain (a consistent view; sys._current_frames() does the same
 *           with frame objects on top)
 *   remote  a thread that, hz times a second, reads every thread's frame chain without
 *           the GIL, each read through process_vm_readv so that a frame freed under it
 *           cannot crash it (how an out-of-process sampler such as py-spy reads, here from
 *           inside the process)
 *
 * Each counts its samples and frames and its own CPU time. Neither resolves names: what
 * is measured is the cost of getting the stacks.
 *
 *   floor   the kernel's part of tracer's mechanism alone: the calling thread's perf
 *           task-clock event signals it (SIGPROF here) into an empty handler
 */
#define PY_SSIZE_T_CLEAN
#define Py_BUILD_CORE_MODULE 1 /* the interpreter's internal structures, read as a core module does */
#include <Python.h>
#include "internal/pycore_frame.h"
#include "internal/pycore_interp.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE(f) ((PyCodeObject *)(f)->f_executable)
#define THREAD_FRAME(ts) ((ts)->current_frame)
#else
#define FRAME_CODE(f) ((f)->f_code)
#define THREAD_FRAME(ts) ((ts)->cframe->current_frame)
#endif

static pthread_t thread;
static _Atomic int running;
static unsigned period_ns;
static PyInterpreterState *interp;
static unsigned long long samples, frames, sampler_cpu_ns;

static void pause_period(void)
{
    struct timespec ts = {0, (long)period_ns};
    nanosleep(&ts, NULL);
}

static void note_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    sampler_cpu_ns = (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* ---- gil: take the GIL, walk the frames ------------------------------------------ */

static void *gil_main(void *unused)
{
    while (atomic_load(&running)) {
        pause_period();
        PyGILState_STATE g = PyGILState_Ensure();
        PyThreadState *self = PyThreadState_Get();
        for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts)) {
            if (ts == self)
                continue;
            for (_PyInterpreterFrame *f = THREAD_FRAME(ts); f; f = f->previous) {
                PyCodeObject *co = FRAME_CODE(f);
                if (co && PyCode_Check(co))
                    frames += (unsigned long long)PyCode_Addr2Line(co, 0) > 0;
            }
        }
        samples++;
        PyGILState_Release(g);
        note_cpu();
    }
    return NULL;
}

/* ---- remote: process_vm_readv for every read -------------------------------------- */

static int peek(const void *addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

static void *remote_main(void *unused)
{
    while (atomic_load(&running)) {
        pause_period();
        PyThreadState *ts;
        if (peek(&interp->threads.head, &ts, sizeof ts) != 0)
            continue;
        for (int n = 0; ts && n < 64; n++) {
            PyThreadState copy;
            if (peek(ts, &copy, sizeof copy) != 0)
                break;
            _PyInterpreterFrame *f;
#if PY_VERSION_HEX >= 0x030D0000
            f = copy.current_frame;
#else
            _PyCFrame cframe;
            f = peek(copy.cframe, &cframe, sizeof cframe) == 0 ? cframe.current_frame : NULL;
#endif
            for (int depth = 0; f && depth < 256; depth++) {
                _PyInterpreterFrame frame;
                PyCodeObject code;
                if (peek(f, &frame, sizeof frame) != 0 || peek(FRAME_CODE(&frame), &code, sizeof code) != 0)
                    break;
                frames += code.co_firstlineno > 0;
                f = frame.previous;
            }
            ts = copy.next;
        }
        samples++;
        note_cpu();
    }
    return NULL;
}

/* ---- floor: signals into an empty handler ---------------------------------------- */

static _Atomic unsigned long long floor_signals;
static int floor_fd = -1;

static void empty_handler(int sig)
{
    atomic_fetch_add_explicit(&floor_signals, 1, memory_order_relaxed);
}

static PyObject *start_floor(unsigned hz)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = empty_handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000000ull / hz;
    a.wakeup_events = 1;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    floor_fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    if (floor_fd < 0 || fcntl(floor_fd, F_SETSIG, SIGPROF) != 0 || fcntl(floor_fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(floor_fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || ioctl(floor_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    floor_signals = 0;
    Py_RETURN_NONE;
}

static PyObject *start(PyObject *self, PyObject *args)
{
    const char *kind;
    unsigned hz;
    if (!PyArg_ParseTuple(args, "sI", &kind, &hz) || hz == 0)
        return NULL;
    if (kind[0] == 'f')
        return start_floor(hz);
    interp = PyInterpreterState_Get();
    period_ns = 1000000000u / hz;
    samples = frames = sampler_cpu_ns = 0;
    atomic_store(&running, 1);
    if (pthread_create(&thread, NULL, kind[0] == 'g' ? gil_main : remote_main, NULL) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyObject *stop(PyObject *self, PyObject *unused)
{
    if (floor_fd >= 0) {
        close(floor_fd);
        floor_fd = -1;
        return Py_BuildValue("(KKK)", (unsigned long long)floor_signals, 0ull, 0ull);
    }
    atomic_store(&running, 0);
    Py_BEGIN_ALLOW_THREADS pthread_join(thread, NULL);
    Py_END_ALLOW_THREADS return Py_BuildValue("(KKK)", samples, frames, sampler_cpu_ns);
}

static PyMethodDef methods[] = {
    {"start", start, METH_VARARGS, "start(kind, hz): kind 'gil', 'remote' or 'floor'"},
    {"stop", stop, METH_NOARGS, "stop() -> (samples, frames, sampler CPU ns)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "proto_samplers", NULL, -1, methods};

PyMODINIT_FUNC PyInit_proto_samplers(void)
{
    return PyModule_Create(&module);
}
