/* names.c - names as the outputs show them (names.h). */
#include "trace/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct tcd_srcloc *decoder_srcloc(const void *ctx, uint32_t index)
{
    return tcd_srcloc(ctx, index);
}
static const char *decoder_thread(const void *ctx, uint32_t id)
{
    return tcd_thread_name(ctx, id);
}
static const char *decoder_plot(const void *ctx, uint32_t id)
{
    return tcd_plot_name(ctx, id);
}
static const char *decoder_frame(const void *ctx, uint32_t id)
{
    return tcd_frame_name(ctx, id);
}
static const char *decoder_pool(const void *ctx, uint32_t id)
{
    return tcd_pool_name(ctx, id);
}
static const char *decoder_string(const void *ctx, uint32_t handle)
{
    return tcd_string(ctx, handle);
}
static const uint32_t *decoder_callstack(const void *ctx, uint32_t id, uint32_t *depth)
{
    return tcd_callstack(ctx, id, depth);
}
static const struct tcd_frame *decoder_callstack_frame(const void *ctx, uint32_t index)
{
    return tcd_frame(ctx, index);
}
static int decoder_symbol(const void *ctx, uint64_t symbol, const char **file, uint32_t *line)
{
    return tcd_symbol(ctx, symbol, file, line);
}
static const char *decoder_system_thread(const void *ctx, uint32_t thread)
{
    return tcd_external_thread_name(ctx, thread);
}
static uint64_t decoder_thread_pid(const void *ctx, uint32_t thread)
{
    return tcd_thread_pid(ctx, thread);
}

void tct_names_from_decoder(struct tct_names *out, const struct tcd_decoder *dec)
{
    *out = (struct tct_names){
        .ctx = dec,
        .srcloc = decoder_srcloc,
        .thread = decoder_thread,
        .plot = decoder_plot,
        .frame = decoder_frame,
        .pool = decoder_pool,
        .string = decoder_string,
        .callstack = decoder_callstack,
        .callstack_frame = decoder_callstack_frame,
        .symbol = decoder_symbol,
        .system_thread = decoder_system_thread,
        .thread_pid = decoder_thread_pid,
    };
    /* A decoder that failed during the handshake never had a welcome. */
    const struct tcd_welcome *w = tcd_decoder_welcome(dec);
    if (tcd_decoder_state(dec) != TCD_STATE_HANDSHAKE && w && w->timer_mul > 0)
        out->welcome = w;
}

const char *tct_srcloc_label(const struct tct_names *names, uint32_t srcloc)
{
    const struct tcd_srcloc *sl = names->srcloc(names->ctx, srcloc);
    if (!sl)
        return "";
    if (sl->name && sl->name[0])
        return sl->name;
    return sl->function ? sl->function : "";
}

const char *tct_text_or_string(const struct tct_names *names, const char *text, size_t text_len, uint32_t handle,
                               size_t *len)
{
    if (text && text_len && text[0]) {
        *len = text_len;
        return text;
    }
    const char *s = handle ? names->string(names->ctx, handle) : NULL;
    if (!s)
        s = text ? text : "";
    *len = s == text ? text_len : strlen(s);
    return s;
}

const char *tct_source_label(const struct tct_source *src, char buf[TCT_SOURCE_LABEL])
{
    const struct tcd_welcome *w = src->names.welcome;
    if (w)
        snprintf(buf, TCT_SOURCE_LABEL, "%.*s[%" PRIu64 "]", (int)strnlen(w->program_name, sizeof w->program_name),
                 w->program_name, w->pid);
    else
        snprintf(buf, TCT_SOURCE_LABEL, "client %" PRIu32, src->index + 1);
    return buf;
}

static uint64_t welcome_pid(const struct tct_trace *tr, uint32_t source)
{
    const struct tcd_welcome *w = tct_trace_source(tr, source)->names.welcome;
    return w ? w->pid : 0;
}

uint64_t tct_source_pid(const struct tct_trace *tr, uint32_t source)
{
    uint64_t pid = welcome_pid(tr, source);
    for (uint32_t i = 0; i < source; i++)
        if (welcome_pid(tr, i) == pid)
            return 0x80000000u + source;
    return pid;
}

const char *tct_source_process_name(const struct tct_trace *tr, uint32_t source, char buf[TCT_SOURCE_LABEL])
{
    const struct tct_source *src = tct_trace_source(tr, source);
    if (tct_trace_source_count(tr) > 1)
        return tct_source_label(src, buf);
    const struct tcd_welcome *w = src->names.welcome;
    snprintf(buf, TCT_SOURCE_LABEL, "%.*s", w ? (int)strnlen(w->program_name, sizeof w->program_name) : 0,
             w ? w->program_name : "");
    if (!buf[0])
        snprintf(buf, TCT_SOURCE_LABEL, "tracyc capture");
    return buf;
}
