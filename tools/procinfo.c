/* procinfo.c - see procinfo.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACY_DEFAULT_PORT 8086
#define TCP_LISTEN 0x0A /* the state column of /proc/net/tcp */

/* The inodes of the sockets process pid holds (malloc'd into *out); their count, or -1. */
static int socket_inodes(pid_t pid, unsigned long **out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) {
        if (errno == ENOENT)
            errno = ESRCH;
        return -1;
    }
    unsigned long *inodes = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[64];
        ssize_t len = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
        unsigned long inode;
        if (len <= 0)
            continue;
        link[len] = '\0';
        if (sscanf(link, "socket:[%lu]", &inode) != 1)
            continue;
        if (n == cap) {
            unsigned long *grown = realloc(inodes, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *inodes);
            if (!grown)
                break;
            inodes = grown;
        }
        inodes[n++] = inode;
    }
    closedir(d);
    *out = inodes;
    return n;
}

static int compare_ports(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

int procinfo_listening_ports(pid_t pid, uint16_t *ports, int cap)
{
    unsigned long *inodes = NULL;
    int ninodes = socket_inodes(pid, &inodes);
    if (ninodes < 0)
        return -1;
    int count = 0;
    static const char *const tables[] = {"tcp", "tcp6"};
    for (size_t t = 0; t < 2; t++) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid, tables[t]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            unsigned port, state;
            unsigned long inode;
            /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
            if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %*u %*u %lu", &port,
                       &state, &inode) != 3 ||
                state != TCP_LISTEN)
                continue;
            int held = 0, known = 0;
            for (int i = 0; i < ninodes && !held; i++)
                held = inodes[i] == inode;
            for (int i = 0; i < count && !known; i++)
                known = ports[i] == port;
            if (held && !known && count < cap)
                ports[count++] = (uint16_t)port;
        }
        fclose(f);
    }
    free(inodes);
    qsort(ports, (size_t)count, sizeof *ports, compare_ports);
    return count;
}

uint16_t procinfo_tracy_port(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return TRACY_DEFAULT_PORT;
    static const char name[] = "TRACY_PORT=";
    char var[256];
    size_t len = 0;
    long port = 0;
    for (int c; (c = getc(f)) != EOF;) {
        if (c != '\0') {
            if (len < sizeof var - 1)
                var[len++] = (char)c;
            continue;
        }
        var[len] = '\0';
        len = 0;
        if (strncmp(var, name, sizeof name - 1) == 0) {
            char *end;
            port = strtol(var + sizeof name - 1, &end, 10);
            if (*end || port < 1 || port > 65535)
                port = 0;
        }
    }
    fclose(f);
    return port ? (uint16_t)port : TRACY_DEFAULT_PORT;
}

/* The state letter and parent of pid from /proc/PID/stat; -1 when it is gone. */
static int read_stat(pid_t pid, char *state, pid_t *parent)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* pid (comm) state ppid ...: comm may hold spaces and parentheses; it ends at the last ')'. */
    const char *after = strrchr(line, ')');
    int ppid;
    if (!after || sscanf(after + 1, " %c %d", state, &ppid) != 2)
        return -1;
    *parent = (pid_t)ppid;
    return 0;
}

pid_t procinfo_parent(pid_t pid)
{
    char state;
    pid_t parent;
    return read_stat(pid, &state, &parent) == 0 ? parent : -1;
}

int procinfo_running(pid_t pid)
{
    char state;
    pid_t parent;
    return read_stat(pid, &state, &parent) == 0 && state != 'Z' && state != 'X';
}

int procinfo_children(pid_t ppid, pid_t *out, int cap)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (procinfo_parent((pid_t)pid) == ppid)
            out[n++] = (pid_t)pid;
    }
    closedir(d);
    return n;
}

const char *procinfo_name(pid_t pid, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, (int)cap, f))
        snprintf(buf, cap, "?");
    if (f)
        fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}
