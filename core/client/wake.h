/* wake.h - waking the worker thread from its wait, with no system call on any path that
 * runs per event: producers signal only rare events (a stream taking a new chunk, answers
 * being ready), and make a system call only when the worker is waiting. */
#ifndef TRACYC_CLIENT_WAKE_H
#define TRACYC_CLIENT_WAKE_H

/* The descriptor the worker polls (an eventfd), made at the first call; -1 when the system
 * gives none (the worker then wakes on its timeouts only). */
int tc_wake_fd(void);
/* The worker is about to wait: 1 when it may (nothing was signalled since its last wait),
 * 0 when something was. Either way tc_wake_wait_end follows, after the wait if any. */
int tc_wake_wait_begin(void);
void tc_wake_wait_end(void);
/* Signals work to the worker: wakes it if it waits, else makes its next wait return at
 * once. An atomic load (and, the first time since the worker's last wait, a store) when the
 * worker is not waiting; an eventfd write when it is. */
void tc_wake_worker(void);
/* Wakes the worker whatever it is doing: for stopping, and requests that must not wait. */
void tc_wake_worker_now(void);
/* After fork: the parent's descriptor goes; a child that profiles makes its own. */
void tc_wake_forget_after_fork(void);

#endif
