/* config.c - see config.h. */
#include "client/config.h"

#include "client/inproc.h"
#include "client/sampling.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int tc_config_disabled(void)
{
    return env_true("TRACYC_DISABLE");
}

static void bad_value(const char *name, const char *value, const char *want, const char *instead)
{
    fprintf(stderr, "tracyc: %s=%s is not %s: %s\n", name, value, want, instead);
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
    v = getenv("TRACYC_OUTPUT");
    c->output = v && *v ? tc_inproc_absolute_path(v) : NULL; /* where the program started */
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
    c->sampling_hz = TC_DEFAULT_SAMPLING_HZ;
    if ((v = getenv("TRACY_SAMPLING_HZ")) && *v && tc_config_parse_rate(v, &c->sampling_hz) != 0)
        bad_value("TRACY_SAMPLING_HZ", v, "a rate of 1 to 1000000 samples a second", "keeping the default");
}
