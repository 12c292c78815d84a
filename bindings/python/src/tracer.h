/* tracer.h - what the files of the tracer._tracer extension share.
 *
 * Everything here runs with the GIL held, which is what serialises the shared tables;
 * only the per-thread zone stacks (stack.c) are thread-local.
 */
#ifndef TRACER_H
#define TRACER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tracyc.h"

typedef struct ___tracy_source_location_data tp_srcloc;

/* ---- options (config.c) ---------------------------------------------------------- */
struct tp_config {
    int c_calls;        /* zones for calls of C functions */
    int lines;          /* line zones (the CLI allows them with --partial only) */
    uint32_t max_depth; /* function zones deeper than this are not recorded; 0 = no limit */
    int64_t min_ticks;  /* zones shorter than this (profiler ticks) are dropped; 0 = keep all */
};
extern struct tp_config tp_cfg;
/* Bumped whenever the filters change, so cached per-code decisions are redone. */
extern uint32_t tp_filter_gen;
/* 1 when the file (co_filename) passes the include/exclude filters. */
int tp_filter_traced(const char *file);
PyObject *tp_configure(PyObject *self, PyObject *args, PyObject *kwargs);

/* ---- strings and source locations (srcloc.c) --------------------------------------- */
/* A copy of s kept for the life of the process, one per distinct content. NULL on OOM. */
const char *tp_intern(const char *s, size_t len);
/* The same for a str (UTF-8; unencodable characters backslash-escaped). NULL on error
 * (exception cleared). */
const char *tp_intern_str(PyObject *s);
/* The source location with this content, made once and kept forever. Strings must be
 * interned (they are compared by address). Past the budget every new location is the
 * shared fallback, and the first time that happens a warning is printed. */
const tp_srcloc *tp_srcloc_get(const char *name, const char *function, const char *file, uint32_t line, uint32_t color);
extern size_t tp_srcloc_budget;
/* The warning printed when the budget ran out, "" while it has not. */
const char *tp_srcloc_budget_warning(void);

/* ---- per-code and per-C-function lookups (codeinfo.c) ------------------------------- */
struct tp_code {
    const tp_srcloc *loc;
    uint32_t gen; /* tp_filter_gen when `traced` was decided */
    uint8_t traced;
};
int tp_codeinfo_init(void);
/* Attributes code compiled at run time from now on to the file that compiled it. */
int tp_codeinfo_watch_generated(void);
/* The info of a code object, made on first sight. NULL when it cannot be made. */
struct tp_code *tp_code_lookup(PyCodeObject *co);
/* Applies the current filters to the code (and makes its source location if traced). */
int tp_code_refresh(struct tp_code *info);
/* 1 when calls of the code are traced: the filters, applied once per code object. */
static inline int tp_code_traced(struct tp_code *info)
{
    if (__builtin_expect(info->gen == tp_filter_gen, 1))
        return info->traced;
    return tp_code_refresh(info);
}
/* The code object's info when it is traced, else NULL. */
static inline struct tp_code *tp_code_if_traced(PyCodeObject *co)
{
    struct tp_code *info = tp_code_lookup(co);
    return info && tp_code_traced(info) ? info : NULL;
}
/* The source location of one line of a traced code object. */
const tp_srcloc *tp_line_srcloc(PyCodeObject *co, int line);
/* The source location for a call of callable when it is a C function (builtin function,
 * bound builtin method, method descriptor) that is not part of tracer itself, else NULL. */
const tp_srcloc *tp_cfunc_srcloc(PyObject *callable);

/* ---- per-thread zone stacks (stack.c) ---------------------------------------------- */
enum tp_kind { TP_PY, TP_C, TP_LINE, TP_MANUAL };
enum tp_state {
    TP_LIVE,    /* begun in the profiler, to be ended */
    TP_PENDING, /* --min-duration: begin time kept, emitted only if long enough */
    TP_OFF,     /* not recorded (too deep), or a manual zone closed early */
};
struct tp_zone {
    TracyCZoneCtx ctx;
    const void *owner; /* the code object, C callable or zone object that opened it */
    const tp_srcloc *loc;
    int64_t begin; /* TP_PENDING: profiler time of the begin */
    uint8_t kind;
    uint8_t state;
};
struct tp_thread {
    struct tp_zone *zones;
    size_t cap;
    uint32_t len;
    uint32_t depth;   /* open TP_PY and TP_C entries, for --max-depth */
    uint32_t flushed; /* no TP_PENDING entry below this index */
    uint32_t epoch;   /* tp_epoch when this stack was last in step with tracing */
};
/* Incremented whenever tracing starts or stops: a stack from an older epoch holds
 * zones of a finished tracing period, which tp_thread_sync closes. */
extern uint32_t tp_epoch;
/* Function and C zones open on all threads: tracing may stop for good at 0. */
extern Py_ssize_t tp_open_auto;
/* The calling thread's stack, made (and the thread named) on first use. */
struct tp_thread *tp_thread_make(void);
extern _Thread_local struct tp_thread *tp_self;
static inline struct tp_thread *tp_thread_get(void)
{
    struct tp_thread *t = tp_self;
    return __builtin_expect(t != NULL, 1) ? t : tp_thread_make();
}
/* Opens a function, C or line zone (honours --max-depth and --min-duration). */
void tp_auto_begin(struct tp_thread *t, enum tp_kind kind, const void *owner, const tp_srcloc *loc);
/* An exit event: closes the innermost entry of kind and owner and everything above it.
 * Does nothing when there is none (the frame was entered before tracing started). */
void tp_auto_end(struct tp_thread *t, enum tp_kind kind, const void *owner);
/* The common case of tp_auto_end, which needs no lookup of the owner: its entry is on
 * top. Returns 0 (and does nothing) otherwise. */
int tp_auto_end_top(struct tp_thread *t, enum tp_kind kind, const void *owner);
/* In a forked child whose profiler follows it: the calling (forking) thread's open zones
 * are the parent's, and are ended with no event. */
void tp_forget_zones_after_fork(void);
/* A line event in code: closes the line zone code has open and opens loc. */
void tp_line(struct tp_thread *t, const void *code, const tp_srcloc *loc);
/* Closes every function, C and line zone of the thread (tracing stopped). */
void tp_close_auto(struct tp_thread *t);
static inline void tp_thread_sync(struct tp_thread *t)
{
    if (__builtin_expect(t->epoch != tp_epoch, 0)) {
        tp_close_auto(t);
        t->epoch = tp_epoch;
    }
}
/* Manual zones (tracer.zone). End returns 0, or -1 with RuntimeError set. */
void tp_manual_begin(struct tp_thread *t, const void *owner, const tp_srcloc *loc);
int tp_manual_end(struct tp_thread *t, const void *owner);
/* The live context of owner's innermost manual zone on this thread, if it is the
 * innermost live zone of the thread (zone name/text can only go there). */
int tp_manual_ctx(struct tp_thread *t, const void *owner, TracyCZoneCtx *out);

/* ---- zones with earlier timestamps, for --min-duration (zone_at.c) ------------------ */
TracyCZoneCtx tp_zone_begin_at(const tp_srcloc *loc, int64_t time);
void tp_zone_end_at(TracyCZoneCtx ctx, int64_t time);
/* Profiler ticks per nanosecond, measured once (takes ~20 ms the first time). */
double tp_ticks_per_ns(void);

/* ---- the hooks (hook_profile.c on 3.11, hook_monitoring.c on 3.12+) ----------------- */
extern int tp_tracing; /* 1 between tp_hook_start and tp_hook_stop */
int tp_hook_init(PyObject *module);
int tp_hook_start(void);
int tp_hook_stop(void);

/* ---- the module (module.c, api.c, zone_type.c, sample_api.c) ------------------------ */
extern PyObject *tp_module;
extern PyTypeObject tp_ZoneType;
extern PyMethodDef tp_api_methods[];
extern PyMethodDef tp_sample_methods[];
int tp_sample_init(void);
int tp_zone_type_init(PyObject *module);

#endif
