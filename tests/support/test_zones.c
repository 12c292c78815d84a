/* test_zones.c - see test_util.h (its own file: only tests that link the profiler pull it). */
#include "test_util.h"

#include "tracyc.h"

void tt_zones(const struct ___tracy_source_location_data *loc, int n)
{
    for (int i = 0; i < n; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(loc, 1);
        ___tracy_emit_zone_end(z);
    }
}
