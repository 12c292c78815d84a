/* single.c - tcs_capture(): one connect-mode session run to its end, blocking (session.h). */
#include "capture/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/sockets.h"

#define RECV_CHUNK (256 * 1024)
#define PROGRESS_S 0.1

static void progress(const struct tcs_options *opt, const struct tcd_decoder *dec)
{
    if (!opt->on_progress)
        return;
    struct tcd_stats st;
    tcd_decoder_stats(dec, &st);
    opt->on_progress(opt->user, &st);
}

static int on_welcome(void *user, struct tcs_session *s, const struct tcd_welcome *w, char *why, size_t whylen)
{
    (void)s;
    const struct tcs_options *opt = user;
    return opt->on_welcome ? opt->on_welcome(opt->user, w, why, whylen) : 0;
}

static void set_err(char *err, size_t errlen, const char *text)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", text);
}

int tcs_capture(const struct tcs_options *opt, struct tcd_decoder *dec, char *err, size_t errlen)
{
    const char *address = opt->address ? opt->address : "127.0.0.1";
    uint16_t port = opt->port ? opt->port : 8086;
    double start = tcs_now_s();
    double end = opt->time_limit_s > 0 ? start + opt->time_limit_s : 0;
    double retry = opt->connect_timeout_s > 0 ? opt->connect_timeout_s : 0;
    if (end > 0 && retry >= opt->time_limit_s)
        retry = opt->time_limit_s + 1; /* the time limit ends the wait, and says so */
    uint8_t *buf = malloc(RECV_CHUNK);
    char why[512] = "out of memory";
    const struct tcs_session_hooks hooks = {on_welcome, (void *)opt};
    struct tcs_session *s = buf ? tcs_session_connect(dec, address, port, opt->protocol, retry,
                                                      opt->handshake_timeout_s, &hooks, why, sizeof why)
                                : NULL;
    if (!s) {
        set_err(err, errlen, why);
        free(buf);
        return TCS_ERROR;
    }
    double last_progress = start;
    int connected = 0, stopped = 0;
    while (tcs_session_state(s) != TCS_SESSION_ENDED) {
        double now = tcs_now_s();
        int stop = opt->stop_flag && __atomic_load_n(opt->stop_flag, __ATOMIC_RELAXED);
        if ((stop || (end > 0 && now >= end)) && !stopped) {
            if (tcs_session_state(s) == TCS_SESSION_CONNECTING && !stop)
                snprintf(why, sizeof why, "no client connected to %s port %u within the time limit of %g s", address,
                         port, opt->time_limit_s);
            else if (tcs_session_state(s) == TCS_SESSION_CONNECTING)
                snprintf(why, sizeof why, "stopped before a client connected");
            else
                snprintf(why, sizeof why, stop ? "stopped by the user" : "time limit of %g s reached",
                         opt->time_limit_s);
            tcs_session_stop(s, why); /* it may run on a moment for the answers it awaits */
            stopped = 1;
            continue;
        }
        struct pollfd p;
        int wait = tcs_session_poll(s, &p, now);
        if (wait < 0 || wait > 100)
            wait = 100; /* the stop flag and the time limit are looked at this often */
        int r = poll(&p, p.fd >= 0 ? 1 : 0, wait);
        if (r < 0 && errno != EINTR) {
            snprintf(why, sizeof why, "poll: %s", strerror(errno));
            tcs_session_free(s);
            set_err(err, errlen, why);
            free(buf);
            return TCS_ERROR;
        }
        tcs_session_handle(s, r > 0 ? p.revents : 0, tcs_now_s(), buf, RECV_CHUNK);
        if (tcs_session_state(s) == TCS_SESSION_RUNNING) {
            connected = 1;
            if (tcs_now_s() - last_progress >= PROGRESS_S) {
                last_progress = tcs_now_s();
                progress(opt, dec);
            }
        }
    }
    if (connected)
        progress(opt, dec);
    int rc = tcs_session_result(s);
    set_err(err, errlen, rc == TCS_COMPLETE ? "" : tcs_session_why(s));
    tcs_session_free(s);
    free(buf);
    return rc;
}
