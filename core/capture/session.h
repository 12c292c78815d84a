/* session.h - one connection of a Tracy server to a client, driven without blocking.
 *
 * A session pumps bytes between a socket and a decoder: the server's hello and the decoder's
 * queries out, the client's handshake and frames in. It never waits: its owner polls the
 * socket (tcs_session_poll says for what) and hands the result to tcs_session_handle, which
 * does what can be done at once. The collector (collector.h) runs any number of them; the
 * blocking tcs_capture() below runs one.
 *
 * Two ways to begin:
 *   - connect (tcs_session_connect): the server connects to a listening client, retrying
 *     every 10 ms until `retry_s` has passed, as upstream's tracy-capture does. It offers
 *     protocol 82 (or the one asked for); when the client answers "protocol mismatch", it
 *     connects again and offers the next older version tracyc speaks (76, 74, 69, 66, 64),
 *     so clients of every supported Tracy release are recorded;
 *   - accept (tcs_session_accept): a client dialled out to the server's listening socket
 *     (TRACYC_CONNECT, docs/protocol.md §2); the server still speaks first, offering 82,
 *     which every tracyc client answers.
 *
 * It ends (TCS_SESSION_ENDED, with an enum tcs_result and a sentence saying why) when:
 *   - the decoder is DONE: a Terminate query is sent, the socket closed       -> TCS_COMPLETE
 *   - the client closes the connection: tcd_decoder_close() decides           -> COMPLETE when
 *     it says DONE (Terminate seen), else TCS_INCOMPLETE with its reason (TCS_ERROR when
 *     the handshake was cut off)
 *   - tcs_session_stop(): a Terminate query is sent (best effort)             -> TCS_INCOMPLETE,
 *     or TCS_ERROR when no client had answered yet; while the decoder awaits answers
 *     (tcd_decoder_awaiting), the session first runs on until it awaits none, for at most
 *     a second, and ends INCOMPLETE with the stop's reason whatever the client does
 *     meanwhile (Terminate, hang-up), TCS_ERROR if the decoder fails
 *   - the connection cannot be made within retry_s, the handshake is refused, the decoder
 *     FAILED, the client gave no welcome within the handshake limit, or on_welcome refused
 *     the client (a Terminate query is sent first)                              -> TCS_ERROR
 * A Terminate query is given a second to leave before the socket is closed. Everything
 * decoded up to the end has been delivered to the decoder's callbacks, and its tables stay
 * usable afterwards.
 */
#ifndef TRACYC_CAPTURE_SESSION_H
#define TRACYC_CAPTURE_SESSION_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

enum tcs_result {
    TCS_COMPLETE = 0,
    TCS_INCOMPLETE = 1,
    TCS_ERROR = 2,
};

enum tcs_session_state {
    TCS_SESSION_CONNECTING, /* connect mode: a connect in progress, or waiting to retry */
    TCS_SESSION_RUNNING,    /* the hello sent: handshake, then frames */
    TCS_SESSION_CLOSING,    /* a Terminate query on its way out */
    TCS_SESSION_ENDED,
};

struct tcs_session;

struct tcs_session_hooks {
    /* Called once the client's welcome has arrived, before any of its events: non-zero
     * refuses it (a Terminate query is sent; TCS_ERROR, with the sentence it wrote in why). */
    int (*on_welcome)(void *user, struct tcs_session *s, const struct tcd_welcome *welcome, char *why, size_t whylen);
    void *user;
};

/* A session that connects to host:port (resolved now; NULL with a sentence in err when it
 * cannot be). protocol 0: each version, newest first; else only that one. retry_s <= 0:
 * one attempt. handshake_s > 0: a client that has not sent its welcome that long after
 * the connection was made is given up (TCS_ERROR). The session takes over the decoder's
 * queries (tcd_decoder_set_query_handler). */
struct tcs_session *tcs_session_connect(struct tcd_decoder *dec, const char *host, uint16_t port, uint32_t protocol,
                                        double retry_s, double handshake_s, const struct tcs_session_hooks *hooks,
                                        char *err, size_t errlen);
/* A session on a connection a client made from host:port (an accepted socket, which it owns
 * from now; closed when NULL is returned). */
struct tcs_session *tcs_session_accept(struct tcd_decoder *dec, int fd, const char *host, uint16_t port,
                                       double handshake_s, const struct tcs_session_hooks *hooks);
/* Closes the socket (if still open) and frees the session; the decoder stays the caller's. */
void tcs_session_free(struct tcs_session *s);

/* What to poll for: fills *p (fd -1 when there is nothing to poll, e.g. between two connect
 * attempts) and returns the milliseconds until the session must be handled anyway (a retry,
 * a deadline), -1 for none. */
int tcs_session_poll(const struct tcs_session *s, struct pollfd *p, double now);
/* Does what the poll result allows (revents may be 0: deadlines and retries are checked).
 * buf is scratch space for received bytes. */
void tcs_session_handle(struct tcs_session *s, short revents, double now, uint8_t *buf, size_t buflen);
/* Ends the session: a Terminate query goes out if it runs. why: the reason it ends. */
void tcs_session_stop(struct tcs_session *s, const char *why);
/* Whether it was stopped (or has ended): a capture asks it nothing more of its own. */
bool tcs_session_stopped(const struct tcs_session *s);

enum tcs_session_state tcs_session_state(const struct tcs_session *s);
/* An enum tcs_result once ENDED. */
int tcs_session_result(const struct tcs_session *s);
/* Why it ended ("" when complete). */
const char *tcs_session_why(const struct tcs_session *s);

/* ---- one capture, blocking --------------------------------------------------------------
 *
 *   struct tcs_options opt = { .address = "127.0.0.1", .port = 8086, .connect_timeout_s = 5 };
 *   char err[256];
 *   int rc = tcs_capture(&opt, dec, err, sizeof err);
 *
 * Runs one connect-mode session into dec (a fresh decoder) until it ends, polling it
 * (never blocking on a client that stops reading); tcd_decoder_version(dec) says which
 * protocol it settled on. err (may be NULL) receives why it ended, "" on TCS_COMPLETE. */
struct tcs_options {
    const char *address;        /* host name or numeric address; NULL = "127.0.0.1" */
    uint16_t port;              /* 0 = 8086 */
    double connect_timeout_s;   /* keep retrying the connect this long; <= 0: one attempt */
    double time_limit_s;        /* stop this long after tcs_capture began, the wait for the client
                                 * included; <= 0: no limit */
    double handshake_timeout_s; /* connected, give up (TCS_ERROR) on a peer that sends no welcome
                                 * this long: not a Tracy client, or one busy with another
                                 * server; <= 0: wait for it without limit */
    uint32_t protocol;          /* offer only this protocol version; 0: each, newest first */
    volatile int *stop_flag;    /* optional: set non-zero (e.g. from a signal handler) to stop */
    /* optional: called about every 100 ms while connected, and once at the end */
    void (*on_progress)(void *user, const struct tcd_stats *stats);
    /* optional: called once the client's welcome has arrived; non-zero ends the capture
     * there (a Terminate query is sent; TCS_ERROR, with the sentence it wrote in why) */
    int (*on_welcome)(void *user, const struct tcd_welcome *welcome, char *why, size_t whylen);
    void *user;
};

/* Runs one capture into dec. Returns an enum tcs_result. */
int tcs_capture(const struct tcs_options *opt, struct tcd_decoder *dec, char *err, size_t errlen);

#endif
