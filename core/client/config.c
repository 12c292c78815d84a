/* config.c - see config.h. */
#include "client/config.h"

#include "client/inproc.h"
#include "client/sampling.h"
#include "util/fd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int env_true(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '1';
}

/* A whole decimal number, nothing before or after it but its optional suffix. */
static int parse_unsigned(const char *text, unsigned long long *out, const char **suffix)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    *out = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -1;
    *suffix = end;
    return 0;
}

int tc_config_parse_port(const char *text, uint16_t *out)
{
    unsigned long long v;
    const char *rest;
    if (parse_unsigned(text, &v, &rest) != 0 || *rest || v > 65535)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

int tc_config_parse_size(const char *text, size_t *out)
{
    unsigned long long v;
    const char *rest;
    if (parse_unsigned(text, &v, &rest) != 0)
        return -1;
    int shift = 0;
    if (*rest) {
        const char *units = "KMG";
        const char *unit = strchr(units, *rest >= 'a' ? *rest - 'a' + 'A' : *rest);
        if (!unit || rest[1])
            return -1;
        shift = 10 * (int)(unit - units + 1);
    }
    if (v == 0 || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int tc_config_parse_rate(const char *text, int *out)
{
    unsigned long long v;
    const char *rest;
    if (parse_unsigned(text, &v, &rest) != 0 || *rest || v == 0 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

int tc_config_parse_address(const char *text, char *host, size_t cap, uint16_t *port)
{
    if (!text)
        return -1;
    const char *name = text, *colon;
    size_t len;
    if (*text == '[') { /* [ADDRESS]:PORT */
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':')
            return -1;
        name = text + 1;
        len = (size_t)(close - name);
        colon = close + 1;
    } else {
        colon = strrchr(text, ':');
        if (!colon)
            return -1;
        len = (size_t)(colon - text);
        if (memchr(text, ':', len)) /* an IPv6 address without brackets: where is the port? */
            return -1;
    }
    if (len == 0 || len >= cap || memchr(name, ' ', len) || tc_config_parse_port(colon + 1, port) != 0 || *port == 0)
        return -1;
    memcpy(host, name, len);
    host[len] = 0;
    return 0;
}

int tc_config_parse_signed(const char *text, int64_t *out)
{
    unsigned long long v;
    const char *rest;
    int negative = text && *text == '-';
    if (parse_unsigned(negative ? text + 1 : text, &v, &rest) != 0 || *rest || v > (unsigned long long)INT64_MAX)
        return -1;
    *out = negative ? -(int64_t)v : (int64_t)v;
    return 0;
}

int tc_config_sampling_ceiling(int max_sample_rate, int cpu_time_max_percent)
{
    int ceiling = max_sample_rate > 0 ? max_sample_rate : 1000000;
    if (cpu_time_max_percent > 0 && cpu_time_max_percent < 100) {
        /* percent / 100 of a second, TC_SAMPLE_COST_NS at a time */
        long long budget = (long long)cpu_time_max_percent * 10000000 / TC_SAMPLE_COST_NS;
        if (budget < ceiling)
            ceiling = budget > 0 ? (int)budget : 1;
    }
    return ceiling;
}

static int read_sysctl(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/kernel/%s", name);
    FILE *f = tcu_fd_fopen_read(path);
    int v = 0;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* A rate above what the kernel lets run is lowered to it, and said. */
static void limit_sampling_rate(struct tc_config *c, const char *given)
{
    int max_rate = read_sysctl("perf_event_max_sample_rate");
    int percent = read_sysctl("perf_cpu_time_max_percent");
    int ceiling = tc_config_sampling_ceiling(max_rate, percent);
    if (c->sampling_hz <= ceiling)
        return;
    if (max_rate > 0 && ceiling == max_rate)
        fprintf(stderr,
                "tracyc: TRACY_SAMPLING_HZ=%s is more than the kernel allows: sampling at %d Hz "
                "(kernel.perf_event_max_sample_rate)\n",
                given, ceiling);
    else
        fprintf(stderr,
                "tracyc: TRACY_SAMPLING_HZ=%s is more than the kernel allows: sampling at %d Hz (a sample costs "
                "the thread ~%d us, and kernel.perf_cpu_time_max_percent=%d lets perf take %d %% of its time)\n",
                given, ceiling, TC_SAMPLE_COST_NS / 1000, percent, percent);
    c->sampling_hz = ceiling;
}

char *tc_config_output_of_child(const char *path, long pid)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    const char *ext = dot && dot != base ? dot : ".txt";
    size_t len = stem + strlen(ext) + 24;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s.%ld%s", (int)stem, path, pid, ext);
    return out;
}

/* TRACYC_OUTPUT is the file of the process that took it first, which notes "<pid>:<path>"
 * in TRACYC_OUTPUT_OWNER; the programs it starts inherit both. One that finds another
 * process's note for the same file writes its own beside it (tc_config_output_of_child) and
 * says so once: an exec'd child used to overwrite its parent's profile, whichever ended last
 * winning. (setenv at start-up: the first one copies the environment to a new array, so a
 * getenv in another thread meanwhile still reads the old one.) */
static void claim_output(struct tc_config *c)
{
    if (strcmp(c->output, "-") == 0)
        return;
    long self = (long)getpid();
    const char *note = getenv("TRACYC_OUTPUT_OWNER");
    char *rest = NULL;
    long owner = note ? strtol(note, &rest, 10) : 0;
    if (owner > 0 && owner != self && *rest == ':' && strcmp(rest + 1, c->output) == 0 && c->connect_host) {
        /* ...unless it dials a collector (its parent's, tracyc_collect_children): then it
         * is recorded there, into the parent's file. */
        free(c->output);
        c->output = NULL;
        return;
    }
    if (owner > 0 && owner != self && *rest == ':' && strcmp(rest + 1, c->output) == 0) {
        char *own = tc_config_output_of_child(c->output, self);
        if (own) {
            fprintf(stderr,
                    "tracyc: TRACYC_OUTPUT=%s is process %ld's (which started this one): process %ld writes %s\n",
                    c->output, owner, self, own);
            free(c->output);
            c->output = own;
        }
        return;
    }
    size_t len = strlen(c->output) + 24;
    char *mine = malloc(len);
    if (!mine)
        return;
    snprintf(mine, len, "%ld:%s", self, c->output);
    setenv("TRACYC_OUTPUT_OWNER", mine, 1);
    free(mine);
}

int tc_config_disabled(void)
{
    return env_true("TRACYC_DISABLE");
}

static void bad_value(const char *name, const char *value, const char *want, const char *instead)
{
    fprintf(stderr, "tracyc: %s=%s is not %s: %s\n", name, value, want, instead);
}

/* TRACYC_CONNECT=HOST:PORT: the worker dials out to a collector there instead of listening. */
static void read_connect(struct tc_config *c)
{
    const char *v = getenv("TRACYC_CONNECT");
    char host[256];
    c->connect_host = NULL;
    c->connect_port = 0;
    if (!v || !*v)
        return;
    if (tc_config_parse_address(v, host, sizeof host, &c->connect_port) != 0) {
        bad_value("TRACYC_CONNECT", v, "HOST:PORT (a port of 1-65535; [ADDRESS]:PORT for IPv6)",
                  "listening for a server instead");
        c->connect_port = 0;
        return;
    }
    c->connect_host = strdup(host);
}

/* TRACYC_DEBUG_CACHE=DIR (absolute), or 0 for none; by default $XDG_CACHE_HOME/tracyc/debug,
 * else $HOME/.cache/tracyc/debug (native/debug_cache.h). */
static void read_debug_cache(struct tc_config *c)
{
    c->debug_cache[0] = 0;
    c->debug_cache_limit = (size_t)512 << 20;
    const char *v = getenv("TRACYC_DEBUG_CACHE");
    size_t cap = sizeof c->debug_cache;
    if (v && *v == '/' && strlen(v) < cap) {
        strcpy(c->debug_cache, v);
    } else if (!v || strcmp(v, "0") != 0) {
        if (v && *v)
            bad_value("TRACYC_DEBUG_CACHE", v, "an absolute directory, or 0 for none", "the default directory");
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && *xdg == '/' && strlen(xdg) + sizeof "/tracyc/debug" <= cap)
            snprintf(c->debug_cache, cap, "%s/tracyc/debug", xdg);
        else if (home && *home == '/' && strlen(home) + sizeof "/.cache/tracyc/debug" <= cap)
            snprintf(c->debug_cache, cap, "%s/.cache/tracyc/debug", home);
    }
    if ((v = getenv("TRACYC_DEBUG_CACHE_LIMIT")) && *v && tc_config_parse_size(v, &c->debug_cache_limit) != 0)
        bad_value("TRACYC_DEBUG_CACHE_LIMIT", v, "a size above 0 (N, NK, NM or NG)", "keeping the default, 512M");
}

void tc_config_read(struct tc_config *c)
{
    const char *v;
    c->port = 0;
    if ((v = getenv("TRACY_PORT")) && *v && tc_config_parse_port(v, &c->port) != 0)
        bad_value("TRACY_PORT", v, "a port number (0-65535)", "listening on the first free port from 8086");
    v = getenv("TRACYC_LISTEN");
    c->listen_any = v && strcmp(v, "any") == 0;
    c->broadcast = env_true("TRACYC_BROADCAST");
    c->no_exit = env_true("TRACY_NO_EXIT");
    c->buffer_limit = (size_t)256 << 20;
    if ((v = getenv("TRACYC_BUFFER_LIMIT")) && *v && tc_config_parse_size(v, &c->buffer_limit) != 0)
        bad_value("TRACYC_BUFFER_LIMIT", v, "a size above 0 (N, NK, NM or NG)", "keeping the default, 256M");
    read_connect(c);
    c->follow_fork = env_true("TRACYC_FOLLOW_FORK");
    c->exit_signals = 1;
    if ((v = getenv("TRACYC_EXIT_SIGNALS")) && *v) {
        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
            c->exit_signals = v[0] == '1';
        else
            bad_value("TRACYC_EXIT_SIGNALS", v, "0 or 1", "1: Ctrl-C and kill write the in-process capture");
    }
    v = getenv("TRACYC_OUTPUT");
    c->output = v && *v ? tc_inproc_absolute_path(v) : NULL; /* where the program started */
    if (c->output)
        claim_output(c);
    char why[512];
    if (c->output && tc_inproc_check_path(c->output, why, sizeof why) != 0) {
        /* Said now, not when the file cannot be written at exit. */
        fprintf(stderr, "tracyc: in-process capture disabled: %s\n", why);
        free(c->output);
        c->output = NULL;
    }
    c->no_callstack = env_true("TRACY_NO_CALLSTACK");
    /* TRACY_NO_SYS_TRACE turns off all of the kernel's data, as upstream's does. */
    c->no_sampling = env_true("TRACY_NO_SAMPLING") || env_true("TRACY_NO_SYS_TRACE") || c->no_callstack;
    c->no_context_switch = env_true("TRACY_NO_CONTEXT_SWITCH") || env_true("TRACY_NO_SYS_TRACE");
    c->clock_skewed = 0;
    c->clock_skew_ns = 0;
    if ((v = getenv("TRACYC_TEST_CLOCK_SKEW_NS")) && *v) {
        if (tc_config_parse_signed(v, &c->clock_skew_ns) != 0)
            bad_value("TRACYC_TEST_CLOCK_SKEW_NS", v, "a whole number of nanoseconds", "the clocks as they are");
        else
            c->clock_skewed = 1;
    }
    read_debug_cache(c);
    c->sampling_hz = TC_DEFAULT_SAMPLING_HZ;
    if ((v = getenv("TRACY_SAMPLING_HZ")) && *v) {
        if (tc_config_parse_rate(v, &c->sampling_hz) != 0)
            bad_value("TRACY_SAMPLING_HZ", v, "a rate of 1 to 1000000 samples a second", "keeping the default");
        else
            limit_sampling_rate(c, v);
    }
}
