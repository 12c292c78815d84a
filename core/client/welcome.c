/* welcome.c - program name, host description and clock parameters for the server. */
#include "client/welcome.h"

#include "client/clock.h"
#include "client/sampling.h"
#include "client/state.h"
#include "util/fd.h"
#include "wire/protocol.h"
#include "tracyc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* The name tracyc_program_name_set gave, NULL for none; read when a welcome is built, on
 * the worker, which a fork may interrupt anywhere: no lock. A name replaced is not freed (a
 * welcome may be reading it; names are set a handful of times), but stays listed. */
struct given_name {
    struct given_name *older; /* the names given before, kept reachable */
    char text[];
};
static _Atomic(struct given_name *) every_name;
static _Atomic(const char *) given_name;

void tracyc_program_name_set(const char *name, size_t len)
{
    const char *text = NULL;
    if (name && len) {
        if (len > TCW_PROGRAM_NAME_SIZE - 1)
            len = TCW_PROGRAM_NAME_SIZE - 1;
        struct given_name *g = malloc(sizeof *g + len + 1);
        if (!g)
            return;
        memcpy(g->text, name, len);
        g->text[len] = 0;
        g->older = atomic_load(&every_name);
        while (!atomic_compare_exchange_weak(&every_name, &g->older, g))
            ;
        text = g->text;
    }
    atomic_store(&given_name, text);
}

/* The given name, else the executable's (/proc/self/comm would cut it at 15 bytes). */
static void program_name(char *buf, size_t cap)
{
    extern char *program_invocation_short_name;
    const char *given = atomic_load(&given_name);
    snprintf(buf, cap, "%s",
             given                                                             ? given
             : program_invocation_short_name && *program_invocation_short_name ? program_invocation_short_name
                                                                               : "program");
}

static void cpu_identity(uint8_t *manufacturer, uint32_t *id, char *brand, size_t cap)
{
    snprintf(brand, cap, "unknown");
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(manufacturer, &b, 4);
        memcpy(manufacturer + 4, &d, 4);
        memcpy(manufacturer + 8, &c, 4);
    }
    if (__get_cpuid(1, &a, &b, &c, &d))
        *id = (a & 0xfff) | ((a & 0x0fff0000) >> 4);
    unsigned regs[12];
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
        for (unsigned i = 0; i < 3; i++)
            __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
        memcpy(brand, regs, cap < 48 ? cap - 1 : 48);
        brand[cap < 49 ? cap - 1 : 48] = 0;
    }
#else
    (void)manufacturer;
    (void)id;
#endif
}

/* Read once (it opens a file in /sys): a welcome is built at each connection, and every
 * few seconds while broadcasting, and the profiler opens nothing periodically
 * (util/fd.h). Built by the worker alone. */
static long cpu_cores(void)
{
    static long cores;
    if (!cores) {
        tcu_fd_guard_begin();
        cores = sysconf(_SC_NPROCESSORS_ONLN);
        tcu_fd_guard_end(-1);
    }
    return cores;
}

static void host_info(char *buf, size_t cap, const char *cpu)
{
    struct utsname u;
    uname(&u);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const char *user = getenv("USER");
    /* TCW_HOST_INFO_TRACYC tells our decoder it may ask for tracyc's extensions. */
    snprintf(buf, cap,
             "OS: %s %s\n" TCW_HOST_INFO_TRACYC " (C11)\nUser: %s\nArch: %s\nCPU: %s\nCPU cores: %ld\nRAM: %lld MB\n",
             u.sysname, u.release, user ? user : "?", u.machine, cpu, cpu_cores(),
             (long long)pages * page / (1024 * 1024));
}

void tc_welcome_build(uint8_t out[TCW_WELCOME_SIZE])
{
    memset(out, 0, TCW_WELCOME_SIZE);
    double mul = tc_clock_calibrate(20 * 1000000);
    uint64_t resolution = tc_clock_resolution();
    uint64_t pid = (uint64_t)getpid();
    memcpy(out + TCW_WELCOME_TIMER_MUL, &mul, 8);
    memcpy(out + TCW_WELCOME_INIT_BEGIN, &tc_prof.init_begin, 8);
    memcpy(out + TCW_WELCOME_INIT_END, &tc_prof.init_end, 8);
    memcpy(out + TCW_WELCOME_RESOLUTION, &resolution, 8);
    memcpy(out + TCW_WELCOME_EPOCH, &tc_prof.epoch, 8);
    memcpy(out + TCW_WELCOME_PID, &pid, 8);
    /* The time one CPU sample stands for, as upstream sends it while sampling (0: none). */
    int64_t period = tc_sampling_period_ns();
    memcpy(out + TCW_WELCOME_SAMPLING, &period, 8);
    /* Reconnecting servers see frees of blocks allocated before they connected. Upstream's
     * CombineSamples and IdentifySamples flags are for Windows' sampler only. */
    out[TCW_WELCOME_FLAGS] = TCW_FLAG_IGNORE_MEM_FAULTS;
    out[TCW_WELCOME_CPU_ARCH] = TCW_CPU_ARCH_HOST;
    uint32_t cpu_id = 0;
    char brand[64];
    cpu_identity(out + TCW_WELCOME_CPU_MANUFACTURER, &cpu_id, brand, sizeof brand);
    memcpy(out + TCW_WELCOME_CPU_ID, &cpu_id, 4);
    program_name((char *)out + TCW_WELCOME_PROGRAM_NAME, TCW_PROGRAM_NAME_SIZE);
    host_info((char *)out + TCW_WELCOME_HOST_INFO, TCW_HOST_INFO_SIZE, brand);
}
