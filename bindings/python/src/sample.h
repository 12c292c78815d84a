/* sample.h - the sampling mode: Python stacks of every thread, taken by a signal on the
 * sampled thread itself, with no per-call hook. docs/python.md ("Sampling") says why.
 *
 *   sample_signal.c  per-thread CPU clocks (perf task-clock, else POSIX CPU timers) that
 *                    send SIGURG to their thread; the handler and its slots and rings
 *   sample_walk.c    the handler's walk of the thread's own frame chain (async-signal-safe,
 *                    every pointer checked before it is read)
 *   sample_codes.c   code objects seen in samples: a lock-free table of copies of their
 *                    names and line tables, filled by the handler
 *   sample_drain.c   a thread that finds new threads, empties the rings, turns code offsets
 *                    into lines and sends each sample to the profiler; answers the frames
 *   sample_api.c     start_sampling(), stop_sampling() and friends for the tracer package
 *
 * The handler runs on whichever thread was sampled, holding the GIL or not: it takes no
 * lock, allocates nothing and calls nothing but async-signal-safe system calls.
 */
#ifndef TRACER_SAMPLE_H
#define TRACER_SAMPLE_H

#include "tracer.h"

#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define TP_SAMPLE_DEFAULT_HZ 1000
#define TP_SAMPLE_MAX_HZ 10000
/* Deepest stack a sample keeps (its innermost frames); deeper ones are marked truncated. */
#define TP_SAMPLE_MAX_DEPTH 256

/* ---- code objects (sample_codes.c) ----------------------------------------------- *
 * A copy of what a sample needs from a code object, made by the handler the first time
 * it meets the code object and never freed: the qualified name and file as the str's raw
 * characters (kind 1, 2 or 4 bytes each), and the line table. The copy is found again by
 * the code object's address and checked against its fields, so a new code object at the
 * address of a dead one gets a copy of its own. */
struct tp_code_copy {
    const void *code;                            /* the code object's address (never read through) */
    const void *qualname, *filename, *linetable; /* their addresses, part of the check */
    int32_t firstlineno;
    int32_t ncodeunits;
    uint32_t qualname_len, filename_len, linetable_len; /* characters, characters, bytes */
    uint8_t qualname_kind, filename_kind;
    _Atomic uint32_t function; /* set by the drain thread: the function's id, 0 until then */
    /* qualname characters, filename characters, line table bytes */
    unsigned char data[];
};

/* Reserves the shared memory (once). 0, or -1 when the system refuses it. */
int tp_codes_init(void);
/* Handler side: the copy of the code object at `code`, made now if needed. `code` must
 * have been checked readable for sizeof(PyCodeObject) bytes. NULL when its strings cannot
 * be read or the memory reserved for copies is full. */
const struct tp_code_copy *tp_codes_find(const PyCodeObject *code);
/* A copy from its reference (as samples carry them), NULL when ref is not one. */
const struct tp_code_copy *tp_codes_at(uint32_t ref);
uint32_t tp_codes_ref(const struct tp_code_copy *copy);
/* Copies that could not be made because the reserved memory was full. */
uint64_t tp_codes_refused(void);

/* 1 when [p, p + n) can be read, checked by the kernel (async-signal-safe). */
int tp_readable(const void *p, size_t n);

/* ---- the walk (sample_walk.c) ----------------------------------------------------- */
struct tp_frame_ref {
    uint32_t code;  /* tp_codes_ref */
    int32_t offset; /* byte offset of the instruction being executed, -1 if unknown */
};
enum {
    TP_SAMPLE_GIL_RELEASED = 1, /* the thread was running without the GIL (C code) */
    TP_SAMPLE_TRUNCATED = 2,    /* deeper than TP_SAMPLE_MAX_DEPTH */
    TP_SAMPLE_BROKEN = 4,       /* the chain ended at something that is not a frame */
    TP_SAMPLE_NO_PYTHON = 8,    /* the thread has no Python thread state */
};
/* Walks the calling thread's Python stack, innermost first, into out. Returns the number
 * of frames (0: no Python thread state or no frame) and sets *flags. Async-signal-safe. */
int tp_walk_stack(struct tp_frame_ref *out, int max, unsigned *flags);

/* ---- threads, signals, rings (sample_signal.c) ------------------------------------ */
struct tp_ring;

/* A sampled thread. Slots live in a fixed table the handler indexes; `gen` tells the
 * handler whether a signal still belongs to the slot's current thread. */
struct tp_slot {
    _Atomic uint32_t gen;  /* odd while the slot serves a thread */
    _Atomic uint32_t busy; /* handlers running on this slot */
    pid_t tid;
    int fd;      /* perf event, or -1 */
    void *timer; /* POSIX timer (timer_t), when no perf event */
    int has_timer;
    struct tp_ring *ring;
    uint32_t seen;         /* scan number when the thread was last listed */
    uint32_t native;       /* samples in a row without a Python thread state (drain thread) */
    _Atomic uint64_t lost; /* samples the ring had no room for */
};
#define TP_MAX_SLOTS 4096
extern struct tp_slot tp_slots[TP_MAX_SLOTS];

/* The signal each thread's clock sends it (sample_signal.c says why this one). */
#define TP_SAMPLE_SIGNAL SIGURG

enum tp_clock { TP_CLOCK_PERF, TP_CLOCK_TIMER };
/* Installs the signal handler (once) and records the rate. 0, or -1 with errno. */
int tp_signal_setup(void);
/* The clock used for new threads: perf when the kernel allows it, else POSIX timers
 * (TRACER_SAMPLE_CLOCK=timer forces those). */
enum tp_clock tp_signal_clock(void);
/* Starts sampling thread tid in a free slot at hz: the slot's index, -1 when it cannot
 * (errno). */
int tp_slot_open(pid_t tid, unsigned hz, uint32_t scan);
/* Stops the slot's clock and waits until no handler uses it; frees its ring after the
 * caller has drained it. */
void tp_slot_stop(struct tp_slot *s);
void tp_slot_free(struct tp_slot *s);
/* In a forked child: forget every slot without touching the parent's events. */
void tp_slots_forget(void);
/* Whether our handler is still the one installed for the signal. */
int tp_signal_check(void);
/* Installs our handler again, over one the program installed since (through Python's
 * signal module): that one then gets every signal that is not ours. */
int tp_signal_install(void);
/* Set while the program installs a handler for our signal through Python's signal module
 * (tp_signal_install follows); the drain thread's check waits. */
extern _Atomic int tp_signal_changing;
/* The samples waiting in the slot's ring, oldest first: calls fn for each, then frees the
 * space. */
typedef void (*tp_sample_fn)(struct tp_slot *s, int64_t time, unsigned flags, const struct tp_frame_ref *frames, int n,
                             void *user);
void tp_ring_drain(struct tp_slot *s, tp_sample_fn fn, void *user);
/* Posted (sem_post, async-signal-safe) by the handler when a ring reaches half full, by a
 * new thread and by the stop, so that the drain thread, which otherwise waits long, wakes
 * at once. A semaphore in memory, not a descriptor: nothing the program can close or put
 * a file of its own on. Made when the module loads, made anew in a forked child. */
extern sem_t tp_sampler_wake;
/* Handlers take samples only while this is set. */
extern _Atomic int tp_sampling_on;

/* ---- the drain thread (sample_drain.c) -------------------------------------------- */
/* Starts sampling every thread at hz. hide_below, hide_frame (sequences of file names, or
 * NULL): frames of the first files are left out with every frame below them (tracer's
 * launcher), frames of the second alone (tracer's frame in every thread). 0, or -1 with a
 * Python exception. */
int tp_sampling_start(unsigned hz, PyObject *hide_below, PyObject *hide_frame);
/* Stops: every clock off, every ring sent to the profiler. */
void tp_sampling_stop(void);
unsigned tp_sampling_hz(void);
/* A thread has started (threading names it first thing): the sampler's thread looks at the
 * threads now rather than at its next pass, which may be up to a second away. */
void tp_sampling_wake(void);
/* What sampling has done so far, for the Python side. */
struct tp_sampling_stats {
    uint64_t samples, lost, threads, gil_released, truncated, broken, refused;
    const char *clock;
    int signal_taken; /* stopped: the program's own handler took our signal */
    int64_t cpu_ns;   /* CPU time of the sampler's own thread */
};
void tp_sampling_stats(struct tp_sampling_stats *out);
/* Makes tp_sampler_wake (when the module loads). 0, or -1 with errno. */
int tp_sampling_init(void);
/* In a forked child: sampling is off, and nothing of the parent's remains running. */
void tp_sampling_forget_after_fork(void);

/* Line number of the instruction at byte offset in a 3.11+ location table (-1: none). */
int tp_linetable_line(const unsigned char *table, size_t len, int firstlineno, int offset);

#endif
