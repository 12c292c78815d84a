/* spread.h - the spread of a statistic's values, exactly.
 *
 * CSV's std_ns is the sample standard deviation about the integer mean,
 * sqrt(sum((x - c)^2) / (n - 1)). Kept as exact integer sums (n, sum x, sum x^2), it is the
 * same whatever order the values came in (zones end interleaved across threads, and across
 * processes) and whatever way partial sums are merged (per process, then the total), and
 * it neither overflows nor cancels out: sum((x - c)^2) = sum x^2 - 2c sum x + n c^2 is
 * computed in 256-bit integers, then divided once. */
#ifndef TRACYC_TRACE_SPREAD_H
#define TRACYC_TRACE_SPREAD_H

#include <stdint.h>

struct tct_spread {
    uint64_t n;
    __int128 sum;         /* |x| < 2^63, n < 2^64: fits */
    unsigned __int128 sq; /* sum x^2, low 128 bits */
    uint64_t sq_high;     /* ... and the bits above */
};

static inline void tct_spread_add(struct tct_spread *s, int64_t x)
{
    /* |x| fits 64 bits (2^63 for INT64_MIN): one 64x64 multiply, not a 128-bit one. */
    uint64_t m = x < 0 ? -(uint64_t)x : (uint64_t)x;
    unsigned __int128 sq = (unsigned __int128)m * m;
    s->n++;
    s->sum += x;
    s->sq += sq;
    s->sq_high += s->sq < sq; /* carry */
}

/* Adds the values of b to a. */
void tct_spread_merge(struct tct_spread *a, const struct tct_spread *b);

/* sqrt(sum((x - center)^2) / (n - 1)); 0 for fewer than two values. */
double tct_spread_std_about(const struct tct_spread *s, uint64_t center);

#endif
