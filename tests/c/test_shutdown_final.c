/* ___tracy_shutdown_profiler() is final, as documented (README, include/tracyc.h): a later
 * ___tracy_startup_profiler() does not start a new session, ___tracy_profiler_started()
 * stays 0, threads that start afterwards record nothing, an in-process capture cannot be
 * started, and what was captured before the shutdown is written once, untouched. */
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct ___tracy_source_location_data before_loc = {"before shutdown", "main", "final.c", 1, 0};
static const struct ___tracy_source_location_data after_loc = {"after shutdown", "main", "final.c", 2, 0};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static void *late_thread(void *arg)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&after_loc, 1);
    *(int *)arg = z.active;
    ___tracy_emit_zone_end(z);
    return NULL;
}

int main(void)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], path2[PATH_MAX + 16];
    tt_temp_path(dir, sizeof dir, "tracyc-final-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    snprintf(path2, sizeof path2, "%s/again.csv", dir);
    tt_use_free_port();
    setenv("TRACYC_OUTPUT", path, 1);

    ___tracy_startup_profiler();
    CHECK_EQ_INT(___tracy_profiler_started(), 1);
    ___tracy_emit_zone_end(___tracy_emit_zone_begin(&before_loc, 1));
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(___tracy_profiler_started(), 0);
    char *first = slurp(path);
    CHECK(first && strstr(first, "before shutdown,") != NULL);

    ___tracy_startup_profiler(); /* no new session */
    CHECK_EQ_INT(___tracy_profiler_started(), 0);
    ___tracy_emit_zone_end(___tracy_emit_zone_begin(&after_loc, 1));
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 5, "after");
    int late_active = -1;
    pthread_t t;
    pthread_create(&t, NULL, late_thread, &late_active);
    pthread_join(t, NULL);
    CHECK_EQ_INT(late_active, 0);
    CHECK_EQ_INT(tracyc_capture_start(path2), -1);
    CHECK(strstr(tracyc_last_error(), "shut down") != NULL);
    ___tracy_shutdown_profiler(); /* twice: harmless */

    char *again = slurp(path);
    CHECK(again && first && strcmp(again, first) == 0); /* written once, at the first shutdown */
    CHECK(access(path2, F_OK) != 0);
    free(first);
    free(again);
    unlink(path);
    rmdir(dir);
    return tt_finish("test_shutdown_final");
}
