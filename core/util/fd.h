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
 * moment between its opening and its move, however long its thread is held up there.
 * - The standard numbers 0, 1 and 2, the ones programs close and put back, are held by
 *   stand-ins for that moment when they are free (tcu_fd_guard_begin): the new descriptor
 *   lands at 3 or above, and a program's dup2 onto a held number replaces the stand-in,
 *   which is then left alone. Before this, a thread of the profiler held up between its
 *   open and its move let the program's dup2(saved, 1) replace its file, and it wrote its
 *   file's bytes to the program's stdout. (A program that closes a standard number between
 *   the guard's look and the open is not covered.)
 * - On any other number a program's dup2 in that moment fails (EBUSY) while the open runs,
 *   or replaces the descriptor once it has returned. One that replaces it after the move
 *   has duplicated it is left alone (tcu_fd_lift closes the low number only while it is
 *   still the same file); one before is not told apart. So the profiler opens nothing
 *   periodically, only at start-up and at rare events (a server connecting, a library's
 *   file read the first time, a thread's name asked for); what it reads again and again it
 *   keeps open (native/libdw.c: /proc/self/maps, the libraries' files), or reads once
 *   (client/welcome.c: the number of CPUs).
 * Where RLIMIT_NOFILE is at or below the floor, descriptors stay below it (at 3 or above). */
#ifndef TRACYC_UTIL_FD_H
#define TRACYC_UTIL_FD_H

#include <stdio.h>
#include <sys/stat.h>

#define TCU_FD_FLOOR 256

/* Hold each of 0, 1 and 2 that is free, while the profiler makes a descriptor, so that it
 * lands at 3 or above; the usual way to make one is
 *     tcu_fd_guard_begin();
 *     int fd = tcu_fd_guard_end(socket(...));
 * Begin takes each free standard number with a stand-in: a descriptor on which the
 * program's reads meet the end of a file and its writes fail (EBADF), as on a closed number.
 * The stand-ins stay until the last thread that began has ended, so meanwhile every new
 * descriptor of the process avoids them, the program's included: a program that closed 0
 * and opens a file then finds it at 3 or above. That lasts as long as the making: a
 * library's loading (dlopen), a name's lookup (getaddrinfo), any overlapping thread's. It
 * costs three fcntl calls and a mutex when no standard number is free. End releases the
 * stand-ins the program has left alone (its dup2 onto a held number replaces the stand-in),
 * then lifts fd. A program's dup2 onto a stand-in between end's look at it and its close is
 * not told apart (as in tcu_fd_lift). */
void tcu_fd_guard_begin(void);
int tcu_fd_guard_end(int fd);
/* Sets the guard's fork handlers up now, if no guard has yet: its prepare handler holds its
 * lock across the fork, so a prepare handler that needs the lock free (one waiting for a
 * walk whose descriptors are guarded) must be registered after it, and so run before it. */
void tcu_fd_guard_register_fork(void);

/* Moves fd to the lowest free number >= TCU_FD_FLOOR, close-on-exec, and returns the new
 * number. When no such number can be had (RLIMIT_NOFILE at or below the floor, or none
 * free) a standard fd goes to 3 or above if it can, and any other stays where it is, made
 * close-on-exec. A negative fd is returned as it is. */
int tcu_fd_lift(int fd);
/* open(2) (O_CLOEXEC added), guarded and lifted. */
int tcu_fd_open(const char *path, int flags, int mode);
/* socket(2) (SOCK_CLOEXEC added), guarded and lifted. */
int tcu_fd_socket(int domain, int type);
/* A non-blocking eventfd, guarded and lifted. */
int tcu_fd_eventfd(void);
/* fopen(path, "r"), its descriptor guarded and lifted; NULL with errno set. */
FILE *tcu_fd_fopen_read(const char *path);
/* Runs init(arg) while every free number below the floor is held (the standard ones by the
 * guard, the others by stand-ins of their own; the numbers below are never touched
 * otherwise), so that what init opens lands at or above the floor: for a library that opens
 * descriptors it keeps by number (libunwind's pipe). The numbers are freed again afterwards,
 * except one the program put a descriptor of its own on meanwhile. */
void tcu_fd_run_above_floor(void (*init)(void *), void *arg);

/* Whether accept(2) failed for want of descriptors or memory (err: its errno). The
 * connection then stays waiting and the listening socket readable, so a wait on it returns
 * at once until a descriptor is free: the socket is left out of the waits for
 * TCU_ACCEPT_PAUSE_MS (the client's worker, the capture's collector and proxy). */
int tcu_fd_accept_starved(int err);
#define TCU_ACCEPT_PAUSE_MS 100

#endif
