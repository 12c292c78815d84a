/* fd.h - the profiler's file descriptors, kept out of the program's way.
 *
 * A program may close a descriptor and put another in its place: close(1), then later
 * dup2(saved, 1) (CPython's subprocess and its tests do it with 0, 1 and 2). The kernel
 * gives every new descriptor the lowest free number, so a descriptor the profiler opened
 * meanwhile on another thread would take that number: the program's dup2 then fails
 * (EBUSY) or silently replaces it, and the profiler's later close() closes the program's
 * descriptor. So every descriptor the profiler keeps is moved, as soon as it is opened,
 * to the lowest free number at or above TCU_FD_FLOOR, close-on-exec (and libraries that
 * keep descriptors by number open them with the low numbers taken: tcu_fd_run_above_floor).
 * The kernel offers no way to open at a chosen number, so a descriptor is low for the
 * moment between its opening and its move: a program's dup2 onto the number then fails
 * (EBUSY) or replaces it. One that replaces it after the move has duplicated it is left
 * alone (tcu_fd_lift closes the low number only while it is still the same file); one
 * before is not told apart. So the profiler opens nothing periodically, only at start-up
 * and at rare events (a server connecting, a library's file read the first time, a
 * thread's name asked for); what it reads again and again it keeps open (native/libdw.c:
 * /proc/self/maps, the libraries' files). */
#ifndef TRACYC_UTIL_FD_H
#define TRACYC_UTIL_FD_H

#include <stdio.h>

#define TCU_FD_FLOOR 256

/* Moves fd to the lowest free number >= TCU_FD_FLOOR, close-on-exec, and returns the new
 * number. When no such number can be had (RLIMIT_NOFILE at or below the floor, or none
 * free) fd stays where it is, made close-on-exec. A negative fd is returned as it is. */
int tcu_fd_lift(int fd);
/* open(2) (O_CLOEXEC added), lifted. */
int tcu_fd_open(const char *path, int flags, int mode);
/* fopen(path, "r"), its descriptor lifted; NULL with errno set. */
FILE *tcu_fd_fopen_read(const char *path);
/* Runs init(arg) while every free number below the floor is taken (the numbers below are
 * never touched otherwise), so that what init opens lands at or above the floor: for a
 * library that opens descriptors it keeps by number (libunwind's pipe). The numbers are
 * freed again afterwards, except one the program put a descriptor of its own on meanwhile. */
void tcu_fd_run_above_floor(void (*init)(void *), void *arg);

/* Whether accept(2) failed for want of descriptors or memory (err: its errno). The
 * connection then stays waiting and the listening socket readable, so a wait on it returns
 * at once until a descriptor is free: the socket is left out of the waits for
 * TCU_ACCEPT_PAUSE_MS (the client's worker, the capture's collector and proxy). */
int tcu_fd_accept_starved(int err);
#define TCU_ACCEPT_PAUSE_MS 100

#endif
