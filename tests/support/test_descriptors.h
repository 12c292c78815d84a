/* test_descriptors.h - what this process's open descriptors are on. */
#ifndef TRACYC_TEST_DESCRIPTORS_H
#define TRACYC_TEST_DESCRIPTORS_H

/* How many of this process's descriptors link to target (as /proc/self/fd shows it: a
 * path, or "anon_inode:[perf_event]"). */
int tt_descriptors_on(const char *target);

#endif
