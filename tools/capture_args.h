/* capture_args.h - tracyc-capture's command line: what to record, where to write it. */
#ifndef TRACYC_TOOLS_CAPTURE_ARGS_H
#define TRACYC_TOOLS_CAPTURE_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/export.h"

#define CAPTURE_MAX_TARGETS 64
#define CAPTURE_MAX_OUTPUTS 16
#define CAPTURE_SCAN_FIRST 8086 /* the ports Tracy clients take, 8086 first and the next 19 */
#define CAPTURE_SCAN_LAST 8105

enum { EXIT_COMPLETE = 0, EXIT_INCOMPLETE = 1, EXIT_ERROR = 2 };

/* A client's address from -a: HOST, HOST:PORT, [V6]:PORT. */
struct capture_target {
    char host[256];
    uint16_t port; /* 0: -p's (or 8086) */
};

struct args {
    struct capture_target targets[CAPTURE_MAX_TARGETS];
    size_t target_count;
    uint16_t port;  /* -p: the port of targets that name none */
    int port_given; /* -p was given */
    pid_t pid;      /* --pid: record this process, 0: whoever holds the port */
    const char *outputs[CAPTURE_MAX_OUTPUTS];
    size_t output_count;
    int overwrite;
    double seconds;
    uint32_t protocol;     /* 0: each version, newest first */
    int listen;            /* --listen was given */
    char listen_host[256]; /* "" loopback */
    uint16_t listen_port;
    int all;                        /* --all: scan the ports Tracy clients take */
    uint16_t scan_first, scan_last; /* --ports (default 8086-8105) */
    long expect;                    /* --expect N, 0 none */
    int serve;                      /* --serve: show the processes to one Tracy server */
    char serve_host[256];           /* "" loopback */
    uint16_t serve_port;
    struct tct_export_options csv;
};

/* Parses argv into a (exits 0 after --help). 0, or -1 after saying why on stderr. */
int capture_args_parse(int argc, char **argv, struct args *a);

/* Whether this is a capture of one client at one address, as tracy-capture makes: no
 * --listen, no --all, no --expect, no --serve, at most one -a. */
int capture_args_single(const struct args *a);

/* Refuses a format it cannot write, an existing file without -f, and an unwritable path,
 * before capturing: 0, or -1 after saying why on stderr. */
int capture_args_check_outputs(const struct args *a);

#endif
