/* tempfile.h - a temporary file that leaves nothing behind. */
#ifndef TRACYC_UTIL_TEMPFILE_H
#define TRACYC_UTIL_TEMPFILE_H

/* A new file in $TMPDIR (else /tmp), already unlinked, so it goes when its descriptor is
 * closed or the process ends, however it ends. The descriptor is close-on-exec, at
 * TCU_FD_FLOOR or above (util/fd.h: the in-process capture's files are the profiler's), or
 * where that cannot be, at least not one of 0-2 (a program may close one for a moment and
 * reuse its number): with no other number free, -1 (EMFILE). Returns it, or -1 with errno
 * set. */
int tcu_tempfile(void);
/* The directory it is made in. */
const char *tcu_tempfile_dir(void);

#endif
