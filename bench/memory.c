/* memory.c - memory use with no server connected: a program records far more than
 * TRACYC_BUFFER_LIMIT allows; its resident memory is printed against the limit, with
 * the number of events kept and dropped. The baseline is the process's RSS before
 * recording, in the same run. */
#define _DEFAULT_SOURCE
#include <tracyc.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (size_t)rss * (size_t)sysconf(_SC_PAGESIZE);
}

static const struct ___tracy_source_location_data loc = {"unsent", "main", "memory.c", 1, 0};

int main(void)
{
    setenv("TRACYC_BUFFER_LIMIT", "64M", 0);
    setenv("TRACY_PORT", "1", 0); /* a port nobody connects to: nothing is ever sent */
    ___tracy_startup_profiler();
    size_t before = rss_bytes(), peak = before;
    const long pairs = 20000000; /* ~800 MB of records if nothing were dropped */
    for (long i = 0; i < pairs; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
        if ((i & 0xfffff) == 0) {
            size_t now = rss_bytes();
            peak = now > peak ? now : peak;
        }
    }
    size_t after = rss_bytes();
    peak = after > peak ? after : peak;
    double limit = strtod(getenv("TRACYC_BUFFER_LIMIT"), NULL);
    printf("memory: %ld zone pairs with no server, limit %s: RSS grew %.1f MiB (peak growth %.1f MiB, "
           "%.2fx the limit), %llu events dropped\n",
           pairs, getenv("TRACYC_BUFFER_LIMIT"), (after - before) / 1048576.0, (peak - before) / 1048576.0,
           (peak - before) / 1048576.0 / limit, (unsigned long long)tracyc_dropped_events());
    return 0;
}
