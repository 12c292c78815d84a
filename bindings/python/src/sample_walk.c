/* sample_walk.c - the signal handler's walk of its own thread's Python frames.
 *
 * The thread was stopped at an arbitrary instruction, perhaps in the middle of linking a
 * frame: on 3.11 and 3.12 the interpreter points the thread at a fresh C frame record
 * before it fills in that record's current frame, so the first pointer may be stack
 * garbage for a few instructions, and any pointer followed from there may be anything.
 * So nothing is read that the kernel has not said is readable (tp_readable, once per page
 * and sample); a code object must be of the code type; the frames the thread owns must lie
 * in the live part of its data-stack chunks and be met in data-stack order (in_order);
 * generator frames (in the heap) and 3.12's entry frames (on the C stack) only need to be
 * readable. A sample whose chain fails any of this is marked TP_SAMPLE_BROKEN (and
 * dropped).
 *
 * The internal headers used here are those of the CPython the extension is built for.
 */
#include "sample.h"

#define Py_BUILD_CORE 1
#include "internal/pycore_code.h"
#include "internal/pycore_frame.h"

#if PY_VERSION_HEX >= 0x030C0000
#define FRAME_WORDS(co) ((co)->co_framesize)
#else
#define FRAME_WORDS(co) ((co)->co_nlocalsplus + (co)->co_stacksize + (int)FRAME_SPECIALS_SIZE)
#endif
#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE(f) ((f)->f_executable)
#define FRAME_INSTR(f) ((f)->instr_ptr)
#else
#define FRAME_CODE(f) ((PyObject *)(f)->f_code)
#define FRAME_INSTR(f) ((f)->prev_instr)
#endif
#if PY_VERSION_HEX >= 0x030C0000
#define IS_CSTACK_FRAME(owner) ((owner) == FRAME_OWNED_BY_CSTACK)
#else
#define IS_CSTACK_FRAME(owner) 0
#endif

#define MAX_CHUNKS 32
#define MAX_CHUNK_SIZE ((size_t)1 << 30)
#define FRAME_HEAD offsetof(_PyInterpreterFrame, localsplus)

struct span {
    uintptr_t lo, hi;
};

/* Pages found readable during this sample: frames of one chunk, and the code objects of a
 * recursion, share a few, so most reads cost no system call. */
struct pages {
    uintptr_t page[16];
    unsigned next;
};

static int page_known(const struct pages *pg, uintptr_t page)
{
    for (unsigned i = 0; i < 16; i++)
        if (pg->page[i] == page)
            return 1;
    return 0;
}

/* tp_readable, remembering the pages it checked. */
static int readable(struct pages *pg, const void *p, size_t n)
{
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)4095, last = ((uintptr_t)p + n - 1) & ~(uintptr_t)4095;
    if (last < first || first < 65536) /* never mapped; also what an empty entry holds */
        return 0;
    if (page_known(pg, first) && page_known(pg, last))
        return 1;
    if (!tp_readable(p, n))
        return 0;
    pg->page[pg->next++ & 15] = first;
    if (last != first)
        pg->page[pg->next++ & 15] = last;
    return 1;
}

/* The live part of each data-stack chunk of the thread: [first slot, top). */
static int live_chunks(struct pages *pg, const PyThreadState *ts, struct span *out)
{
    const _PyStackChunk *c = ts->datastack_chunk;
    uintptr_t top = (uintptr_t)ts->datastack_top;
    int n = 0;
    for (; c && n < MAX_CHUNKS; c = c->previous) {
        if (!readable(pg, c, sizeof *c) || c->size < sizeof *c || c->size > MAX_CHUNK_SIZE)
            break;
        uintptr_t lo = (uintptr_t)c->data, end = (uintptr_t)c + c->size;
        uintptr_t hi = n == 0 ? top : (uintptr_t)&c->data[c->top];
        if (hi < lo || hi > end)
            hi = n == 0 ? lo : end; /* a top being moved: trust nothing of this chunk */
        out[n++] = (struct span){lo, hi};
    }
    return n;
}

/* The chunk (0: the newest) whose live part holds the frame's head, -1 if none. */
static int live_chunk_of(const struct span *chunks, int n, const void *frame)
{
    uintptr_t p = (uintptr_t)frame;
    for (int i = 0; i < n; i++)
        if (p >= chunks[i].lo && p + FRAME_HEAD <= chunks[i].hi)
            return i;
    return -1;
}

/* Frames the thread owns are pushed and popped on its data stack like a stack: from the
 * newest, the chain must meet them top down, each one below the one before. The first
 * may end below the top, not above it: a frame being initialised before it is linked, or
 * cleared after it was unlinked, can be above it (in a chunk of its own, even). */
struct order {
    const struct span *chunks;
    uintptr_t below; /* the last owned frame met: the next must end at or below it */
    int chunk;       /* its chunk (0: the newest), -1 before the first */
};

static int in_order(struct order *o, int chunk, const _PyInterpreterFrame *f, const PyCodeObject *co)
{
    uintptr_t start = (uintptr_t)f, end = (uintptr_t)((PyObject *const *)f + FRAME_WORDS(co));
    if (chunk < 0 || end < start || end > o->chunks[chunk].hi)
        return 0;
    if (o->chunk >= 0 && (chunk < o->chunk || (chunk == o->chunk && end > o->below)))
        return 0;
    o->below = start;
    o->chunk = chunk;
    return 1;
}

static int code_ok(struct pages *pg, const PyObject *code)
{
    return code && readable(pg, code, sizeof(PyCodeObject)) && Py_TYPE(code) == &PyCode_Type;
}

/* The thread state of the calling thread and whether it holds the GIL. */
static PyThreadState *this_thread(int *attached)
{
    PyThreadState *mine = PyGILState_GetThisThreadState();
#if PY_VERSION_HEX >= 0x030D0000
    PyThreadState *current = PyThreadState_GetUnchecked(); /* this thread's, while attached */
#else
    PyThreadState *current = _PyThreadState_UncheckedGet(); /* 3.12: this thread's; 3.11: the GIL holder */
#endif
#if PY_VERSION_HEX >= 0x030C0000
    *attached = current != NULL;
    return current ? current : mine;
#else
    *attached = current != NULL && current == mine;
    return mine;
#endif
}

int tp_walk_stack(struct tp_frame_ref *out, int max, unsigned *flags)
{
    *flags = 0;
    int attached;
    PyThreadState *ts = this_thread(&attached);
    if (!ts || !tp_readable(ts, sizeof *ts)) {
        *flags |= TP_SAMPLE_NO_PYTHON;
        return 0;
    }
    if (!attached)
        *flags |= TP_SAMPLE_GIL_RELEASED;
    struct pages pages = {{0}, 0};
    struct span chunks[MAX_CHUNKS];
    int nchunks = live_chunks(&pages, ts, chunks);
#if PY_VERSION_HEX >= 0x030D0000
    const _PyInterpreterFrame *f = ts->current_frame;
#else
    const _PyCFrame *cf = ts->cframe;
    if (!readable(&pages, cf, sizeof *cf)) {
        *flags |= TP_SAMPLE_BROKEN;
        return 0;
    }
    const _PyInterpreterFrame *f = cf->current_frame;
#endif
    struct order order = {chunks, 0, -1};
    int n = 0;
    for (int steps = 0; f; steps++) {
        if (n == max || steps == 4 * TP_SAMPLE_MAX_DEPTH) {
            *flags |= TP_SAMPLE_TRUNCATED;
            break;
        }
        int chunk = live_chunk_of(chunks, nchunks, f);
        if (!readable(&pages, f, FRAME_HEAD)) {
            *flags |= TP_SAMPLE_BROKEN;
            break;
        }
        const _PyInterpreterFrame *next = f->previous;
        char owner = f->owner;
        if (IS_CSTACK_FRAME(owner)) { /* the interpreter's entry marker, no function of the program */
            f = next;
            continue;
        }
        const PyObject *code = FRAME_CODE(f);
        if (!code_ok(&pages, code)) {
            *flags |= TP_SAMPLE_BROKEN;
            break;
        }
        const PyCodeObject *co = (const PyCodeObject *)code;
        if (owner == FRAME_OWNED_BY_THREAD && !in_order(&order, chunk, f, co)) {
            *flags |= TP_SAMPLE_BROKEN;
            break;
        }
        const _Py_CODEUNIT *start = (const _Py_CODEUNIT *)co->co_code_adaptive, *instr = FRAME_INSTR(f);
        if (owner != FRAME_OWNED_BY_GENERATOR && instr < start + co->_co_firsttraceable) {
            f = next; /* not started yet: not a frame to show (as tracebacks skip it) */
            continue;
        }
        long units = instr - start;
        const struct tp_code_copy *copy = tp_codes_find(co);
        out[n].code = tp_codes_ref(copy);
        out[n].offset = units >= -1 && units < Py_SIZE(co) ? (int32_t)(units * 2) : -1;
        n++;
        f = next;
    }
    return n;
}
