/* test_capture_clock.c - a client's event clock put on the collector's (capture/clock.h),
 * on readings and round trips made up here, whose true line is known. */
#include "capture/clock.h"

#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define HOST 0x1234u
#define OTHER 0x9999u
#define S 1000000000LL
#define ARRIVAL 50000 /* ns from a reading's taking to its arrival */

/* Where the line puts client time t on the raw clock. */
static int64_t at(const struct tcs_clock_line *l, int64_t t)
{
    return l->raw0 + (int64_t)((double)(t - l->t0) * l->rate);
}

static int64_t distance(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

/* Same host: a client whose event clock runs 20 ppm slow against the raw clock, read each
 * second for 300 s with the two reads of a reading up to 40 ns apart. */
static void test_readings(void)
{
    struct tcs_clock c;
    tcs_clock_init(&c, HOST);
    const int64_t origin = 5000 * S;
    const double rate = 1.00002;
    for (int64_t k = 0; k <= 300; k++) {
        int64_t t = k * S + 12345;
        int64_t wobble = (k * 7919) % 41; /* 0..40 ns */
        int64_t raw = origin + (int64_t)((double)t * rate) + wobble;
        tcs_clock_reading(&c, t, raw, 0, HOST, 0, raw + ARRIVAL, 0);
    }
    struct tcs_clock_line l;
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(c.method, TCS_CLOCK_READINGS);
    CHECK(c.kept_count <= TCS_CLOCK_KEPT && c.kept_count >= TCS_CLOCK_KEPT / 2);
    CHECK(l.error >= 0 && l.error <= 40);
    /* every point of the true line, within the error said (plus the wobble of the two
     * readings the line goes through) */
    for (int64_t t = 0; t <= 300 * S; t += 7 * S) {
        int64_t truth = origin + (int64_t)((double)t * rate);
        CHECK(distance(at(&l, t), truth) <= l.error + 80);
    }
    /* one reading: the place known, the rate not, the error not said */
    tcs_clock_init(&c, HOST);
    tcs_clock_reading(&c, 10 * S, origin + 10 * S, 0, HOST, 0, origin + 10 * S + ARRIVAL, 0);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK(at(&l, 10 * S) == origin + 10 * S && l.error == -1);
    /* readings that are no clock (a rate off by 1 %): no error claimed */
    tcs_clock_reading(&c, 20 * S, origin + 20 * S + S / 10, 0, HOST, 0, origin + 21 * S, 0);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(l.error, -1);
}

/* This host's id, but readings that cannot be of its raw clock now: a recording of this boot
 * replayed hours later, or a reading from the collector's future. Placed as another host's. */
static void test_readings_not_ours(void)
{
    const int64_t now = 9000 * S;
    const int64_t not_now[] = {now - 3 * 3600 * S, now + S};
    for (size_t i = 0; i < sizeof not_now / sizeof *not_now; i++) {
        struct tcs_clock c;
        tcs_clock_init(&c, HOST);
        tcs_clock_reading(&c, 10 * S, not_now[i], 0, HOST, 0, now, now);
        CHECK_EQ_INT(c.method, TCS_CLOCK_PROBES);
        CHECK(tcs_clock_probe_due(&c, now) != 0);
        /* its later readings, stale or not, keep it there */
        tcs_clock_reading(&c, 11 * S, now + S, 0, HOST, 0, now + S + ARRIVAL, now + S + ARRIVAL);
        CHECK_EQ_INT(c.method, TCS_CLOCK_PROBES);
        CHECK_EQ_INT(c.kept_count, 0);
    }
    /* a first reading a second on its way (a busy client or collector) is still this host's */
    struct tcs_clock c;
    tcs_clock_init(&c, HOST);
    tcs_clock_reading(&c, 10 * S, now - S, 0, HOST, 0, now, now);
    CHECK_EQ_INT(c.method, TCS_CLOCK_READINGS);
}

/* Another host: its clock is 3.5 s ahead of ours and runs 30 ppm fast; probes whose
 * answers take a random share of round trips of 40 to 400 us. */
static void test_probes(void)
{
    struct tcs_clock c;
    tcs_clock_init(&c, HOST);
    const int64_t ahead = 3500000000LL;
    const double rate = 1.0 / 1.00003; /* our raw ns per ns of its clock */
    int64_t now = 100 * S;
    /* its unsolicited reading places it by the real clocks (ours 1 ms off theirs) */
    tcs_clock_reading(&c, 0, 777, now + ahead + 1000000, OTHER, 0, now, now);
    CHECK_EQ_INT(c.method, TCS_CLOCK_PROBES);
    struct tcs_clock_line l;
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(l.error, -1);
    uint32_t asked = 0;
    int64_t smallest = INT64_MAX;
    unsigned seed = 7;
    for (int i = 0; i < 400; i++) {
        uint32_t id = tcs_clock_probe_due(&c, now);
        if (!id) {
            now += S / 10;
            continue;
        }
        CHECK(id != asked);
        asked = id;
        tcs_clock_probe_sent(&c, id, now);
        seed = seed * 1103515245u + 12345u;
        int64_t rtt = 40000 + (int64_t)(seed >> 8) % 360000;
        int64_t there = now + (int64_t)(seed >> 4) % rtt; /* when the client read its clock */
        int64_t t = (int64_t)((double)(there - 100 * S) / rate) + ahead;
        now += rtt;
        tcs_clock_reading(&c, t, 0, 0, OTHER, id, now, now);
        smallest = rtt / 2 < smallest ? rtt / 2 : smallest;
    }
    CHECK(c.answers >= 3 * TCS_CLOCK_WINDOW);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK(l.error >= smallest && l.error < 200000); /* no better than the best round trip, no worse than the worst */
    /* the client's times land within the error said, across the whole run */
    for (int64_t raw = 100 * S; raw < now; raw += S) {
        int64_t t = (int64_t)((double)(raw - 100 * S) / rate) + ahead;
        CHECK(distance(at(&l, t), raw) <= l.error);
    }
    /* an answer to a probe not asked (or asked and given up) changes nothing */
    struct tcs_clock_line before = l;
    tcs_clock_reading(&c, 1, 0, 0, OTHER, asked + 1000, now, now);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK(l.raw0 == before.raw0 && l.error == before.error);
}

/* A probe not answered: given up once, after TCS_CLOCK_GIVE_UP_NS (the collector then stops
 * waiting for it, clock and capture's end alike); its late answer is not one; the next goes. */
static void test_probe_given_up(void)
{
    struct tcs_clock c;
    tcs_clock_init(&c, HOST);
    int64_t now = 100 * S;
    tcs_clock_reading(&c, 0, 777, now, OTHER, 0, now, now);
    uint32_t id = tcs_clock_probe_due(&c, now);
    CHECK(id != 0);
    tcs_clock_probe_sent(&c, id, now);
    CHECK_EQ_INT(tcs_clock_probe_given_up(&c, now + TCS_CLOCK_GIVE_UP_NS - 1), 0);
    CHECK_EQ_INT(tcs_clock_probe_due(&c, now + TCS_CLOCK_GIVE_UP_NS - 1), 0);
    CHECK_EQ_INT(tcs_clock_probe_given_up(&c, now + TCS_CLOCK_GIVE_UP_NS), id);
    CHECK_EQ_INT(tcs_clock_probe_given_up(&c, now + TCS_CLOCK_GIVE_UP_NS), 0); /* once */
    size_t answers = c.answers;
    tcs_clock_reading(&c, 5, 0, 0, OTHER, id, now + TCS_CLOCK_GIVE_UP_NS + 1, now);
    CHECK(c.answers == answers);
    uint32_t next = tcs_clock_probe_due(&c, now + TCS_CLOCK_GIVE_UP_NS + 1);
    CHECK(next != 0 && next != id);
}

/* A client without the extension: bounds from its welcome and the batches that arrive. */
static void test_welcome(void)
{
    struct tcs_clock c;
    tcs_clock_init(&c, HOST);
    struct tcd_welcome w = {.timer_mul = 1.0, .init_begin = 0, .init_end = 2000000, .epoch = 1700000000};
    /* our real clock: the raw clock + 1.7e18 - 400 s; the client began at epoch + 0.3 s */
    const int64_t real_minus_raw = 1700000000LL * S - 400 * S;
    const int64_t origin = 400 * S + 300000000; /* the client's time 0 on our raw clock */
    int64_t now = origin + 5 * S;
    tcs_clock_welcome(&c, &w, now, now + real_minus_raw);
    struct tcs_clock_line l;
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(c.method, TCS_CLOCK_WELCOME);
    CHECK(at(&l, 0) == now - 2000000 && l.error == now - 2000000 - 400 * S);
    /* a batch whose latest event is 1 ms old when it arrives */
    tcs_clock_arrival(&c, now + S, now + S - origin - 1000000);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(at(&l, 0), origin + 1000000);
    CHECK_EQ_INT(l.error, 300000000 + 1000000);
    /* an older batch arriving later tells nothing new */
    tcs_clock_arrival(&c, now + 2 * S, now - origin);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(at(&l, 0), origin + 1000000);
    /* bounds that disagree (another host's real clock): no error claimed */
    tcs_clock_init(&c, HOST);
    w.epoch += 3600;
    tcs_clock_welcome(&c, &w, now, now + real_minus_raw);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), 0);
    CHECK_EQ_INT(l.error, -1);
    /* nothing known before a welcome */
    tcs_clock_init(&c, HOST);
    CHECK_EQ_INT(tcs_clock_line(&c, &l), -1);
}

int main(void)
{
    test_readings();
    test_readings_not_ours();
    test_probes();
    test_probe_given_up();
    test_welcome();
    return tt_finish("test_capture_clock");
}
