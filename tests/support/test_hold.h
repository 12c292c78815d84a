/* test_hold.h - a call held in place, for tests that make a moment rather than wait for it:
 * a function the test program exports in libc's place calls tt_hold_pass first. */
#ifndef TRACYC_TEST_HOLD_H
#define TRACYC_TEST_HOLD_H

#include <stdatomic.h>

/* Armed by the test, taken by the first call on the named thread (any thread when NULL),
 * released by the test. */
struct tt_hold {
    const char *thread;
    atomic_int armed, held, released;
};

/* Holds the calling thread here until h is released, if this call takes h; returns at once
 * otherwise. Safe before main (AddressSanitizer's shadow may not be set up yet). */
void tt_hold_pass(struct tt_hold *h);

/* Arms h anew: the next call that is its to take is held. */
void tt_hold_arm(struct tt_hold *h);

/* Disarms h and lets a held call go on. */
void tt_hold_release(struct tt_hold *h);

#endif
