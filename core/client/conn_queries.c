/* conn_queries.c - answers to the server's queries, only ever from data this client
 * sent on the connection: an unknown identifier gets a placeholder. */
#include "client/conn.h"

#include "client/state.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <string.h>

static const char unknown_text[] = "?";

static void reply_string(struct tc_conn *c, uint8_t type, uint64_t id)
{
    const char *s = tc_conn_sent_string(c, id);
    if (!s)
        s = unknown_text;
    tc_enc_string_reply(&c->enc, type, id, s, strlen(s));
}

static void reply_srcloc(struct tc_conn *c, uint64_t id)
{
    const struct ___tracy_source_location_data *s = tc_conn_sent_srcloc(c, id);
    if (!s) {
        uint64_t q = tc_conn_string_id(c, unknown_text);
        tc_enc_srcloc_reply(&c->enc, 0, q, q, 0, 0);
        return;
    }
    uint64_t name = s->name && s->name[0] ? tc_conn_string_id(c, s->name) : 0;
    uint64_t function = tc_conn_string_id(c, s->function ? s->function : unknown_text);
    uint64_t file = tc_conn_string_id(c, s->file ? s->file : unknown_text);
    tc_enc_srcloc_reply(&c->enc, name, function, file, s->line, s->color);
}

static void answer(struct tc_conn *c, uint8_t type, uint64_t ptr, uint32_t extra)
{
    struct tc_encoder *e = &c->enc;
    switch (type) {
    case TCW_QUERY_TERMINATE:
    case TCW_QUERY_DISCONNECT:
        c->terminated = 1;
        break;
    case TCW_QUERY_STRING:
        reply_string(c, TCW_StringData, ptr);
        break;
    case TCW_QUERY_THREAD_STRING: {
        char name[256];
        size_t n = tc_names_get((uint32_t)ptr, name, sizeof name);
        tc_enc_string_reply(e, TCW_ThreadName, ptr, name, n);
        break;
    }
    case TCW_QUERY_SOURCE_LOCATION:
        reply_srcloc(c, ptr);
        break;
    case TCW_QUERY_PLOT_NAME:
        reply_string(c, TCW_PlotName, ptr);
        break;
    case TCW_QUERY_FRAME_NAME:
        reply_string(c, TCW_FrameName, ptr);
        break;
    case TCW_QUERY_FIBER_NAME:
        reply_string(c, TCW_FiberName, ptr);
        break;
    case TCW_QUERY_EXTERNAL_NAME:
        tc_enc_string_reply(e, TCW_ExternalThreadName, ptr, unknown_text, 1);
        tc_enc_string_reply(e, TCW_ExternalName, ptr, unknown_text, 1);
        break;
    case TCW_QUERY_CALLSTACK_FRAME: {
        if (tc_conn_answer_frame(c, type, ptr))
            break;
        /* Not a frame the program registered: answer with one unknown frame. */
        tc_enc_single_string(e, unknown_text, 1);
        uint8_t *p = tc_enc_item(e, 10);
        p[0] = TCW_CallstackFrameSize;
        memcpy(p + 1, &ptr, 8);
        p[9] = 1;
        tc_enc_single_string(e, unknown_text, 1);
        p = tc_enc_item(e, 3);
        p[0] = TCW_SecondStringData8;
        p[1] = 1;
        p[2] = '?';
        p = tc_enc_item(e, 17);
        memset(p, 0, 17);
        p[0] = TCW_CallstackFrame;
        break;
    }
    case TCW_QUERY_SYMBOL: {
        if (tc_conn_answer_frame(c, type, ptr))
            break;
        tc_enc_single_string(e, unknown_text, 1);
        uint8_t *p = tc_enc_item(e, 13);
        memset(p, 0, 13);
        p[0] = TCW_SymbolInformation;
        memcpy(p + 5, &ptr, 8);
        break;
    }
    case TCW_QUERY_SYMBOL_CODE:
        tc_enc_byte(e, TCW_AckSymbolCodeNotAvailable);
        break;
    case TCW_QUERY_SOURCE_CODE:
        tc_enc_source_unavailable(e, (uint32_t)ptr);
        break;
    default: /* Parameter, DataTransfer(Part), and codes this protocol does not define */
        (void)extra;
        tc_enc_byte(e, TCW_AckServerQueryNoop);
        break;
    }
}

int tc_conn_serve_queries(struct tc_conn *c, int timeout_ms)
{
    if (!c->alive)
        return -1;
    int answered = 0;
    uint8_t buf[13 * 64];
    for (;;) {
        long n = c->transport->recv(c->transport, buf, sizeof buf, answered ? 0 : timeout_ms);
        if (n < 0) {
            c->alive = 0;
            return -1;
        }
        if (n == 0)
            break;
        for (long i = 0; i < n; i++) {
            c->query[c->query_len++] = buf[i];
            if (c->query_len < TCW_QUERY_SIZE)
                continue;
            uint64_t ptr;
            uint32_t extra;
            memcpy(&ptr, c->query + 1, 8);
            memcpy(&extra, c->query + 9, 4);
            c->query_len = 0;
            answer(c, tcw_query_from_wire(c->query[0], c->enc.vi), ptr, extra);
            answered++;
        }
        timeout_ms = 0;
    }
    if (answered && tc_enc_flush(&c->enc) != 0)
        return -1;
    return answered;
}
