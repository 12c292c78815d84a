/* message_stats.h - an aggregator (sink.h): messages counted by severity, and the first
 * warnings and errors, which often concern the profile itself (a budget reached, the
 * program stopped by a signal). Memory: their texts, at most TCT_MESSAGES_SHOWN. */
#ifndef TRACYC_TRACE_MESSAGE_STATS_H
#define TRACYC_TRACE_MESSAGE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define TCT_MESSAGES_SHOWN 10

struct tct_shown_message {
    uint8_t severity;
    char *text; /* its first line; a literal message's text comes from names.string */
    size_t text_len;
    uint32_t source, string;
};

struct tct_message_stats {
    uint64_t by_severity[6]; /* trace .. fatal */
    uint64_t warnings;       /* severity warning and above */
    struct tct_shown_message shown[TCT_MESSAGES_SHOWN];
    size_t shown_count;
};

/* The trace's message statistics, added to it on first use; NULL when out of memory. */
struct tct_message_stats *tct_message_stats_of(struct tct_trace *tr);

#endif
