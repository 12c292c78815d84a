/* session.h - the TCP side of a Tracy server: connect to a client, run one capture.
 *
 * Used by tracyc-capture and by the tests. The caller creates a decoder (with its event
 * callbacks), then:
 *
 *   struct tcs_options opt = { .address = "127.0.0.1", .port = 8086, .connect_timeout_s = 5 };
 *   char err[256];
 *   int rc = tcs_capture(&opt, dec, err, sizeof err);
 *
 * tcs_capture() connects to address:port (IPv4 or IPv6, resolved with getaddrinfo),
 * retrying every 10 ms until connect_timeout_s has passed, as upstream tracy-capture
 * does. It sends the handshake request of protocol 82 (or opt->protocol); when the
 * client answers "protocol mismatch" it connects again and offers the next older version
 * tracyc speaks (76, 74, 69, 66, 64), so clients of every supported Tracy release are
 * recorded; tcd_decoder_version(dec) then says which one it settled on. It feeds every
 * received byte to the decoder
 * and sends the decoder's queries (it takes them over with
 * tcd_decoder_set_query_handler(); the socket is non-blocking, so a client that stops
 * reading never blocks the capture). It ends when:
 *
 *   - the decoder is DONE: a Terminate query is sent, the socket closed   -> TCS_COMPLETE
 *   - the client closes the connection: tcd_decoder_close() decides       -> COMPLETE if it
 *     says DONE (Terminate seen), else TCS_INCOMPLETE with its reason
 *   - *stop_flag becomes non-zero, or time_limit_s passes: a Terminate
 *     query is sent (best effort), the socket closed                       -> TCS_INCOMPLETE
 *   - the connection cannot be made, the handshake is refused or cut off,
 *     or the decoder FAILED (a Terminate query is sent first)             -> TCS_ERROR
 *
 * err (may be NULL) receives a sentence saying why, "" on TCS_COMPLETE. Everything
 * decoded up to the end has been delivered to the decoder's callbacks, and its tables
 * stay usable afterwards.
 */
#ifndef TRACYC_CAPTURE_SESSION_H
#define TRACYC_CAPTURE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

enum tcs_result {
    TCS_COMPLETE = 0,
    TCS_INCOMPLETE = 1,
    TCS_ERROR = 2,
};

struct tcs_options {
    const char *address;      /* host name or numeric address; NULL = "127.0.0.1" */
    uint16_t port;            /* 0 = 8086 */
    double connect_timeout_s; /* keep retrying the connect this long; <= 0: one attempt */
    double time_limit_s;      /* stop the capture after this long; <= 0: no limit */
    uint32_t protocol;        /* offer only this protocol version; 0: each, newest first */
    volatile int *stop_flag;  /* optional: set non-zero (e.g. from a signal handler) to stop */
    /* optional: called about every 100 ms while connected, and once at the end */
    void (*on_progress)(void *user, const struct tcd_stats *stats);
    void *user;
};

/* Runs one capture into dec (a fresh decoder). Returns an enum tcs_result. */
int tcs_capture(const struct tcs_options *opt, struct tcd_decoder *dec, char *err, size_t errlen);

#endif
