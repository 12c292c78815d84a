/* TRACYC_DISABLE=1 makes the library inert: no worker thread, no listening socket,
 * every call returns at once. */
#include "test_util.h"
#include "tracyc.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int thread_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int port_listening(const char *port_hex)
{
    FILE *f = fopen("/proc/net/tcp", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, port_hex) != NULL && strstr(line, " 0A ") != NULL;
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACYC_DISABLE", "1", 1);
    static const struct ___tracy_source_location_data loc = {"z", "main", "disabled.c", 1, 0};
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    CHECK_EQ_INT(z.active, 0);
    ___tracy_emit_zone_text(z, "x", 1);
    ___tracy_emit_zone_end(z);
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, "ignored");
    ___tracy_emit_plot("p", 1.0);
    ___tracy_emit_frame_mark(NULL);
    ___tracy_emit_memory_alloc(&loc, 1);
    CHECK_EQ_INT(tracyc_disabled(), 1);
    CHECK_EQ_INT(___tracy_profiler_started(), 0);
    CHECK_EQ_INT(___tracy_connected(), 0);
    CHECK_EQ_INT(thread_count(), 1);
    char hex[16];
    snprintf(hex, sizeof hex, ":%04X ", port);
    CHECK_EQ_INT(port_listening(hex), 0);
    CHECK(tracyc_capture_start("never.json") == -1);
    CHECK(strlen(tracyc_last_error()) > 0);
    ___tracy_shutdown_profiler();
    return tt_finish("test_disabled");
}
