/* spread.c - exact sums of squared deviations (spread.h), in 256-bit integers: four
 * 64-bit limbs, least significant first, two's complement. */
#include "trace/spread.h"

struct u256 {
    uint64_t w[4];
};

static struct u256 add(struct u256 a, struct u256 b)
{
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t s = a.w[i] + b.w[i];
        unsigned c1 = s < a.w[i];
        uint64_t t = s + carry;
        unsigned c2 = t < s;
        a.w[i] = t;
        carry = c1 | c2;
    }
    return a;
}

static struct u256 negate(struct u256 a)
{
    for (int i = 0; i < 4; i++)
        a.w[i] = ~a.w[i];
    return add(a, (struct u256){{1, 0, 0, 0}});
}

static struct u256 from_u128(unsigned __int128 v, uint64_t high)
{
    return (struct u256){{(uint64_t)v, (uint64_t)(v >> 64), high, 0}};
}

/* v * m for an unsigned 128-bit v: at most 192 bits. */
static struct u256 mul(unsigned __int128 v, uint64_t m)
{
    unsigned __int128 lo = (unsigned __int128)(uint64_t)v * m;
    unsigned __int128 hi = (unsigned __int128)(uint64_t)(v >> 64) * m + (lo >> 64);
    return (struct u256){{(uint64_t)lo, (uint64_t)hi, (uint64_t)(hi >> 64), 0}};
}

void tct_spread_merge(struct tct_spread *a, const struct tct_spread *b)
{
    a->n += b->n;
    a->sum += b->sum;
    unsigned __int128 sq = a->sq + b->sq;
    a->sq_high += b->sq_high + (sq < a->sq);
    a->sq = sq;
}

double tct_spread_std_about(const struct tct_spread *s, uint64_t center)
{
    if (s->n < 2)
        return 0;
    /* q = sum x^2 - 2 c sum x + n c^2, exactly; never negative, being a sum of squares. */
    struct u256 q = from_u128(s->sq, s->sq_high);
    int negative = s->sum < 0;
    unsigned __int128 magnitude = negative ? -(unsigned __int128)s->sum : (unsigned __int128)s->sum;
    struct u256 cross = mul(magnitude, center);
    cross = add(cross, cross);
    q = add(q, negative ? cross : negate(cross));
    struct u256 cc = mul((unsigned __int128)center * center, s->n);
    q = add(q, cc);
    long double value = 0;
    for (int i = 3; i >= 0; i--)
        value = value * 18446744073709551616.0L + (long double)q.w[i];
    /* (the builtin: an instruction, correctly rounded as libm's sqrtl, even unoptimised) */
    return (double)__builtin_sqrtl(value / (long double)(s->n - 1));
}
