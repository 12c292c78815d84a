/* procinfo.h - what /proc says about the processes tracyc-capture may record: which TCP
 * ports a process listens on, the Tracy port it asked for, its name, its siblings.
 *
 * Linux only; reading another user's process needs the rights ptrace would (root, or
 * the same user).
 */
#ifndef TRACYC_TOOLS_PROCINFO_H
#define TRACYC_TOOLS_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The TCP ports process pid listens on (/proc/PID/fd against /proc/PID/net/tcp and tcp6),
 * ascending, at most cap of them. Returns their count, or -1 with errno set (ESRCH: no
 * such process, EACCES: not ours to read). */
int procinfo_listening_ports(pid_t pid, uint16_t *ports, int cap);

/* The port a Tracy client in process pid tries first: its TRACY_PORT (from
 * /proc/PID/environ, as it started) when that is a port number, else 8086. */
uint16_t procinfo_tracy_port(pid_t pid);

/* The processes whose parent is ppid, at most cap of them; their count. */
int procinfo_children(pid_t ppid, pid_t *out, int cap);

/* The parent of pid, or -1 (no such process). */
pid_t procinfo_parent(pid_t pid);

/* 1 while process pid runs (exists and is no zombie), else 0. */
int procinfo_running(pid_t pid);

/* The command name of pid (/proc/PID/comm, at most 15 bytes) into buf; "?" when unknown. */
const char *procinfo_name(pid_t pid, char *buf, size_t cap);

#endif
