/* exit_signal.h - the in-process capture is written when the program is ended by
 * SIGINT, SIGTERM or SIGHUP it left at their default action (Ctrl-C, kill), and the
 * program still ends by that signal. */
#ifndef TRACYC_CLIENT_EXIT_SIGNAL_H
#define TRACYC_CLIENT_EXIT_SIGNAL_H

/* Catches those of the three signals whose action is the default, once per process (the
 * in-process capture has opened). A handler the program sets later replaces ours. */
void tc_exit_signals_catch(void);
/* The signal that asked the worker to write the capture, or 0. */
int tc_exit_signal_caught(void);
/* The shutdown is over: a signal caught meanwhile now ends the program, by its default
 * action. Returns when none was caught. */
void tc_exit_signal_finish(void);

#endif
