/* gpu_nested.c - GPU zones nested three deep on one context, and a second tree beside them,
 * for tests/e2e/test_serve.py: the GPU times of each zone arrive after all the zones have
 * ended, the innermost first, as a GPU reports a batch. */
#include <tracy/TracyC.h>

static const struct ___tracy_source_location_data outer = {"outer pass", "frame", __FILE__, __LINE__, 0};
static const struct ___tracy_source_location_data middle = {"middle pass", "frame", __FILE__, __LINE__, 0};
static const struct ___tracy_source_location_data inner = {"inner pass", "frame", __FILE__, __LINE__, 0};

static void begin(const struct ___tracy_source_location_data *loc, uint16_t query)
{
    ___tracy_emit_gpu_zone_begin_serial((struct ___tracy_gpu_zone_begin_data){(uint64_t)(uintptr_t)loc, query, 0});
}

static void end(uint16_t query)
{
    ___tracy_emit_gpu_zone_end_serial((struct ___tracy_gpu_zone_end_data){query, 0});
}

static void gpu_time(int64_t t, uint16_t query)
{
    ___tracy_emit_gpu_time_serial((struct ___tracy_gpu_time_data){t, query, 0});
}

int main(void)
{
    ___tracy_emit_gpu_new_context_serial((struct ___tracy_gpu_new_context_data){1000, 1.0f, 0, 0, 7});
    for (int tree = 0; tree < 2; tree++) {
        uint16_t q = (uint16_t)(tree * 6);
        int64_t t = 2000 + tree * 10000;
        begin(&outer, q);
        begin(&middle, q + 1);
        begin(&inner, q + 2);
        end(q + 3);
        end(q + 4);
        end(q + 5);
        /* innermost first: the inner zone is complete before its parents */
        gpu_time(t + 300, q + 2);
        gpu_time(t + 400, q + 3);
        gpu_time(t + 200, q + 1);
        gpu_time(t + 500, q + 4);
        gpu_time(t, q);
        gpu_time(t + 900, q + 5);
    }
    return 0;
}
