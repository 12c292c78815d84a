/* sample_drain.c - the sampler's own thread: it finds the process's threads, gives each a
 * clock (sample_signal.c), empties their rings and records each sample with the profiler
 * as a callstack of synthetic frame addresses, which it also answers. It waits longer
 * after each pass that found no new thread, 10 ms after one that did, up to a second; a
 * ring that reaches half full (its thread's handler says so), a thread that threading
 * starts and the stop wake it at once (tp_sampler_wake).
 *
 * A frame address is SAMPLE_BASE | function id << 28 | line: the function (qualified
 * name, file, first line: one id per distinct function, whatever code object it came
 * from) and the line being executed. Line 0 is the function itself: the address the
 * server groups samples by (the frame's symbol) and asks the definition of.
 *
 * This thread never takes the GIL: everything it needs was copied by the handler.
 */
#include "sample.h"
#include "util/fd.h"
#include "util/map.h"
#include "util/monotonic.h"
#include "util/threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_BASE 0x0C00000000000000ull
#define SAMPLE_LAST 0x0FFFFFFFFFFFFFFFull
#define LINE_BITS 28
#define MAX_FUNCTIONS ((1u << 30) - 1)
#define PERIOD_MS 10
/* The longest wait between passes, when no ring wakes the thread: how long a thread started
 * outside threading (by C code) may go unsampled. */
#define WAIT_MAX_MS 1000
/* A thread whose samples never had a Python thread state is left alone for this many
 * PERIOD_MS (its clock off), then tried again: it may have attached to Python since. */
#define NATIVE_RETRY_TICKS 500

/* Functions with a fixed id: the frames tracer adds itself. */
enum { FN_GIL_RELEASED = 1, FN_TRUNCATED, FN_UNKNOWN, FN_FIRST_FREE };
/* Frames of tracer's own: its launcher (this frame and every one below it go: the program's
 * stack starts above), or a frame it puts in the program's threads (this frame goes). */
enum { HIDE_BELOW = 1, HIDE_FRAME = 2 };

struct file_list {
    char **files;
    size_t n;
};

struct function {
    char *name, *file;
    int firstlineno;
    uint32_t same_hash; /* the next function whose content hash is the same, 0: none */
    int hidden;         /* HIDE_BELOW, HIDE_FRAME or 0 */
};

static struct {
    pthread_mutex_t lock;   /* start and stop */
    pthread_cond_t scanned; /* after each look at the process's threads */
    uint32_t scans_done;    /* how many (under lock) */
    pthread_t thread;
    int running;
    _Atomic int stop;
    unsigned hz;
    int task_dir;         /* /proc/self/task, open while the thread runs (not opened at every scan) */
    uint32_t scan;        /* passes made: a slot whose thread the last one did not list is closed */
    uint32_t tick;        /* the monotonic clock in PERIOD_MS (wrapping), as of the last pass */
    int look_now;         /* under lock: a new thread was announced (tp_sampling_wake) */
    uint64_t seen;        /* samples taken from the rings, whatever became of them */
    struct tcu_map tids;  /* tid -> slot index + 1, or NATIVE | tick it was left at */
    struct tcu_map lines; /* code copy ref << 32 | offset + 2 -> line + 1 */
    uint64_t samples, gil_released, truncated, broken, threads;
    _Atomic int64_t cpu_ns;   /* the sampler thread's own CPU time */
    _Atomic int signal_taken; /* the program put its own handler on our signal: stopped */
    _Atomic uint64_t lost_total;
    /* the functions, shared with the frame resolver (which runs on the profiler's thread) */
    pthread_mutex_t functions_lock;
    struct function *functions;
    size_t nfunctions, cap;
    struct tcu_map function_ids; /* content hash -> newest function id with it */
    int registered;
    struct file_list hide_below, hide_frame; /* set before the thread starts, fixed while it runs */
} d = {.lock = PTHREAD_MUTEX_INITIALIZER, .functions_lock = PTHREAD_MUTEX_INITIALIZER, .task_dir = -1};

#define NATIVE ((uint64_t)1 << 40)

sem_t tp_sampler_wake;

/* ---- functions ----------------------------------------------------------------------- */

/* UTF-8 of raw str characters (kind 1, 2 or 4 bytes each); lone surrogates become U+FFFD. */
static char *utf8_of(const unsigned char *data, size_t n, unsigned kind)
{
    char *out = malloc(n * 4 + 1), *p = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = kind == 1   ? data[i]
                     : kind == 2 ? ((const uint16_t *)(const void *)data)[i]
                                 : ((const uint32_t *)(const void *)data)[i];
        if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
            c = 0xFFFD;
        if (c < 0x80) {
            *p++ = (char)c;
        } else if (c < 0x800) {
            *p++ = (char)(0xC0 | c >> 6);
            *p++ = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            *p++ = (char)(0xE0 | c >> 12);
            *p++ = (char)(0x80 | (c >> 6 & 63));
            *p++ = (char)(0x80 | (c & 63));
        } else {
            *p++ = (char)(0xF0 | c >> 18);
            *p++ = (char)(0x80 | (c >> 12 & 63));
            *p++ = (char)(0x80 | (c >> 6 & 63));
            *p++ = (char)(0x80 | (c & 63));
        }
    }
    *p = 0;
    return out;
}

static int listed(const struct file_list *l, const char *file)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(file, l->files[i]) == 0)
            return 1;
    return 0;
}

static int hidden_kind(const char *file)
{
    return listed(&d.hide_below, file) ? HIDE_BELOW : listed(&d.hide_frame, file) ? HIDE_FRAME : 0;
}

/* The id of the function with this content, added if new (functions_lock held). 0 when
 * memory runs out. Takes ownership of name and file. */
static uint32_t function_add(char *name, char *file, int firstlineno)
{
    uint64_t h = tcu_hash_bytes(tcu_hash_bytes((uint64_t)firstlineno, name, strlen(name)), file, strlen(file));
    const uint64_t *first = tcu_map_get(&d.function_ids, h);
    for (uint32_t id = first ? (uint32_t)*first : 0; id; id = d.functions[id].same_hash) {
        const struct function *f = &d.functions[id];
        if (f->firstlineno == firstlineno && strcmp(f->name, name) == 0 && strcmp(f->file, file) == 0) {
            free(name);
            free(file);
            return id;
        }
    }
    if (d.nfunctions + 1 > MAX_FUNCTIONS)
        goto refuse;
    if (d.nfunctions == d.cap) {
        size_t cap = d.cap ? d.cap * 2 : 1024;
        struct function *grown = realloc(d.functions, cap * sizeof *grown);
        if (!grown)
            goto refuse;
        d.functions = grown;
        d.cap = cap;
    }
    uint32_t id = (uint32_t)d.nfunctions;
    if (tcu_map_put(&d.function_ids, h, id) < 0)
        goto refuse;
    d.functions[id] = (struct function){name, file, firstlineno, first ? (uint32_t)*first : 0, hidden_kind(file)};
    d.nfunctions++;
    return id;
refuse:
    free(name);
    free(file);
    return 0;
}

static void functions_init(void)
{
    if (d.nfunctions)
        return;
    static const char *const fixed[] = {NULL, "<native code, GIL released>", "<deeper frames not sampled>",
                                        "<unknown>"};
    d.functions = calloc(1024, sizeof *d.functions);
    if (!d.functions)
        return;
    d.cap = 1024;
    d.nfunctions = 1; /* id 0 is none */
    for (int i = FN_GIL_RELEASED; i < FN_FIRST_FREE; i++)
        function_add(strdup(fixed[i]), strdup("<tracer>"), 0);
}

/* The function of a code copy (drain thread only; the copy keeps it). */
static uint32_t function_of(const struct tp_code_copy *c)
{
    uint32_t id = atomic_load_explicit(&c->function, memory_order_relaxed);
    if (id)
        return id;
    const unsigned char *q = c->data, *f = q + (size_t)c->qualname_len * c->qualname_kind;
    char *name = utf8_of(q, c->qualname_len, c->qualname_kind);
    char *file = utf8_of(f, c->filename_len, c->filename_kind);
    if (!name || !file) {
        free(name);
        free(file);
        return FN_UNKNOWN;
    }
    pthread_mutex_lock(&d.functions_lock);
    id = function_add(name, file, c->firstlineno);
    pthread_mutex_unlock(&d.functions_lock);
    if (!id)
        return FN_UNKNOWN;
    atomic_store_explicit((_Atomic uint32_t *)&c->function, id, memory_order_relaxed);
    return id;
}

static uint32_t line_of(const struct tp_code_copy *c, uint32_t ref, int32_t offset)
{
    uint64_t key = (uint64_t)ref << 32 | (uint32_t)(offset + 2);
    const uint64_t *known = tcu_map_get(&d.lines, key);
    if (known)
        return (uint32_t)*known - 1;
    const unsigned char *table =
        c->data + (size_t)c->qualname_len * c->qualname_kind + (size_t)c->filename_len * c->filename_kind;
    int line = offset == -1 ? c->firstlineno : tp_linetable_line(table, c->linetable_len, c->firstlineno, offset);
    uint32_t v = line > 0 ? (uint32_t)line & ((1u << LINE_BITS) - 1) : 0;
    tcu_map_put(&d.lines, key, (uint64_t)v + 1);
    return v;
}

static uint64_t address(uint32_t function, uint32_t line)
{
    return SAMPLE_BASE | (uint64_t)function << LINE_BITS | line;
}

/* The profiler asks what a frame address is (on its own thread, any time later). */
static int resolve(void *user, uint64_t addr, struct tracyc_frame *out)
{
    uint32_t id = (uint32_t)((addr - SAMPLE_BASE) >> LINE_BITS), line = (uint32_t)(addr & ((1u << LINE_BITS) - 1));
    int rc = -1;
    pthread_mutex_lock(&d.functions_lock);
    if (id && id < d.nfunctions) {
        const struct function *f = &d.functions[id];
        out->function = f->name;
        out->function_len = strlen(f->name);
        out->file = f->file;
        out->file_len = strlen(f->file);
        out->line = line ? line : (uint32_t)(f->firstlineno > 0 ? f->firstlineno : 0);
        out->symbol = address(id, 0);
        rc = 0;
    }
    pthread_mutex_unlock(&d.functions_lock);
    return rc;
}

/* ---- samples ------------------------------------------------------------------------- */

static void on_sample(struct tp_slot *s, int64_t time, unsigned flags, const struct tp_frame_ref *frames, int n,
                      void *user)
{
    uint64_t *addrs = user;
    d.seen++;
    s->native = flags & TP_SAMPLE_NO_PYTHON ? s->native + 1 : 0;
    if (n == 0 || (flags & TP_SAMPLE_BROKEN)) { /* no Python frame, or a chain cut short */
        d.broken += (flags & TP_SAMPLE_BROKEN) != 0;
        return;
    }
    const int released = (flags & TP_SAMPLE_GIL_RELEASED) != 0; /* addrs[0], innermost */
    int k = released;
    for (int i = 0; i < n; i++) {
        const struct tp_code_copy *c = tp_codes_at(frames[i].code);
        uint32_t function = c ? function_of(c) : FN_UNKNOWN;
        if (d.functions[function].hidden == HIDE_FRAME)
            continue;
        if (d.functions[function].hidden == HIDE_BELOW) { /* the program's stack starts above */
            flags &= ~(unsigned)TP_SAMPLE_TRUNCATED;
            break;
        }
        addrs[k++] = address(function, c ? line_of(c, frames[i].code, frames[i].offset) : 0);
    }
    if (k == released && !(flags & TP_SAMPLE_TRUNCATED))
        return; /* every frame was tracer's: its launcher's C code is not the program's */
    if (released) {
        addrs[0] = address(FN_GIL_RELEASED, 0);
        d.gil_released++;
    }
    if (flags & TP_SAMPLE_TRUNCATED) {
        addrs[k++] = address(FN_TRUNCATED, 0);
        d.truncated++;
    }
    if (k > 0 && tracyc_sample_record((uint32_t)s->tid, time, addrs, (uint32_t)k) == 0)
        d.samples++;
}

static void drain_slot(struct tp_slot *s, uint64_t *addrs)
{
    tp_ring_drain(s, on_sample, addrs);
}

/* native: the thread is left alone for a while (its samples had no Python in them). */
static void close_slot(struct tp_slot *s, uint64_t *addrs, int native)
{
    drain_slot(s, addrs);
    tp_slot_stop(s);
    drain_slot(s, addrs); /* what came in while it stopped */
    atomic_fetch_add(&d.lost_total, atomic_exchange(&s->lost, 0));
    if (native)
        tcu_map_put(&d.tids, (uint64_t)s->tid, NATIVE | d.tick);
    else
        tcu_map_remove(&d.tids, (uint64_t)s->tid, NULL);
    tp_slot_free(s);
}

/* A thread listed by a scan: a new one gets a clock, unless it is the profiler's (this one
 * among them: tracyc_own_threads). */
static void thread_listed(pid_t tid, uint32_t scan, const uint32_t *own, size_t nown)
{
    for (size_t i = 0; i < nown; i++)
        if (own[i] == (uint32_t)tid)
            return;
    if (tid <= 0)
        return;
    uint64_t *known = tcu_map_get(&d.tids, (uint64_t)tid);
    if (known && !(*known & NATIVE)) {
        tp_slots[*known - 1].seen = scan;
        return;
    }
    if (known && d.tick - (uint32_t)*known < NATIVE_RETRY_TICKS)
        return;
    int index = tp_slot_open(tid, d.hz, scan);
    if (index >= 0) {
        tcu_map_put(&d.tids, (uint64_t)tid, (uint64_t)index + 1);
        d.threads += !known;
    }
}

/* Lists the process's threads: new ones get a clock, gone ones are closed. The directory
 * is read again from its start through the descriptor kept open: a scan opens nothing, so
 * it never takes a number the program has just closed (util/fd.h). */
static void scan_threads(uint64_t *addrs)
{
    if (d.task_dir < 0 || lseek(d.task_dir, 0, SEEK_SET) != 0)
        return;
    uint32_t scan = ++d.scan;
    d.tick = (uint32_t)(tcu_monotonic_ns() / 1000000 / PERIOD_MS);
    uint32_t own[TCU_MAX_OWN_THREADS];
    size_t nown = tcu_threads_own(own, TCU_MAX_OWN_THREADS);
    nown = nown < TCU_MAX_OWN_THREADS ? nown : TCU_MAX_OWN_THREADS;
    _Alignas(8) char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, d.task_dir, buf, sizeof buf)) > 0) {
        for (long at = 0; at < n;) {
            const struct dirent64 *e = (const struct dirent64 *)(const void *)(buf + at);
            thread_listed((pid_t)atoi(e->d_name), scan, own, nown);
            at += e->d_reclen;
        }
    }
    if (n < 0)
        return; /* a partial list: closing the threads not seen would be wrong */
    for (uint32_t i = 0; i < TP_MAX_SLOTS; i++) {
        struct tp_slot *s = &tp_slots[i];
        if ((atomic_load(&s->gen) & 1) && s->seen != scan)
            close_slot(s, addrs, 0);
    }
}

/* The wait after a pass: PERIOD_MS after a pass that found a new thread, else twice the
 * last one, up to WAIT_MAX_MS. A ring reaching half full ends the wait, so the threads'
 * samples never wait for it. Waking every 10 to 80 ms cost the sampler's thread 8.5 ms of
 * CPU over a 5 s sleep (each pass is a wake-up and a look at /proc/self/task). */
static int next_wait_ms(int last_ms, int new_thread)
{
    if (new_thread)
        return PERIOD_MS;
    return last_ms * 2 < WAIT_MAX_MS ? last_ms * 2 : WAIT_MAX_MS;
}

void tp_sampling_wake(void)
{
    pthread_mutex_lock(&d.lock);
    if (d.running) {
        d.look_now = 1;
        sem_post(&tp_sampler_wake);
    }
    pthread_mutex_unlock(&d.lock);
}

/* For sampling_stats(): this thread's CPU time so far. */
static void note_own_cpu(void)
{
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        atomic_store(&d.cpu_ns, (int64_t)cpu.tv_sec * 1000000000 + cpu.tv_nsec);
}

/* Takes every post made so far: several (a ring half full and a new thread, say) make one
 * pass, as they made one wake-up. */
static void take_posts(void)
{
    while (sem_trywait(&tp_sampler_wake) == 0)
        continue;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
/* On the monotonic clock where the C library has it: setting the wall clock neither stretches
 * nor cuts a wait. */
#define WAIT_CLOCK CLOCK_MONOTONIC
static int timed_wait(const struct timespec *until)
{
    return sem_clockwait(&tp_sampler_wake, CLOCK_MONOTONIC, until);
}
#else
#define WAIT_CLOCK CLOCK_REALTIME
static int timed_wait(const struct timespec *until)
{
    return sem_timedwait(&tp_sampler_wake, until);
}
#endif

/* Waits wait_ms, or until tp_sampler_wake is posted (a ring half full, a new thread, the
 * stop). The deadline is absolute: a wait a signal interrupts goes on to the same end. */
static void wait_for_work(int wait_ms)
{
    struct timespec until;
    clock_gettime(WAIT_CLOCK, &until);
    long ns = until.tv_nsec + (long)(wait_ms % 1000) * 1000000;
    until.tv_sec += wait_ms / 1000 + ns / 1000000000;
    until.tv_nsec = ns % 1000000000;
    int rc;
    while ((rc = timed_wait(&until)) != 0 && errno == EINTR)
        continue;
    if (rc == 0)
        take_posts();
}

static void *drain_main(void *unused)
{
    /* (tcu_thread_start started it with the program's signals blocked) */
    d.task_dir = tcu_fd_open("/proc/self/task", O_RDONLY | O_DIRECTORY, 0);
    uint64_t *addrs = malloc((TP_SAMPLE_MAX_DEPTH + 2) * sizeof *addrs);
    int wait_ms = PERIOD_MS;
    pthread_mutex_lock(&d.lock);
    while (!atomic_load(&d.stop) && addrs) {
        d.look_now = 0;
        pthread_mutex_unlock(&d.lock);
        uint64_t threads = d.threads;
        scan_threads(addrs);
        pthread_mutex_lock(&d.lock);
        d.scans_done++;
        pthread_cond_broadcast(&d.scanned); /* start_sampling waits for the first */
        pthread_mutex_unlock(&d.lock);
        for (uint32_t i = 0; i < TP_MAX_SLOTS; i++) {
            struct tp_slot *s = &tp_slots[i];
            if (atomic_load(&s->gen) & 1) {
                drain_slot(s, addrs);
                if (s->native >= 3)
                    close_slot(s, addrs, 1);
            }
        }
        note_own_cpu();
        if (!atomic_load(&tp_signal_changing) && !tp_signal_check()) {
            static const char text[] = "tracer: sampling stopped: the program installed its own SIGURG handler "
                                       "(not through Python's signal module)";
            ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, sizeof text - 1, text);
            atomic_store(&d.signal_taken, 1);
            pthread_mutex_lock(&d.lock);
            break;
        }
        pthread_mutex_lock(&d.lock);
        wait_ms = next_wait_ms(wait_ms, d.threads != threads || d.look_now);
        int look_now = d.look_now;
        pthread_mutex_unlock(&d.lock);
        if (!atomic_load(&d.stop))
            wait_for_work(look_now ? 0 : wait_ms);
        pthread_mutex_lock(&d.lock);
    }
    pthread_mutex_unlock(&d.lock);
    atomic_store(&tp_sampling_on, 0);
    for (uint32_t i = 0; i < TP_MAX_SLOTS; i++)
        if (atomic_load(&tp_slots[i].gen) & 1)
            close_slot(&tp_slots[i], addrs, 0);
    note_own_cpu(); /* with the last samples' */
    free(addrs);
    if (d.task_dir >= 0)
        close(d.task_dir);
    d.task_dir = -1;
    return NULL;
}

/* ---- start and stop ---------------------------------------------------------------- */

/* Reads a sequence of file names into *l (replacing it). -1 with a Python exception. */
static int set_files(struct file_list *l, PyObject *files)
{
    PyObject *fast = PySequence_Fast(files, "hidden files must be a sequence of file names");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    char **list = calloc((size_t)n + 1, sizeof *list);
    for (Py_ssize_t i = 0; list && i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        const char *utf8 = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!utf8 || !(list[i] = strdup(utf8))) {
            for (Py_ssize_t j = 0; j < i; j++)
                free(list[j]);
            free(list);
            list = NULL;
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "hidden files must be file names (str)");
        }
    }
    Py_DECREF(fast);
    if (!list) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < l->n; i++)
        free(l->files[i]);
    free(l->files);
    l->files = list;
    l->n = (size_t)n;
    return 0;
}

/* Frames of the files in hide_below are left out with every frame below them, those of
 * hide_frame alone (None: as before). */
static int set_hidden(PyObject *hide_below, PyObject *hide_frame)
{
    pthread_mutex_lock(&d.functions_lock);
    int rc = (hide_below && hide_below != Py_None && set_files(&d.hide_below, hide_below) != 0) ||
                     (hide_frame && hide_frame != Py_None && set_files(&d.hide_frame, hide_frame) != 0)
                 ? -1
                 : 0;
    for (size_t id = 1; rc == 0 && id < d.nfunctions; id++)
        d.functions[id].hidden = hidden_kind(d.functions[id].file);
    pthread_mutex_unlock(&d.functions_lock);
    return rc;
}

/* Waits (at most a second) until the sampler's thread has looked at the threads since. */
static void wait_for_scan(uint32_t since)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_mutex_lock(&d.lock);
    while (d.scans_done == since && !atomic_load(&d.stop))
        if (pthread_cond_timedwait(&d.scanned, &d.lock, &until) != 0)
            break;
    pthread_mutex_unlock(&d.lock);
}

int tp_sampling_start(unsigned hz, PyObject *hide_below, PyObject *hide_frame)
{
    if (hz < 1 || hz > TP_SAMPLE_MAX_HZ) {
        PyErr_Format(PyExc_ValueError, "sampling rate must be between 1 and %d Hz, not %u", TP_SAMPLE_MAX_HZ, hz);
        return -1;
    }
    pthread_mutex_lock(&d.lock);
    int rc = 0;
    if (d.running) {
        pthread_mutex_unlock(&d.lock);
        PyErr_SetString(PyExc_RuntimeError, "sampling is running already (stop_sampling() first)");
        return -1;
    }
    if (tp_signal_setup() != 0) {
        rc = errno;
        pthread_mutex_unlock(&d.lock);
        PyErr_Format(PyExc_OSError, "sampling: cannot install the signal handler: %s", strerror(rc));
        return -1;
    }
    pthread_mutex_lock(&d.functions_lock);
    functions_init();
    pthread_mutex_unlock(&d.functions_lock);
    if (set_hidden(hide_below, hide_frame) != 0) {
        pthread_mutex_unlock(&d.lock);
        return -1;
    }
    if (!d.registered) {
        static const char image[] = "python";
        if (tracyc_frames_register(SAMPLE_BASE, SAMPLE_LAST, image, sizeof image - 1, resolve, NULL) != 0) {
            pthread_mutex_unlock(&d.lock);
            PyErr_Format(PyExc_RuntimeError, "sampling: %s", tracyc_last_error());
            return -1;
        }
        d.registered = 1;
    }
    if (!___tracy_profiler_started())
        ___tracy_startup_profiler(); /* now: the handler reads its clock and must not start it */
    if (!___tracy_profiler_started()) {
        pthread_mutex_unlock(&d.lock);
        PyErr_SetString(PyExc_RuntimeError, "sampling: the profiler has been shut down");
        return -1;
    }
    d.hz = hz;
    atomic_store(&d.stop, 0);
    atomic_store(&d.signal_taken, 0);
    take_posts(); /* a last run's: its stop's, when its thread saw the stop before waiting */
    atomic_store(&tp_sampling_on, 1);
    uint32_t scans = d.scans_done;
    /* One of the profiler's threads (tracyc_own_threads): the profiler's perf events, which
     * it inherits from this thread, leave its context switches out. */
    if ((rc = tcu_thread_start(&d.thread, "tracer sampler", drain_main, NULL)) != 0) {
        atomic_store(&tp_sampling_on, 0);
        pthread_mutex_unlock(&d.lock);
        PyErr_Format(PyExc_OSError, "sampling: cannot start its thread: %s",
                     rc > 0 ? strerror(rc) : "cannot list it among the profiler's threads");
        return -1;
    }
    d.running = 1;
    /* Return once every thread has its clock: what the caller does next is sampled. */
    pthread_mutex_unlock(&d.lock);
    Py_BEGIN_ALLOW_THREADS wait_for_scan(scans);
    Py_END_ALLOW_THREADS return 0;
}

void tp_sampling_stop(void)
{
    pthread_mutex_lock(&d.lock);
    if (!d.running) {
        pthread_mutex_unlock(&d.lock);
        return;
    }
    atomic_store(&d.stop, 1);
    sem_post(&tp_sampler_wake);
    pthread_mutex_unlock(&d.lock);
    Py_BEGIN_ALLOW_THREADS tcu_thread_join(d.thread);
    Py_END_ALLOW_THREADS pthread_mutex_lock(&d.lock);
    d.running = 0;
    pthread_mutex_unlock(&d.lock);
}

unsigned tp_sampling_hz(void)
{
    return d.running && !atomic_load(&d.signal_taken) ? d.hz : 0;
}

void tp_sampling_stats(struct tp_sampling_stats *out)
{
    uint64_t lost = atomic_load(&d.lost_total);
    for (uint32_t i = 0; i < TP_MAX_SLOTS; i++)
        lost += atomic_load(&tp_slots[i].lost);
    *out = (struct tp_sampling_stats){d.samples,
                                      lost,
                                      d.threads,
                                      d.gil_released,
                                      d.truncated,
                                      d.broken,
                                      tp_codes_refused(),
                                      tp_signal_clock() == TP_CLOCK_PERF ? "perf task-clock" : "POSIX CPU timer",
                                      atomic_load(&d.signal_taken),
                                      atomic_load(&d.cpu_ns)};
}

int tp_sampling_init(void)
{
    return sem_init(&tp_sampler_wake, 0, 0);
}

void tp_sampling_forget_after_fork(void)
{
    /* Only the forking thread exists in the child: no drain thread, and the parent's
     * events are the parent's. Locks held by other threads at the fork are made anew. */
    atomic_store(&tp_sampling_on, 0);
    tp_slots_forget();
    d.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    /* The semaphore too: the parent's sampler thread may have been waiting on it, or a
     * handler posting to it, as the process forked. */
    sem_init(&tp_sampler_wake, 0, 0);
    d.scanned = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    d.functions_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    d.running = 0;
    d.look_now = 0;
    if (d.task_dir >= 0) /* the parent's directory, which would list the parent's threads */
        close(d.task_dir);
    d.task_dir = -1;
    tcu_map_clear(&d.tids);
    d.samples = d.gil_released = d.truncated = d.broken = d.threads = 0;
    atomic_store(&d.lost_total, 0);
}
