/* stack.c - each thread's open zones: function, C and line zones opened by the hooks,
 * and manual zones opened by tracer.zone.
 *
 * The profiler requires a thread's zones to nest, so every end below goes to the
 * innermost zone recorded on that thread. Exit events are matched to their entry by
 * owner (code object or C callable); one that matches nothing belongs to a frame entered
 * before tracing started and is ignored. A manual zone can outlive the frame that opened
 * it (pytest hook wrappers yield inside `with zone`): it stays open when that frame was
 * not recorded, and is closed early ("suspended") when a recorded zone below it ends,
 * because it cannot outlast its parent.
 */
#include "tracer.h"
#include "util/array.h"

#include <pthread.h>
#include <stdlib.h>

_Thread_local struct tp_thread *tp_self;
uint32_t tp_epoch = 1;
Py_ssize_t tp_open_auto;

static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void free_thread(void *p)
{
    struct tp_thread *t = p;
    free(t->zones);
    free(t);
}

static void make_key(void)
{
    pthread_key_create(&thread_key, free_thread);
}

/* The threading.Thread that is starting on this thread: the `self` of Thread._bootstrap,
 * the outermost frame of every thread that threading starts. A thread's first events
 * come before threading registers it in _active (its bootstrap code runs first). */
static PyObject *starting_thread(PyObject *threading)
{
    PyFrameObject *f = PyEval_GetFrame();
    if (!f)
        return NULL;
    Py_INCREF(f);
    for (PyFrameObject *back; (back = PyFrame_GetBack(f)) != NULL;) {
        Py_DECREF(f);
        f = back;
    }
    PyObject *thread = NULL;
    PyCodeObject *code = PyFrame_GetCode(f);
    PyObject *globals = PyFrame_GetGlobals(f);
    if (globals == PyModule_GetDict(threading) && PyUnicode_CompareWithASCIIString(code->co_name, "_bootstrap") == 0) {
        PyObject *locals = PyFrame_GetLocals(f);
        thread = locals ? PyMapping_GetItemString(locals, "self") : NULL;
        Py_XDECREF(locals);
    }
    Py_XDECREF(globals);
    Py_DECREF(code);
    Py_DECREF(f);
    return thread;
}

/* Names the profiler's thread after its threading.Thread, if it has one: the registered
 * one (threads running when tracing starts), or the one being started. */
static void name_thread(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *modname = PyUnicode_FromString("threading");
    PyObject *mod = modname ? PyImport_GetModule(modname) : NULL;
    Py_XDECREF(modname);
    PyObject *active = mod ? PyObject_GetAttrString(mod, "_active") : NULL;
    PyObject *main = mod ? PyObject_GetAttrString(mod, "_main_thread") : NULL;
    PyObject *ident = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
    PyObject *thread = active && ident && PyDict_Check(active) ? PyDict_GetItemWithError(active, ident) : NULL;
    Py_XINCREF(thread);
    if (!thread && mod && !PyErr_Occurred())
        thread = starting_thread(mod);
    if (thread && thread != main) {
        PyObject *name = PyObject_GetAttrString(thread, "name");
        const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
        if (s)
            ___tracy_set_thread_name(s);
        Py_XDECREF(name);
    }
    Py_XDECREF(thread);
    Py_XDECREF(ident);
    Py_XDECREF(main);
    Py_XDECREF(active);
    Py_XDECREF(mod);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
}

/* Made at the thread's first event, before any of its zones: the name must be known
 * before the profiler first reports the thread, or the server never learns it. */
struct tp_thread *tp_thread_make(void)
{
    pthread_once(&key_once, make_key);
    struct tp_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->epoch = tp_epoch;
    tp_self = t; /* before naming: naming runs Python code, which may come back here */
    pthread_setspecific(thread_key, t);
    name_thread();
    return t;
}

static struct tp_zone *push(struct tp_thread *t)
{
    if (__builtin_expect(t->len == t->cap, 0)) {
        struct tp_zone *z = tcu_grow(NULL, t->zones, &t->cap, (size_t)t->len + 1, sizeof *z);
        if (!z)
            return NULL;
        t->zones = z;
    }
    return &t->zones[t->len++];
}

/* Emits the begin of every pending zone below index upto, oldest first. */
static void flush(struct tp_thread *t, uint32_t upto)
{
    for (uint32_t k = t->flushed; k < upto; k++) {
        struct tp_zone *z = &t->zones[k];
        if (z->state == TP_PENDING) {
            z->ctx = tp_zone_begin_at(z->loc, z->begin);
            z->state = z->ctx.active ? TP_LIVE : TP_OFF;
        }
    }
    if (upto > t->flushed)
        t->flushed = upto;
}

/* Ends entry i, the innermost entry that is not TP_OFF. A pending zone is emitted
 * now, with its own begin time, if it lasted long enough. */
static void finish(struct tp_thread *t, uint32_t i)
{
    struct tp_zone *z = &t->zones[i];
    if (z->state == TP_LIVE) {
        ___tracy_emit_zone_end(z->ctx);
    } else if (z->state == TP_PENDING) {
        int64_t now = ___tracy_get_time();
        if (now - z->begin >= tp_cfg.min_ticks) {
            flush(t, i);
            tp_zone_end_at(tp_zone_begin_at(z->loc, z->begin), now);
        }
    }
    z->state = TP_OFF;
}

static void forget(struct tp_thread *t, const struct tp_zone *z)
{
    if (z->kind == TP_MANUAL)
        return;
    if (z->kind != TP_LINE)
        t->depth--;
    tp_open_auto--;
}

/* Ends and removes every function, C and line entry from index `from` up. Manual
 * entries stay; those above a recorded entry that ends here are suspended. */
static void unwind(struct tp_thread *t, uint32_t from)
{
    uint32_t lowest_open = t->len;
    for (uint32_t k = from; k < t->len; k++) {
        if (t->zones[k].kind != TP_MANUAL && t->zones[k].state != TP_OFF) {
            lowest_open = k;
            break;
        }
    }
    for (uint32_t j = t->len; j-- > from;) {
        struct tp_zone *z = &t->zones[j];
        if (z->state != TP_OFF && (z->kind != TP_MANUAL || j > lowest_open))
            finish(t, j);
    }
    uint32_t w = from;
    for (uint32_t j = from; j < t->len; j++) {
        if (t->zones[j].kind == TP_MANUAL)
            t->zones[w++] = t->zones[j];
        else
            forget(t, &t->zones[j]);
    }
    t->len = w;
    if (t->flushed > w)
        t->flushed = w;
}

void tp_auto_begin(struct tp_thread *t, enum tp_kind kind, const void *owner, const tp_srcloc *loc)
{
    struct tp_zone *z = push(t);
    if (!z)
        return;
    z->kind = (uint8_t)kind;
    z->owner = owner;
    z->loc = loc;
    tp_open_auto++;
    if (kind != TP_LINE)
        t->depth++;
    if (tp_cfg.max_depth && t->depth > tp_cfg.max_depth) {
        z->state = TP_OFF;
    } else if (tp_cfg.min_ticks) {
        z->state = TP_PENDING;
        z->begin = ___tracy_get_time();
    } else {
        z->ctx = ___tracy_emit_zone_begin(loc, 1);
        z->state = z->ctx.active ? TP_LIVE : TP_OFF;
    }
}

int tp_auto_end_top(struct tp_thread *t, enum tp_kind kind, const void *owner)
{
    if (!t->len)
        return 0;
    struct tp_zone *z = &t->zones[t->len - 1];
    if (z->owner != owner || z->kind != kind)
        return 0;
    if (z->state != TP_OFF)
        finish(t, t->len - 1);
    forget(t, z);
    t->len--;
    if (t->flushed > t->len)
        t->flushed = t->len;
    return 1;
}

void tp_auto_end(struct tp_thread *t, enum tp_kind kind, const void *owner)
{
    if (tp_auto_end_top(t, kind, owner))
        return;
    for (uint32_t i = t->len; i-- > 0;) {
        const struct tp_zone *z = &t->zones[i];
        if (z->owner == owner && z->kind == kind) {
            unwind(t, i);
            return;
        }
    }
}

void tp_line(struct tp_thread *t, const void *code, const tp_srcloc *loc)
{
    if (t->len) {
        struct tp_zone *top = &t->zones[t->len - 1];
        if (top->kind == TP_LINE && top->owner == code)
            unwind(t, t->len - 1);
    }
    tp_auto_begin(t, TP_LINE, code, loc);
}

void tp_close_auto(struct tp_thread *t)
{
    unwind(t, 0);
}

void tp_manual_begin(struct tp_thread *t, const void *owner, const tp_srcloc *loc)
{
    flush(t, t->len);
    struct tp_zone *z = push(t);
    if (!z)
        return;
    z->kind = TP_MANUAL;
    z->owner = owner;
    z->loc = loc;
    z->ctx = ___tracy_emit_zone_begin(loc, 1);
    z->state = z->ctx.active ? TP_LIVE : TP_OFF;
}

static int find_manual(const struct tp_thread *t, const void *owner, uint32_t *out)
{
    for (uint32_t i = t->len; i-- > 0;) {
        if (t->zones[i].kind == TP_MANUAL && t->zones[i].owner == owner) {
            *out = i;
            return 1;
        }
    }
    return 0;
}

static const char *zone_label(const tp_srcloc *loc)
{
    return loc->name ? loc->name : loc->function;
}

int tp_manual_end(struct tp_thread *t, const void *owner)
{
    uint32_t m;
    if (!t || !find_manual(t, owner, &m)) {
        PyErr_SetString(PyExc_RuntimeError, "tracer.zone: this zone is not open on this thread");
        return -1;
    }
    const tp_srcloc *loc = t->zones[m].loc;
    if (t->zones[m].state != TP_OFF) {
        for (uint32_t j = m + 1; j < t->len; j++) {
            const struct tp_zone *z = &t->zones[j];
            if (z->kind != TP_LINE && z->state != TP_OFF) {
                PyErr_Format(PyExc_RuntimeError,
                             "tracer.zone: '%s' is not the innermost open zone of this thread ('%s' is open inside it)",
                             zone_label(loc), zone_label(z->loc));
                return -1;
            }
        }
        for (uint32_t j = t->len; j-- > m;)
            if (t->zones[j].state != TP_OFF && (j == m || t->zones[j].kind == TP_LINE))
                finish(t, j);
    }
    uint32_t w = m;
    for (uint32_t j = m + 1; j < t->len; j++) {
        if (t->zones[j].kind == TP_LINE)
            forget(t, &t->zones[j]);
        else
            t->zones[w++] = t->zones[j];
    }
    t->len = w;
    if (t->flushed > w)
        t->flushed = w;
    return 0;
}

int tp_manual_ctx(struct tp_thread *t, const void *owner, TracyCZoneCtx *out)
{
    uint32_t m;
    if (!t || !find_manual(t, owner, &m) || t->zones[m].state != TP_LIVE)
        return -1;
    for (uint32_t j = m + 1; j < t->len; j++)
        if (t->zones[j].state != TP_OFF)
            return -1;
    *out = t->zones[m].ctx;
    return 0;
}

void tp_forget_zones_after_fork(void)
{
    /* Only the forking thread exists in the child. Its entries stay, so that their frames'
     * returns and their `with zone` exits match as before, but off: the child's profiler
     * never began them. */
    struct tp_thread *t = tp_self;
    if (!t)
        return;
    for (uint32_t k = 0; k < t->len; k++)
        t->zones[k].state = TP_OFF;
    t->flushed = t->len;
}
