/* test_child.h - a forked child waited for within a bound, for tests whose child may hang. */
#ifndef TRACYC_TEST_CHILD_H
#define TRACYC_TEST_CHILD_H

#include <sys/types.h>

/* 1 if the child pid ended by itself within wait_s seconds (its status in *status);
 * otherwise it is killed (by pid) and reaped, and 0, saying so on stdout. */
int tt_child_ended(pid_t pid, int *status, int wait_s);

/* 1 once fd (a pipe from a child) has a byte to read or its end, within wait_s seconds;
 * otherwise 0, saying so on stdout. */
int tt_readable_within(int fd, int wait_s);

/* How long a test waits for a case it runs as a program of its own: far more than any case
 * takes, under a sanitizer and load too, and less than ctest's timeout, so a case that hangs
 * fails saying so instead of being killed with its output lost. */
#define TT_PROGRAM_WAIT_S 120

#endif
