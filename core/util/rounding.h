/* rounding.h - a double's ceiling and its nearest integer, exactly as libm's ceil and
 * llround give them, with no call into libm: the library links with libc alone
 * (core/cflags.txt), and a build without optimisation calls libm for these where an
 * optimised one inlines them. */
#ifndef TRACYC_UTIL_ROUNDING_H
#define TRACYC_UTIL_ROUNDING_H

#include <stdint.h>

#define TCU_ROUNDING_INTEGRAL 4503599627370496.0 /* 2^52: every double this large is an integer */

/* The smallest integer not below x (x itself when it is NaN, infinite or 2^52 or more
 * in magnitude, all of which are integers already or have none). */
static inline double tcu_ceil(double x)
{
    if (!(x > -TCU_ROUNDING_INTEGRAL && x < TCU_ROUNDING_INTEGRAL))
        return x;
    double whole = (double)(int64_t)x; /* towards zero: exact in this range */
    return whole < x ? whole + 1.0 : whole;
}

/* x rounded to the nearest integer, halves away from zero (llround). Outside what int64_t
 * holds the result saturates, and NaN gives 0, where llround's would be unspecified. */
static inline int64_t tcu_llround(double x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775808.0)
        return INT64_MAX;
    if (x < -9223372036854775808.0)
        return INT64_MIN;
    int64_t whole = (int64_t)x;
    if (x > -TCU_ROUNDING_INTEGRAL && x < TCU_ROUNDING_INTEGRAL) {
        double fraction = x - (double)whole; /* exact */
        whole += fraction >= 0.5 ? 1 : fraction <= -0.5 ? -1 : 0;
    }
    return whole;
}

#endif
