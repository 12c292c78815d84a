/* serve_queries.c - the server's queries answered for the process each id belongs to.
 *
 * An answer is given only once it is final: the process's client has answered its own
 * decoder about that id (tcd_name_settled), or has gone. Until then the query waits, and
 * those after it too: the server matches SourceLocation replies to its queries by order
 * alone. An id the proxy never gave (a confused or hostile server) gets "?", as a tracyc
 * client answers one (docs/protocol.md §6.2): every query gets its one reply.
 */
#include "capture/serve_internal.h"

#include <stdio.h>
#include <string.h>

#include "decode/decode.h"
#include "wire/protocol.h"
#include "wire/versions.h"

static const char unknown[] = "?";
static const char unknown_place[] = "[unknown]";

/* The source of an id, NULL when the proxy never gave one with it. */
static const struct tct_source *source_of(const struct tcs_serve *s, uint32_t source)
{
    return source < tct_trace_source_count(s->trace) ? tct_trace_source(s->trace, source) : NULL;
}

static const struct tcs_client *client_of(const struct tcs_serve *s, uint32_t source)
{
    size_t n = s->collector ? tcs_collector_client_count(s->collector) : 0;
    for (size_t i = 0; i < n; i++) {
        const struct tcs_client *c = tcs_collector_client(s->collector, i);
        if (c->source >= 0 && (uint32_t)c->source == source)
            return c;
    }
    return NULL;
}

static int settled(const struct tcs_serve *s, uint32_t source, enum tcd_name_kind kind, uint64_t id)
{
    const struct tcs_client *c = client_of(s, source);
    return !c || !c->dec || c->state == TCS_SESSION_ENDED || tcd_name_settled(c->dec, kind, id);
}

/* Whether the answer to q is known. */
static int ready(const struct tcs_serve *s, const struct serve_query *q)
{
    uint32_t source = SERVE_SOURCE(q->ptr), local = SERVE_LOCAL(q->ptr);
    switch (q->type) {
    case TCW_QUERY_STRING:
    case TCW_QUERY_PLOT_NAME:
    case TCW_QUERY_FRAME_NAME:
    case TCW_QUERY_SOURCE_LOCATION:
    case TCW_QUERY_CALLSTACK_FRAME:
        switch (SERVE_KIND(q->ptr)) {
        case SK_SRCLOC:
        case SK_SRCLOC_NAME:
        case SK_SRCLOC_FUNCTION:
        case SK_SRCLOC_FILE:
            return settled(s, source, TCD_NAME_SRCLOC, local);
        case SK_STRING:
            return settled(s, source, TCD_NAME_STRING, local);
        case SK_PLOT:
            return settled(s, source, TCD_NAME_PLOT, local);
        case SK_FRAME_SET:
            return settled(s, source, TCD_NAME_FRAME_SET, local);
        case SK_POOL:
            return settled(s, source, TCD_NAME_POOL, local);
        case SK_FRAME:
            return settled(s, source, TCD_NAME_FRAME, local);
        default:
            return 1;
        }
    case TCW_QUERY_THREAD_STRING: {
        const struct serve_thread *t = q->ptr <= UINT32_MAX ? serve_thread_by_tid(s, (uint32_t)q->ptr) : NULL;
        return !t || settled(s, t->source, TCD_NAME_THREAD, t->id);
    }
    case TCW_QUERY_SYMBOL: {
        uint64_t index = q->ptr & 0xffffffffu;
        if (SERVE_KIND(q->ptr) != SK_SYMBOL || index >= s->symbol_count)
            return 1;
        return settled(s, s->symbols[index].source, TCD_NAME_SYMBOL, s->symbols[index].address);
    }
    default:
        return 1;
    }
}

/* "program[pid] what" into buf. */
static const char *labelled(struct tcs_serve *s, uint32_t source, const char *what, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s", serve_label(s, source), what);
    return buf;
}

/* The text behind a string id of the proxy's. */
static const char *id_text(struct tcs_serve *s, uint64_t id, char *buf, size_t cap)
{
    uint32_t source = SERVE_SOURCE(id), local = SERVE_LOCAL(id);
    const struct tct_source *src = source_of(s, source);
    if (!src)
        return unknown;
    const struct tct_names *n = &src->names;
    switch (SERVE_KIND(id)) {
    case SK_SRCLOC_NAME:
        return n->srcloc(n->ctx, local)->name;
    case SK_SRCLOC_FUNCTION:
        return n->srcloc(n->ctx, local)->function;
    case SK_SRCLOC_FILE:
        return n->srcloc(n->ctx, local)->file;
    case SK_STRING:
        return n->string(n->ctx, local);
    case SK_PLOT:
        return labelled(s, source, n->plot(n->ctx, local), buf, cap);
    case SK_FRAME_SET:
        return labelled(s, source, n->frame(n->ctx, local), buf, cap);
    case SK_POOL:
        return local ? labelled(s, source, n->pool(n->ctx, local), buf, cap) : serve_label(s, source);
    default:
        return unknown;
    }
}

static void reply_text(struct tcs_serve *s, uint8_t type, uint64_t id, const char *text)
{
    size_t len = strlen(text);
    tcw_enc_string_reply(&s->enc, type, id, text, len > TCW_MAX_STRING ? TCW_MAX_STRING : len);
}

static void reply_srcloc(struct tcs_serve *s, uint64_t id)
{
    uint32_t source = SERVE_SOURCE(id), local = SERVE_LOCAL(id);
    const struct tct_source *src = SERVE_KIND(id) == SK_SRCLOC ? source_of(s, source) : NULL;
    if (!src) {
        /* A string id of ours that says "?" (no process has index 0xffffff). */
        uint64_t q = SERVE_ID(SK_STRING, SERVE_MAX_SOURCES, 0);
        tcw_enc_srcloc_reply(&s->enc, 0, q, q, 0, 0);
        return;
    }
    const struct tcd_srcloc *sl = src->names.srcloc(src->names.ctx, local);
    tcw_enc_srcloc_reply(&s->enc, sl->name[0] ? SERVE_ID(SK_SRCLOC_NAME, source, local) : 0,
                         SERVE_ID(SK_SRCLOC_FUNCTION, source, local), SERVE_ID(SK_SRCLOC_FILE, source, local), sl->line,
                         sl->color);
}

static size_t fit(const char *s)
{
    size_t n = strlen(s);
    return n > TCW_MAX_STRING ? TCW_MAX_STRING : n;
}

/* A frame as its process's client resolved it; one "[unknown]" when it did not. */
static void reply_frame(struct tcs_serve *s, uint64_t id)
{
    uint32_t source = SERVE_SOURCE(id);
    const struct tct_source *src = SERVE_KIND(id) == SK_FRAME ? source_of(s, source) : NULL;
    const struct tcd_frame *f =
        src && src->names.callstack_frame ? src->names.callstack_frame(src->names.ctx, SERVE_LOCAL(id)) : NULL;
    if (!f || f->count == 0) {
        const char *image = f ? f->image : "";
        tcw_enc_callstack_frame_size(&s->enc, id, 1, image, fit(image));
        tcw_enc_callstack_frame(&s->enc, unknown_place, sizeof unknown_place - 1, unknown_place,
                                sizeof unknown_place - 1, 0, 0, 0);
        return;
    }
    uint8_t count = f->count > 255 ? 255 : (uint8_t)f->count;
    tcw_enc_callstack_frame_size(&s->enc, id, count, f->image, fit(f->image));
    for (uint8_t i = 0; i < count; i++) {
        const struct tcd_subframe *sub = &f->sub[i];
        tcw_enc_callstack_frame(&s->enc, sub->function, fit(sub->function), sub->file, fit(sub->file), sub->line,
                                serve_symbol(s, source, sub->symbol), 0);
    }
}

static void reply_symbol(struct tcs_serve *s, uint64_t id)
{
    uint64_t index = id & 0xffffffffu;
    const char *file = unknown_place;
    uint32_t line = 0;
    if (SERVE_KIND(id) == SK_SYMBOL && index < s->symbol_count) {
        const struct serve_symbol *sym = &s->symbols[index];
        const struct tct_source *src = source_of(s, sym->source);
        if (src && src->names.symbol && !src->names.symbol(src->names.ctx, sym->address, &file, &line)) {
            file = unknown_place;
            line = 0;
        }
    }
    tcw_enc_symbol_information(&s->enc, id, file, fit(file), line);
}

static void reply_thread(struct tcs_serve *s, uint64_t tid)
{
    const struct serve_thread *t = tid <= UINT32_MAX ? serve_thread_by_tid(s, (uint32_t)tid) : NULL;
    const struct tct_source *src = t ? source_of(s, t->source) : NULL;
    char buf[TCT_SOURCE_LABEL + 16 + 300];
    const char *name = unknown;
    if (src)
        name = labelled(s, t->source, src->names.thread(src->names.ctx, t->id), buf, sizeof buf);
    reply_text(s, TCW_ThreadName, tid, name);
}

/* One query answered; 1 when it was the server's Terminate. */
static int answer(struct tcs_serve *s, const struct serve_query *q)
{
    char buf[TCT_SOURCE_LABEL + 16 + 300];
    switch (q->type) {
    case TCW_QUERY_TERMINATE:
    case TCW_QUERY_DISCONNECT:
        return 1;
    case TCW_QUERY_STRING:
        reply_text(s, TCW_StringData, q->ptr, id_text(s, q->ptr, buf, sizeof buf));
        break;
    case TCW_QUERY_PLOT_NAME:
        reply_text(s, TCW_PlotName, q->ptr, id_text(s, q->ptr, buf, sizeof buf));
        break;
    case TCW_QUERY_FRAME_NAME:
        reply_text(s, TCW_FrameName, q->ptr, id_text(s, q->ptr, buf, sizeof buf));
        break;
    case TCW_QUERY_FIBER_NAME: /* the proxy sends no fibers: each is a thread of its own */
        reply_text(s, TCW_FiberName, q->ptr, unknown);
        break;
    case TCW_QUERY_THREAD_STRING:
        reply_thread(s, q->ptr);
        break;
    case TCW_QUERY_SOURCE_LOCATION:
        reply_srcloc(s, q->ptr);
        break;
    case TCW_QUERY_CALLSTACK_FRAME:
        reply_frame(s, q->ptr);
        break;
    case TCW_QUERY_SYMBOL:
        reply_symbol(s, q->ptr);
        break;
    case TCW_QUERY_EXTERNAL_NAME: /* the proxy sends no context switches */
        reply_text(s, TCW_ExternalThreadName, q->ptr, unknown);
        reply_text(s, TCW_ExternalName, q->ptr, unknown);
        break;
    case TCW_QUERY_SYMBOL_CODE:
        tcw_enc_byte(&s->enc, TCW_AckSymbolCodeNotAvailable);
        break;
    case TCW_QUERY_SOURCE_CODE:
        tcw_enc_source_unavailable(&s->enc, (uint32_t)q->ptr);
        break;
    default: /* Parameter, DataTransfer(Part), codes without a meaning */
        tcw_enc_byte(&s->enc, TCW_AckServerQueryNoop);
        break;
    }
    return 0;
}

int serve_answer(struct tcs_serve *s)
{
    if (!s->enc_ready || !s->welcome_sent)
        return 0;
    while (s->query_head < s->query_count) {
        const struct serve_query q = s->queries[s->query_head];
        if (!ready(s, &q))
            break;
        s->query_head++;
        if (answer(s, &q))
            return 1;
    }
    if (s->query_head == s->query_count)
        s->query_head = s->query_count = 0;
    return 0;
}
