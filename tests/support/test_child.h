/* test_child.h - a forked child waited for within a bound, for tests whose child may hang. */
#ifndef TRACYC_TEST_CHILD_H
#define TRACYC_TEST_CHILD_H

#include <sys/types.h>

/* 1 if the child pid ended by itself within wait_s seconds (its status in *status);
 * otherwise it is killed (by pid) and reaped, and 0, saying so on stdout. */
int tt_child_ended(pid_t pid, int *status, int wait_s);

#endif
