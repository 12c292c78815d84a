/* worker.h - the background thread that drains every buffer into the connections. */
#ifndef TRACYC_CLIENT_WORKER_H
#define TRACYC_CLIENT_WORKER_H

int tc_worker_start(void);
/* Flushes everything to the connections (waiting for a server first with
 * TRACY_NO_EXIT=1), ends them, writes the in-process capture, joins the thread. */
void tc_worker_stop(void);
/* In a forked child: drop the parent's sockets without touching them. */
void tc_worker_forget_after_fork(void);
/* Asks the worker to start the in-process capture. 0, or -1 with the error set. */
int tc_worker_capture_start(const char *path);
/* The in-process capture (running or asked for) records the program's children: a socket
 * on 127.0.0.1 they dial (TRACYC_CONNECT set in the environment). 0 turns it off for
 * children started later. 0, or -1 with the error set. */
int tc_worker_collect_children(int on);

#endif
