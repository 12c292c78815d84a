/* exit_signal.c - see exit_signal.h. The handler does only what is safe in a signal
 * handler and returns at once: it records the signal and wakes the worker (an atomic and
 * an eventfd write). The interrupted thread goes on, so whatever lock it held is released
 * as usual, while the worker runs the shutdown the exit would have run and writes the
 * capture; then it raises the signal again with its default action, which ends the program
 * (tracyc's own threads block every asynchronous signal: util/threads.c). The program goes
 * on for as long as that takes; a second signal meanwhile (SA_RESETHAND made the action the
 * default again) ends it at once.
 *
 * Not caught: in a forked child, which does not own the capture, and once a shutdown is
 * under way (the exit's): the default action then, at once. */
#include "client/exit_signal.h"

#include "client/state.h"
#include "client/wake.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static const int exit_signals[] = {SIGINT, SIGTERM, SIGHUP};
static _Atomic pid_t owner;
static _Atomic int caught;

static void end_by(int sig)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    kill(getpid(), sig);
}

static void on_exit_signal(int sig)
{
    int saved_errno = errno;
    int expected = 0;
    if (getpid() != atomic_load(&owner) || atomic_load(&tc_prof.state) != TC_STATE_RUNNING)
        end_by(sig); /* delivered once this handler returns */
    else if (atomic_compare_exchange_strong(&caught, &expected, sig))
        tc_wake_worker();
    /* else: a program's handler chained to this one again; the worker is on it */
    errno = saved_errno;
}

void tc_exit_signals_catch(void)
{
    pid_t none = 0;
    if (!atomic_compare_exchange_strong(&owner, &none, getpid()))
        return;
    struct sigaction ours = {.sa_handler = on_exit_signal, .sa_flags = SA_RESETHAND | SA_RESTART};
    sigemptyset(&ours.sa_mask);
    for (size_t i = 0; i < sizeof exit_signals / sizeof exit_signals[0]; i++) {
        struct sigaction before;
        /* Set, then put back what was there unless it was the default: a handler the
         * program set, even a moment ago on another thread, stays (and so does SIG_IGN). */
        if (sigaction(exit_signals[i], &ours, &before) == 0 &&
            ((before.sa_flags & SA_SIGINFO) || before.sa_handler != SIG_DFL))
            sigaction(exit_signals[i], &before, NULL);
    }
}

int tc_exit_signal_caught(void)
{
    return atomic_load(&caught);
}

void tc_exit_signal_finish(void)
{
    int sig = atomic_load(&caught);
    if (sig)
        end_by(sig);
}
