/* test_capture.h - a capture running on a thread of the test program itself: it
 * connects to the test's own tracyc client over loopback and records every decoded
 * event, so a test can emit events and then check exactly what a server received. */
#ifndef TRACYC_TEST_CAPTURE_H
#define TRACYC_TEST_CAPTURE_H

#include "decode/decode.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tt_event {
    struct tcd_event ev; /* ev.text points at `text` */
    char *text;
};

struct tt_capture {
    struct tt_event *events;
    size_t len, cap;
    struct tcd_decoder *dec;
    int result; /* enum tcs_result */
    char err[256];
    volatile int stop;
    uint16_t port;
    void *thread; /* pthread_t */
    double connect_timeout_s;
    uint32_t protocol; /* offered protocol version, 0 = each in turn */
    void *sync;        /* the lock and condition events are appended under, for tt_wait_text */
    int ended;         /* the capture has ended */
    /* Its progress, stored atomically for tt_capture_describe while it runs: */
    int welcomed;      /* the client's welcome has come */
    uint64_t bytes_in; /* compressed bytes received (brought up to date about every 100 ms) */
    uint64_t received; /* events recorded */
};

/* Starts connecting (with retries) to 127.0.0.1:port on a new thread. */
struct tt_capture *tt_capture_start(uint16_t port);
/* The same, offering only the given protocol version. */
struct tt_capture *tt_capture_start_protocol(uint16_t port, uint32_t protocol);
/* While the capture runs: waits until it has recorded an event of that kind and thread
 * whose text is text. 1 when it has, 0 when the capture ended without one. */
int tt_wait_text(struct tt_capture *c, enum tcd_event_kind kind, uint32_t thread, const char *text);
/* Waits for the capture to end; returns its result. */
int tt_capture_join(struct tt_capture *c);
void tt_capture_free(struct tt_capture *c);
/* One line on where a capture (struct tt_capture *) is: connecting, connected, or ended and
 * why; bytes and events received. Safe from any thread while it runs, for a test's hang
 * report: tt_phase_describe(tt_capture_describe, cap). */
void tt_capture_describe(FILE *out, void *capture);

size_t tt_count(const struct tt_capture *c, enum tcd_event_kind kind);
/* The n-th event of a kind, or NULL. */
const struct tcd_event *tt_nth(const struct tt_capture *c, enum tcd_event_kind kind, size_t n);
/* The text of an event, resolving literal messages through the decoder's strings. */
const char *tt_text(const struct tt_capture *c, const struct tcd_event *ev);
/* The first event of a kind whose text equals text, or NULL. */
const struct tcd_event *tt_find_text(const struct tt_capture *c, enum tcd_event_kind kind, const char *text);

#endif
