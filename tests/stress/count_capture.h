/* count_capture.h - a capture on a thread of the test program that counts what it
 * decodes instead of storing it, so stress tests can send tens of millions of events.
 * Per thread it checks the zone nesting: an end with no open zone is counted as an error. */
#ifndef TRACYC_STRESS_COUNT_CAPTURE_H
#define TRACYC_STRESS_COUNT_CAPTURE_H

#include "decode/decode.h"

#include <stddef.h>
#include <stdint.h>

#define CC_MAX_THREADS 65536

struct cc_thread {
    uint32_t id; /* 0 = free slot */
    uint32_t depth;
    uint64_t zones, messages;
};

struct cc_capture {
    uint64_t by_kind[TCD_EVENT_KIND_COUNT];
    uint64_t nesting_errors; /* ends with no open zone */
    uint64_t dropped;        /* the last count the client reported */
    double plot_sum;         /* of every plot value */
    size_t thread_count;
    struct cc_thread *threads; /* open addressing on the thread id */
    struct tcd_decoder *dec;
    int result; /* enum tcs_result */
    char err[256];
    uint16_t port;
    void *thread; /* pthread_t */
};

/* Connects (with retries) to 127.0.0.1:port on a new thread and counts until the end. */
struct cc_capture *cc_start(uint16_t port);
/* Waits for the capture to end; returns its result. */
int cc_join(struct cc_capture *c);
void cc_free(struct cc_capture *c);

#endif
