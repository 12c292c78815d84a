/* exit_signal.c - see exit_signal.h. The handler does only what is safe in a signal
 * handler: it records the signal, wakes the worker (an atomic and an eventfd write), and
 * sleeps until the worker has run the shutdown and written the capture; then the signal,
 * whose action SA_RESETHAND made the default again, is raised and ends the program.
 *
 * A second signal meanwhile ends it at once: the handler unblocks its own signal, and
 * the program's other threads, not tracyc's (util/threads.c blocks every signal in those),
 * take any other. The handler does not wait when a shutdown is already under way, as it may
 * have interrupted the very thread running it (exit's write), nor in a forked child, which
 * does not own the capture. */
#include "client/exit_signal.h"

#include "client/state.h"
#include "client/wake.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static const int exit_signals[] = {SIGINT, SIGTERM, SIGHUP};
static _Atomic pid_t owner;
static _Atomic int caught, done;

static void on_exit_signal(int sig)
{
    int saved_errno = errno;
    sigset_t own;
    sigemptyset(&own);
    sigaddset(&own, sig);
    pthread_sigmask(SIG_UNBLOCK, &own, NULL);
    int expected = 0;
    if (getpid() == atomic_load(&owner) && atomic_load(&tc_prof.state) == TC_STATE_RUNNING &&
        atomic_compare_exchange_strong(&caught, &expected, sig)) {
        tc_wake_worker();
        while (!atomic_load(&done))
            nanosleep(&(struct timespec){0, 1000000L}, NULL);
    }
    raise(sig);
    errno = saved_errno;
}

void tc_exit_signals_catch(void)
{
    pid_t none = 0;
    if (!atomic_compare_exchange_strong(&owner, &none, getpid()))
        return;
    for (size_t i = 0; i < sizeof exit_signals / sizeof exit_signals[0]; i++) {
        struct sigaction now;
        if (sigaction(exit_signals[i], NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL)
            continue; /* the program's own handler (or SIG_IGN) stays */
        struct sigaction ours = {.sa_handler = on_exit_signal, .sa_flags = SA_RESETHAND | SA_RESTART};
        sigemptyset(&ours.sa_mask);
        sigaction(exit_signals[i], &ours, NULL);
    }
}

int tc_exit_signal_caught(void)
{
    return atomic_load(&caught);
}

void tc_exit_signal_done(void)
{
    atomic_store(&done, 1);
}
