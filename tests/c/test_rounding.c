/* test_rounding.c - core/util/rounding.h gives what libm's ceil and llround give, for
 * halves, values a hair off a half, both signs, the edges of exact doubles (2^52, 2^53)
 * and of int64_t, and a million random doubles of every magnitude. */
#include "test_util.h"
#include "util/rounding.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int mismatches;

static void compare(double x)
{
    int ceil_same = tcu_ceil(x) == ceil(x);
    /* (llround's result out of int64_t's range is unspecified: tcu_llround saturates) */
    int in_range = x > -9223372036854775808.0 && x < 9223372036854775808.0;
    int round_same = !in_range || tcu_llround(x) == llround(x);
    if ((!ceil_same || !round_same) && mismatches++ < 5)
        tt_check(0, "%.17g: ceil %.17g (libm %.17g), llround %lld (libm %lld)", x, tcu_ceil(x), ceil(x),
                 (long long)tcu_llround(x), in_range ? (long long)llround(x) : 0LL);
}

int main(void)
{
    static const double edges[] = {0.0,
                                   0.5,
                                   1.5,
                                   2.5,
                                   0.49999999999999994,
                                   0.5000000000000001,
                                   1.0,
                                   1e-300,
                                   4503599627370495.5,
                                   4503599627370496.0,
                                   4503599627370497.0,
                                   9007199254740991.0,
                                   9007199254740992.0,
                                   9007199254740993.0,
                                   9223372036854774784.0,
                                   4.6e18,
                                   123456789.5,
                                   123456789.49999999};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        compare(edges[i]);
        compare(-edges[i]);
        compare(nextafter(edges[i], 0.0));
        compare(nextafter(edges[i], INFINITY));
        compare(-nextafter(edges[i], INFINITY));
    }
    for (int i = 0; i < 1000000; i++) {
        uint64_t bits = next();
        double x;
        /* exponents spread over the range that matters (2^-20 .. 2^70), then any bits */
        bits = (bits & 0x800fffffffffffffull) | ((uint64_t)(1003 + next() % 90) << 52);
        memcpy(&x, &bits, sizeof x);
        compare(x);
        compare(floor(x) + 0.5); /* a half, exactly, where one exists */
    }
    tt_check(mismatches == 0, "ceil and llround as libm's, over edges and a million random doubles (%d differ)",
             mismatches);
    tt_check(tcu_llround(1e300) == INT64_MAX && tcu_llround(-1e300) == INT64_MIN && tcu_llround(NAN) == 0,
             "out of int64_t's range: saturated; NaN: 0");
    tt_check(isnan(tcu_ceil(NAN)) && tcu_ceil(INFINITY) == INFINITY, "ceil of NaN and infinity: themselves");
    return tt_finish("test_rounding");
}
