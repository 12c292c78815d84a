/* api_message.c - messages and app info. */
#include "client/api.h"

static uint8_t severity_of(int8_t severity)
{
    return severity >= TracyMessageSeverityTrace && severity <= TracyMessageSeverityFatal
               ? (uint8_t)severity
               : (uint8_t)TracyMessageSeverityInfo;
}

/* Every public message function takes its callstack itself (TC_CAPTURE_CALLSTACK), so the
 * frames start at its caller. */
static void log_string(int8_t severity, int32_t color, size_t size, const char *txt, const uint64_t *frames, int n)
{
    if (!txt)
        return;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve_text_callstack(&t, TC_REC_MESSAGE, txt, &size, frames, n);
    if (!r)
        return;
    r->message.severity = severity_of(severity);
    r->message.color = (uint32_t)color & 0xffffff;
    r->message.time = tc_clock_now();
    tc_thread_commit(t);
}

static void log_literal(int8_t severity, int32_t color, const char *txt, const uint64_t *frames, int n)
{
    if (!txt)
        return;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve_callstack(&t, TC_REC_MESSAGE_LITERAL, 0, frames, n);
    if (!r)
        return;
    r->message_literal.severity = severity_of(severity);
    r->message_literal.color = (uint32_t)color & 0xffffff;
    r->message_literal.time = tc_clock_now();
    r->message_literal.text = txt;
    tc_thread_commit(t);
}

void ___tracy_emit_logString(int8_t severity, int32_t color, int32_t callstack_depth, size_t size, const char *txt)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_string(severity, color, size, txt, frames, n);
}

void ___tracy_emit_logStringL(int8_t severity, int32_t color, int32_t callstack_depth, const char *txt)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_literal(severity, color, txt, frames, n);
}

void ___tracy_emit_message_appinfo(const char *txt, size_t size)
{
    if (!txt)
        return;
    union tc_rec *r = tc_serial_reserve_text(TC_REC_APP_INFO, txt, size, 0);
    if (!r)
        return;
    r->app_info.time = tc_clock_now();
    tc_serial_commit();
}

/* Tracy 0.13 names, kept for existing bindings. */
void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_string(TracyMessageSeverityInfo, 0, size, txt, frames, n);
}

void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_literal(TracyMessageSeverityInfo, 0, txt, frames, n);
}

void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_string(TracyMessageSeverityInfo, (int32_t)color, size, txt, frames, n);
}

void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = txt ? TC_CAPTURE_CALLSTACK(frames, callstack_depth) : 0;
    log_literal(TracyMessageSeverityInfo, (int32_t)color, txt, frames, n);
}
