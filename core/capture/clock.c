/* clock.c - a client's event clock on the collector's raw clock (clock.h). */
#include "capture/clock.h"
#include "util/rounding.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NS 1000000000LL
#define PROBE_EVERY_NS NS       /* after the first window: a probe a second */
#define RATE_PLAUSIBLE 1e-3     /* two clocks never differ by more than this */
#define NS_LIMIT 4.6e18         /* a time in ns that int64_t holds with room to add one more */
#define ON_ITS_WAY_NS (60 * NS) /* a live client's reading arrives well within this of its taking */

/* Readings and welcomes are the client's word: their differences are taken in double, and a
 * time is kept within what int64_t holds. */
static int64_t to_ns(double t)
{
    return t < -NS_LIMIT ? (int64_t)-NS_LIMIT : t > NS_LIMIT ? (int64_t)NS_LIMIT : (int64_t)t;
}

void tcs_clock_init(struct tcs_clock *c, uint64_t host)
{
    memset(c, 0, sizeof *c);
    c->host = host;
    c->next_id = 1;
}

void tcs_clock_welcome(struct tcs_clock *c, const struct tcd_welcome *w, int64_t raw_now, int64_t real_now)
{
    /* The client had passed initEnd when it sent its welcome; it began at its epoch (whole
     * seconds of its real clock) or a little later. */
    double init = ((double)w->init_end - (double)w->init_begin) * w->timer_mul;
    if (isfinite(init) && init >= 0 && init < 1e15) {
        c->upper = raw_now - (int64_t)init;
        c->have_upper = 1;
    }
    if (w->epoch > 0 && w->epoch < (uint64_t)(INT64_MAX / NS)) {
        c->lower = (int64_t)w->epoch * NS - (real_now - raw_now);
        c->have_lower = 1;
    }
    if (c->method == TCS_CLOCK_NONE)
        c->method = TCS_CLOCK_WELCOME;
}

void tcs_clock_arrival(struct tcs_clock *c, int64_t raw_now, int64_t latest)
{
    if (latest < 0 || latest > raw_now)
        return;
    if (!c->have_upper || raw_now - latest < c->upper) {
        c->upper = raw_now - latest;
        c->have_upper = 1;
    }
}

/* Keeps a reading of the same host; when full, every other one between the first and the
 * latest goes, so that the kept ones stay spread over the whole capture. */
static void keep(struct tcs_clock *c, int64_t t, int64_t raw)
{
    if (c->kept_count && t <= c->kept[c->kept_count - 1].t)
        return; /* readings come in order; a repeated one adds nothing */
    if (c->kept_count == TCS_CLOCK_KEPT) {
        size_t n = 1;
        for (size_t i = 2; i < TCS_CLOCK_KEPT - 1; i += 2)
            c->kept[n++] = c->kept[i];
        c->kept[n++] = c->kept[TCS_CLOCK_KEPT - 1];
        c->kept_count = n;
    }
    c->kept[c->kept_count].t = t;
    c->kept[c->kept_count].raw = raw;
    c->kept_count++;
}

static int better(const struct tcs_clock_probe *a, const struct tcs_clock_probe *b)
{
    return a->half < b->half;
}

static void answer(struct tcs_clock *c, int64_t t, int64_t raw_now)
{
    struct tcs_clock_probe p = {t, c->asked_at + (raw_now - c->asked_at) / 2, (raw_now - c->asked_at + 1) / 2};
    c->asked_id = 0;
    c->next_at = c->answers < TCS_CLOCK_WINDOW ? raw_now : raw_now + PROBE_EVERY_NS;
    if (c->answers < TCS_CLOCK_WINDOW) {
        if (!c->have_anchor || better(&p, &c->anchor))
            c->anchor = p;
        c->have_anchor = 1;
    } else {
        if (!c->window_answers || better(&p, &c->window))
            c->window = p;
        if (++c->window_answers == TCS_CLOCK_WINDOW) {
            c->recent = c->window;
            c->have_recent = 1;
            c->window_answers = 0;
        }
    }
    c->answers++;
}

void tcs_clock_same_host_reading(struct tcs_clock *c, int64_t t, int64_t raw)
{
    c->method = TCS_CLOCK_READINGS;
    keep(c, t, raw);
}

/* Whether a reading is of the collector's raw clock: the client names this host, and its
 * first reading was taken before it arrived, and lately (not a recording of this boot
 * replayed later); the first reading decides for the rest. */
static int shares_raw_clock(const struct tcs_clock *c, int64_t raw, uint64_t host, int64_t raw_now)
{
    if (!host || host != c->host || c->method == TCS_CLOCK_PROBES)
        return 0;
    return c->method == TCS_CLOCK_READINGS || (raw <= raw_now && raw >= raw_now - ON_ITS_WAY_NS);
}

void tcs_clock_reading(struct tcs_clock *c, int64_t t, int64_t raw, int64_t real, uint64_t host, uint32_t probe,
                       int64_t raw_now, int64_t real_now)
{
    if (shares_raw_clock(c, raw, host, raw_now)) {
        tcs_clock_same_host_reading(c, t, raw);
        return;
    }
    if (c->method != TCS_CLOCK_PROBES) {
        c->method = TCS_CLOCK_PROBES;
        c->realtime = (struct tcs_clock_probe){t, to_ns((double)real - (double)(real_now - raw_now)), -1};
        c->next_at = raw_now;
    }
    if (probe && probe == c->asked_id)
        answer(c, t, raw_now);
}

uint32_t tcs_clock_probe_given_up(struct tcs_clock *c, int64_t raw_now)
{
    uint32_t id = c->asked_id;
    if (!id || raw_now - c->asked_at < TCS_CLOCK_GIVE_UP_NS)
        return 0;
    c->asked_id = 0;
    return id;
}

uint32_t tcs_clock_probe_due(const struct tcs_clock *c, int64_t raw_now)
{
    if (c->method != TCS_CLOCK_PROBES)
        return 0;
    if (c->asked_id && raw_now - c->asked_at < TCS_CLOCK_GIVE_UP_NS)
        return 0;
    return raw_now >= c->next_at ? c->next_id : 0;
}

void tcs_clock_probe_sent(struct tcs_clock *c, uint32_t id, int64_t raw_now)
{
    c->asked_id = id;
    c->asked_at = raw_now;
    c->next_id = id + 1 ? id + 1 : 1;
    c->next_at = raw_now + PROBE_EVERY_NS;
}

static int readings_line(const struct tcs_clock *c, struct tcs_clock_line *out)
{
    const size_t n = c->kept_count;
    *out = (struct tcs_clock_line){c->kept[0].t, c->kept[0].raw, 1.0, -1};
    if (n < 2)
        return 0;
    double span = (double)c->kept[n - 1].t - (double)c->kept[0].t;
    double rate = ((double)c->kept[n - 1].raw - (double)c->kept[0].raw) / span;
    if (!(fabs(rate - 1.0) < RATE_PLAUSIBLE))
        return 0; /* not one clock read twice: trust neither the rate nor an error */
    out->rate = rate;
    double worst = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        double off = fabs(((double)c->kept[i].raw - (double)c->kept[0].raw) -
                          ((double)c->kept[i].t - (double)c->kept[0].t) * rate);
        if (off > worst)
            worst = off;
    }
    out->error = to_ns(tcu_ceil(worst));
    return 0;
}

static int probes_line(const struct tcs_clock *c, struct tcs_clock_line *out)
{
    if (!c->have_anchor) {
        *out = (struct tcs_clock_line){c->realtime.t, c->realtime.mid, 1.0, -1};
        return 0;
    }
    const struct tcs_clock_probe *a = &c->anchor, *b = c->have_recent ? &c->recent : NULL;
    if (b && b->t > a->t) {
        double span = (double)b->t - (double)a->t;
        double rate = ((double)b->mid - (double)a->mid) / span;
        if ((double)(a->half + b->half) / span < TCS_CLOCK_RATE_KNOWN && fabs(rate - 1.0) < RATE_PLAUSIBLE) {
            *out = (struct tcs_clock_line){a->t, a->mid, rate, a->half > b->half ? a->half : b->half};
            return 0;
        }
    }
    const struct tcs_clock_probe *best = b && better(b, a) ? b : a;
    *out = (struct tcs_clock_line){best->t, best->mid, 1.0, best->half};
    return 0;
}

int tcs_clock_line(const struct tcs_clock *c, struct tcs_clock_line *out)
{
    switch (c->method) {
    case TCS_CLOCK_READINGS:
        return readings_line(c, out);
    case TCS_CLOCK_PROBES:
        return probes_line(c, out);
    case TCS_CLOCK_WELCOME:
        if (!c->have_upper && !c->have_lower)
            return -1;
        *out = (struct tcs_clock_line){0, c->have_upper ? c->upper : c->lower, 1.0, -1};
        if (c->have_upper && c->have_lower && c->lower <= c->upper)
            out->error = c->upper - c->lower;
        return 0;
    default:
        return -1;
    }
}

void tcs_clock_bound_error(struct tcs_clock_line *line, int64_t last)
{
    if (line->error >= 0)
        return;
    /* (no fmin or fmax: libtracyc links without libm) */
    double before = fabs((double)line->t0), after = fabs((double)last - (double)line->t0);
    line->error = to_ns(tcu_ceil((before > after ? before : after) * TCS_CLOCK_RATE_KNOWN));
}
