/* symbol_resolution.c - resolving 10,000 distinct addresses of a library with debug
 * information (2,500 generated functions, 4 addresses each): the time and the resident
 * memory it adds, first straight through the resolver (core/native/symbols.c), then as a
 * server sees it: 10,000 CallstackFrame queries sent at once to a running client while one
 * of its threads keeps emitting zones, to show that the zones keep flowing meanwhile.
 */
#include "native/symbols.h"
#include "raw_server.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FUNCTIONS 2500
#define PER_FUNCTION 4
#define ADDRESSES (FUNCTIONS * PER_FUNCTION)

extern int (*const bench_symbol_functions[FUNCTIONS])(int);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double rss_mib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

static uint64_t addresses[ADDRESSES];

static void make_addresses(void)
{
    for (int f = 0; f < FUNCTIONS; f++)
        for (int k = 0; k < PER_FUNCTION; k++)
            addresses[f * PER_FUNCTION + k] = (uint64_t)(uintptr_t)bench_symbol_functions[f] + (uint64_t)k * 2;
}

static void resolver_alone(void)
{
    double rss0 = rss_mib(), t0 = now_s();
    struct tcn_symbols *s = tcn_symbols_new();
    int named = 0;
    for (int i = 0; i < ADDRESSES; i++) {
        const struct tcn_symbol_location *loc = tcn_symbols_location(s, addresses[i]);
        named += strncmp(loc->frames[loc->count - 1].name, "bench_fn_", 9) == 0 && loc->frames[0].line > 0;
    }
    double t1 = now_s(), rss1 = rss_mib();
    for (int i = 0; i < ADDRESSES; i++)
        tcn_symbols_location(s, addresses[i]);
    double t2 = now_s();
    printf("resolver alone: %d addresses in %.1f ms (%.1f us each), %d named with a line; again from the cache "
           "%.2f ms\n",
           ADDRESSES, (t1 - t0) * 1e3, (t1 - t0) * 1e6 / ADDRESSES, named, (t2 - t1) * 1e3);
    printf("  resident memory added: %.1f MiB (caches %.1f MiB, the rest libdw's DWARF and line tables)\n", rss1 - rss0,
           tcn_symbols_memory(s) / (double)(1 << 20));
    tcn_symbols_free(s);
}

static atomic_int producing = 1;

static void *producer(void *arg)
{
    (void)arg;
    static const struct ___tracy_source_location_data loc = {"keeps flowing", "producer", "bench.c", 1, 0};
    while (atomic_load(&producing)) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
        usleep(100);
    }
    return NULL;
}

static void through_the_client(void)
{
    static struct tr_server srv;
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    char port_text[16];
    uint16_t port = (uint16_t)(20000 + getpid() % 20000);
    snprintf(port_text, sizeof port_text, "%u", port);
    setenv("TRACY_PORT", port_text, 1);
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0) {
        printf("through the client: no connection\n");
        return;
    }
    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    tr_pump(&srv, 200);
    double rss0 = rss_mib(), t0 = now_s();
    for (int i = 0; i < ADDRESSES; i++)
        tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, addresses[i], 0);
    size_t pos = srv.log_len;
    int answered = 0;
    long zones = 0;
    double last_zone = now_s(), max_gap = 0;
    while (answered < ADDRESSES && now_s() - t0 < 120) {
        tr_pump(&srv, 5);
        struct tr_item it;
        int zone_seen = 0;
        while (tr_next(&srv, &pos, &it)) {
            answered += it.type == TCW_CallstackFrameSize;
            zone_seen |= it.type >= TCW_ZoneBegin && it.type <= TCW_ZoneBegin16;
            zones += it.type >= TCW_ZoneBegin && it.type <= TCW_ZoneBegin16;
        }
        double now = now_s();
        if (zone_seen) {
            if (now - last_zone > max_gap)
                max_gap = now - last_zone;
            last_zone = now;
        }
    }
    double t1 = now_s(), rss1 = rss_mib();
    printf("through the client: %d CallstackFrame queries answered in %.1f ms; meanwhile %ld zones arrived, the "
           "longest wait between two deliveries of zones %.1f ms\n",
           answered, (t1 - t0) * 1e3, zones, max_gap * 1e3);
    printf("  resident memory added: %.1f MiB\n", rss1 - rss0);
    atomic_store(&producing, 0);
    pthread_join(t, NULL);
    tr_finish(&srv, 10);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
}

int main(void)
{
    unsetenv("DEBUGINFOD_URLS");
    make_addresses();
    resolver_alone();
    through_the_client();
    return 0;
}
