/* test_phase.h - a test's phases, each within a bound. The test says which phase it enters,
 * what that phase waits for and how long it may take; each phase's start and end go to
 * stderr with the time since the first phase began, so the log of a test ctest killed still
 * shows where it was. A watchdog thread ends the test when a phase overruns its limit (or the
 * whole test overruns TT_TEST_LIMIT_S): it says which phase it was, what it waited for and
 * the state the test describes (tt_phase_describe), and ends the process (its threads with
 * it) with status 1 by _exit, so no exit handler (TRACY_NO_EXIT's wait for a server among
 * them) can hang it again. A test shuts the profiler down inside a phase: an exit handler
 * registered before the first phase runs after the watchdog has ended. Not for a forked
 * child, which has no watchdog. */
#ifndef TRACYC_TEST_PHASE_H
#define TRACYC_TEST_PHASE_H

#include <stdio.h>

/* The whole test's bound: well under ctest's TIMEOUT of 300 s, so that the watchdog's report
 * is what the log shows, not ctest's silent kill. */
#define TT_TEST_LIMIT_S 240

/* Enters a phase (ending the one before): `what` says what it waits for, e.g. "joining 8
 * worker threads"; limit_s bounds it (generous: a hang guard, never a timing check). The
 * string must live until the process exits (the watchdog's report names the last phase). */
void tt_phase(const char *what, int limit_s);
/* Ends the current phase, printing how long it took. */
void tt_phase_done(void);
/* What the watchdog prints of the test's state when a phase overruns (progress counters,
 * bytes received...). It runs on the watchdog's thread while the test's threads may hold any
 * lock: it must only read atomics and values that no longer change. */
void tt_phase_describe(void (*describe)(FILE *out, void *user), void *user);

#endif
