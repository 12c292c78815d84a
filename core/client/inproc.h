/* inproc.h - the in-process capture: a transport that hands the client's frames to the
 * decoder in the same process, builds the trace model, and writes it out at the end. */
#ifndef TRACYC_CLIENT_INPROC_H
#define TRACYC_CLIENT_INPROC_H

#include "client/conn.h"

#include <poll.h>
#include <stddef.h>

struct tc_inproc;

/* 0 when path ("-": stdout) names a format the capture writes and can be written there
 * now (tct_export_check_path: a file is created beside it and removed), else -1 with the
 * reason in err. Leaves nothing behind. */
int tc_inproc_check_path(const char *path, char *err, size_t errlen);

/* path made absolute against the current directory, so that a program that changes
 * directory later still gets its file where it asked for it ("-" stays). malloc'd; NULL
 * when out of memory. */
char *tc_inproc_absolute_path(const char *path);

/* Checks that path can be written, then prepares decoder and model. NULL on error
 * (message in err). */
struct tc_inproc *tc_inproc_open(const char *path, char *err, size_t errlen);
struct tc_transport *tc_inproc_transport(struct tc_inproc *ip);
/* The program's children go into this capture too: a collector of their connections
 * (capture/collector.h), whose clients become sources of the trace, on the program's
 * clock. 0, or -1 when out of memory. */
int tc_inproc_collect(struct tc_inproc *ip);
/* Whether children can be taken: collecting, and the program's clock known (its first
 * reading of the clock extension has come), so that no child's clock becomes the trace's. */
int tc_inproc_takes_children(const struct tc_inproc *ip);
/* A child's connection, accepted by the worker: the capture owns fd from now. */
void tc_inproc_adopt(struct tc_inproc *ip, int fd);
/* Does what the children's connections allow, waiting at most timeout_ms; returns how many
 * are still live. */
int tc_inproc_step(struct tc_inproc *ip, int timeout_ms);
/* The same, also waiting on the caller's descriptors (fds[i].revents filled in), so that
 * one wait serves the worker and the children's connections. */
int tc_inproc_step_with(struct tc_inproc *ip, int timeout_ms, struct pollfd *fds, size_t n);
/* Writes the output file and frees everything. 0, or -1 (message on stderr) when the
 * file could not be written or the capture failed (the file then says why). */
int tc_inproc_finish(struct tc_inproc *ip);

#endif
