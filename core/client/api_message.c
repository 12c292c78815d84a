/* api_message.c - messages and app info. */
#include "client/api.h"

#include <string.h>

static uint8_t severity_of(int8_t severity)
{
    return severity >= TracyMessageSeverityTrace && severity <= TracyMessageSeverityFatal
               ? (uint8_t)severity
               : (uint8_t)TracyMessageSeverityInfo;
}

void ___tracy_emit_logString(int8_t severity, int32_t color, int32_t callstack_depth, size_t size, const char *txt)
{
    (void)callstack_depth;
    if (!txt)
        return;
    tc_emit_text(TC_REC_MESSAGE, txt, size, severity_of(severity), (uint32_t)color & 0xffffff, 1);
}

void ___tracy_emit_logStringL(int8_t severity, int32_t color, int32_t callstack_depth, const char *txt)
{
    (void)callstack_depth;
    if (!txt)
        return;
    struct tc_thread *t;
    struct tc_rec *r = tc_thread_reserve(&t, TC_REC_MESSAGE_LITERAL, 0, 0);
    if (!r)
        return;
    r->u8 = severity_of(severity);
    r->u32 = (uint32_t)color & 0xffffff;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = (uint64_t)(uintptr_t)txt;
    tc_thread_commit(t);
}

void ___tracy_emit_message_appinfo(const char *txt, size_t size)
{
    if (!txt)
        return;
    size = tc_text_fit(txt, size, TC_MAX_TEXT);
    struct tc_rec *r = tc_serial_reserve(TC_REC_APP_INFO, size, 0);
    if (!r)
        return;
    r->w[0] = (uint64_t)tc_clock_now();
    memcpy((char *)tc_rec_text(r), txt, size);
    tc_serial_commit();
}

/* Tracy 0.13 names, kept for existing bindings. */
void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, callstack_depth, size, txt);
}

void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth)
{
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, callstack_depth, txt);
}

void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, (int32_t)color, callstack_depth, size, txt);
}

void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth)
{
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, (int32_t)color, callstack_depth, txt);
}
