/* A server that connects later gets the set-up records it needs, and only as many as it
 * needs: the latest configuration of each plot and name of each lock, and the first
 * 64 KiB of app info, however often the program set them. (Every one
 * was kept before, so a program that sets app info each frame grew without bound.) */
#include "test_capture.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct ___tracy_source_location_data lock_loc = {"lock", "main", "replay.c", 1, 0};

static void wait_connected(int want)
{
    for (int i = 0; i < 5000 && ___tracy_connected() != want; i++)
        usleep(1000);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    struct tt_capture *first = tt_capture_start(port);
    wait_connected(1);
    struct __tracy_lockable_context_data *lock = ___tracy_announce_lockable_ctx(&lock_loc);
    char text[128];
    size_t line = 0;
    for (int i = 0; i < 2000; i++) {
        ___tracy_emit_plot_config("p", TracyPlotFormatNumber, 0, 1, (uint32_t)i);
        int n = snprintf(text, sizeof text, "lock name %d", i);
        ___tracy_custom_name_lockable_ctx(lock, text, (size_t)n);
        line = (size_t)snprintf(text, sizeof text, "app info line %04d %81s", i, "");
        ___tracy_emit_message_appinfo(text, line);
    }
    ___tracy_emit_plot("p", 1.0);
    usleep(200000);
    __atomic_store_n(&first->stop, 1, __ATOMIC_RELAXED);
    tt_capture_join(first);
    wait_connected(0);

    struct tt_capture *second = tt_capture_start(port);
    wait_connected(1);
    ___tracy_emit_plot("p", 2.0);
    ___tracy_before_lock_lockable_ctx(lock);
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_terminate_lockable_ctx(lock);
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(tt_capture_join(second), 0);

    CHECK_EQ_INT(tt_count(first, TCD_PLOT_CONFIG), 2000);
    CHECK_EQ_INT(tt_count(first, TCD_APP_INFO), 2000);
    const struct tcd_event *config = tt_nth(second, TCD_PLOT_CONFIG, 0);
    tt_check(tt_count(second, TCD_PLOT_CONFIG) == 1 && config && config->color == 1999,
             "the later server gets the plot's latest configuration only (%zu)", tt_count(second, TCD_PLOT_CONFIG));
    const struct tcd_event *name = tt_nth(second, TCD_LOCK_NAME, 0);
    tt_check(tt_count(second, TCD_LOCK_NAME) == 1 && name && strcmp(tt_text(second, name), "lock name 1999") == 0,
             "and the lock's latest name only (%zu)", tt_count(second, TCD_LOCK_NAME));
    size_t lines = tt_count(second, TCD_APP_INFO);
    tt_check(lines == 64 * 1024 / line, "and the first 64 KiB of app info (%zu lines of %zu bytes)", lines, line);
    tt_capture_free(first);
    tt_capture_free(second);
    return tt_finish("test_replay");
}
