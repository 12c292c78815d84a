/* clock.h - one client's event clock put on the collector's clock (CLOCK_MONOTONIC_RAW).
 *
 * A client's events carry nanoseconds since its own origin (the welcome's initBegin). To
 * show several clients on one timeline, the collector estimates for each a line
 *
 *     raw = raw0 + (t - t0) * rate      within `error` ns
 *
 * from the collector's CLOCK_MONOTONIC_RAW at its event time t, in one of three ways, the
 * best the client allows (docs/capture.md, "One clock"):
 *
 *   - readings, same host: a tracyc client that took the clock extension (docs/protocol.md
 *     §28) sends TracycClock items: its event clock and its CLOCK_MONOTONIC_RAW read back to
 *     back, with its host id. With the collector's host id and a first reading taken
 *     before its arrival and less than a minute before (not a recording of this boot
 *     replayed later: that one is placed as another host's), its raw clock is the
 *     collector's: the line goes through the first and the latest reading; its error is
 *     the farthest the readings kept in between (at most 64, thinned evenly) lie from it
 *     (with one reading only, from a client that ended before it sent another: the line
 *     at rate 1 through it, error unknown here; the collector gives 10 ppm of the way to
 *     the client's farthest event);
 *   - probes, another host: the collector asks TracycClockProbe queries; each answer's
 *     event time t was read between the query's sending and the answer's arrival, so it
 *     lies at their midpoint within half the round trip (NTP's reasoning). The best (the
 *     shortest round trip) of the first 8 answers anchors the line, the best of each later
 *     8 gives its rate once the two are far enough apart for the rate to be known within
 *     10 ppm; the error is the larger half round trip of the two. Until the first answer,
 *     the client's CLOCK_REALTIME against the collector's places it (error unknown);
 *   - the welcome, for clients without the extension (upstream's, older tracyc): the origin
 *     is no later than any batch's arrival minus the latest event time in it, and no
 *     earlier than the welcome's epoch (its CLOCK_REALTIME at start, in whole seconds); the
 *     line takes the tightest upper bound, at rate 1, and the error is the distance to the
 *     lower one (unknown when the two disagree: clocks of two hosts).
 */
#ifndef TRACYC_CAPTURE_CLOCK_H
#define TRACYC_CAPTURE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

/* A line from a client's event clock to the collector's raw clock. */
struct tcs_clock_line {
    int64_t t0, raw0;
    double rate;
    int64_t error; /* ns; -1 when not known */
};

enum tcs_clock_method {
    TCS_CLOCK_NONE,     /* nothing known yet */
    TCS_CLOCK_WELCOME,  /* bounds from the welcome and the arrivals */
    TCS_CLOCK_READINGS, /* same host: the client's raw clock is ours */
    TCS_CLOCK_PROBES,   /* another host: round trips */
};

#define TCS_CLOCK_KEPT 64
#define TCS_CLOCK_WINDOW 8
/* A rate is used once known within 10 ppm; a tracyc client's event clock is calibrated
 * against the raw clock at least that well. */
#define TCS_CLOCK_RATE_KNOWN 1e-5
#define TCS_CLOCK_GIVE_UP_NS 2000000000LL /* a probe's answer later than this is not waited for */

struct tcs_clock_probe {
    int64_t t;    /* the client's event time in its answer */
    int64_t mid;  /* the collector's raw clock halfway through the round trip */
    int64_t half; /* half the round trip */
};

struct tcs_clock {
    uint64_t host; /* the collector's host id */
    enum tcs_clock_method method;
    /* the welcome's bounds of the origin, on the raw clock */
    int64_t lower, upper;
    int have_lower, have_upper;
    /* same host */
    struct {
        int64_t t, raw;
    } kept[TCS_CLOCK_KEPT];
    size_t kept_count;
    /* another host */
    struct tcs_clock_probe realtime; /* the first reading placed by CLOCK_REALTIME (half -1) */
    struct tcs_clock_probe anchor, recent, window;
    int have_anchor, have_recent;
    size_t answers, window_answers;
    uint32_t asked_id, next_id; /* the probe in flight (0: none) */
    int64_t asked_at, next_at;  /* when it was sent; when the next one is due */
};

/* host: the collector's host id (util/host_id.h: tcu_host_id). */
void tcs_clock_init(struct tcs_clock *c, uint64_t host);
/* The client's welcome arrived at raw_now (the collector's real clock then: real_now). */
void tcs_clock_welcome(struct tcs_clock *c, const struct tcd_welcome *w, int64_t raw_now, int64_t real_now);
/* Bytes that arrived at raw_now carried events up to the client's time latest. */
void tcs_clock_arrival(struct tcs_clock *c, int64_t raw_now, int64_t latest);
/* A TracycClock reading (TCD_CLOCK_SYNC: t = time, raw = value, real = time2, host =
 * address, probe = id), received at raw_now (the collector's real clock then: real_now). */
void tcs_clock_reading(struct tcs_clock *c, int64_t t, int64_t raw, int64_t real, uint64_t host, uint32_t probe,
                       int64_t raw_now, int64_t real_now);
/* A reading known to be of the collector's raw clock, whatever host id it names (or none):
 * the in-process capture's own program's (client/inproc.c). */
void tcs_clock_same_host_reading(struct tcs_clock *c, int64_t t, int64_t raw);
/* The id of a probe to send now (the caller sends it, then calls tcs_clock_probe_sent),
 * or 0 when none is due. */
uint32_t tcs_clock_probe_due(const struct tcs_clock *c, int64_t raw_now);
void tcs_clock_probe_sent(struct tcs_clock *c, uint32_t id, int64_t raw_now);
/* The probe in flight, once its answer is later than TCS_CLOCK_GIVE_UP_NS: forgotten (an
 * answer that comes after is not one) and returned; 0 when there is none to give up. */
uint32_t tcs_clock_probe_given_up(struct tcs_clock *c, int64_t raw_now);

/* The line as known now: 0, or -1 when nothing is known. */
int tcs_clock_line(const struct tcs_clock *c, struct tcs_clock_line *out);
/* For a line whose error is not known (same host, one reading or no rate to trust: rate 1
 * through a reading), the error over events from time 0 to `last`: the event clock may run
 * off the raw clock by as much as its calibration allows, TCS_CLOCK_RATE_KNOWN of the way
 * from the reading to the farthest of them. A known error is left as it is. */
void tcs_clock_bound_error(struct tcs_clock_line *line, int64_t last);

#endif
