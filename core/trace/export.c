/* export.c - choosing an exporter, opening the output, and names from the decoder. */
#include "trace/export.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

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
    out->ctx = dec;
    out->srcloc = decoder_srcloc;
    out->thread = decoder_thread;
    out->plot = decoder_plot;
    out->frame = decoder_frame;
    out->pool = decoder_pool;
    out->string = decoder_string;
    out->callstack = decoder_callstack;
    out->callstack_frame = decoder_callstack_frame;
    out->symbol = decoder_symbol;
    out->system_thread = decoder_system_thread;
    out->thread_pid = decoder_thread_pid;
    out->welcome = NULL;
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

static const char *text_or_string(const struct tct_names *names, const char *text, uint32_t handle)
{
    if (text && text[0])
        return text;
    const char *s = handle ? names->string(names->ctx, handle) : NULL;
    return s ? s : text ? text : "";
}

const char *tct_message_text(const struct tct_names *names, const struct tct_message *m)
{
    return text_or_string(names, m->text, m->string);
}

const char *tct_crash_text(const struct tct_names *names, const struct tct_crash *crash)
{
    return text_or_string(names, crash->text, crash->string);
}

enum tct_format tct_export_format_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strchr(dot, '/') == NULL) {
        if (strcasecmp(dot, ".json") == 0)
            return TCT_FORMAT_CHROME;
        if (strcasecmp(dot, ".csv") == 0)
            return TCT_FORMAT_CSV;
        if (strcasecmp(dot, ".folded") == 0)
            return TCT_FORMAT_FOLDED;
        if (strcasecmp(dot, ".svg") == 0)
            return TCT_FORMAT_SVG;
    }
    return TCT_FORMAT_SUMMARY;
}

int64_t tct_export_last_time(const struct tct_trace *trace, const struct tct_names *names)
{
    int64_t last = trace->last_time;
    const struct tcd_welcome *w = names->welcome;
    if (w) {
        int64_t init_end = (int64_t)((double)(w->init_end - w->init_begin) * w->timer_mul);
        if (init_end > last)
            last = init_end;
    }
    return last;
}

int tct_export_to(FILE *out, enum tct_format format, const struct tct_trace *trace, const struct tct_names *names,
                  const struct tct_export_options *options)
{
    static const struct tct_export_options defaults;
    if (!options)
        options = &defaults;
    switch (format) {
    case TCT_FORMAT_CHROME:
        return tct_export_chrome(out, trace, names, options);
    case TCT_FORMAT_CSV:
        return tct_export_csv(out, trace, names, options);
    case TCT_FORMAT_FOLDED:
        return tct_export_folded(out, trace, names, options);
    case TCT_FORMAT_SVG:
        return tct_export_svg(out, trace, names, options);
    default:
        return tct_export_summary(out, trace, names, options);
    }
}

int tct_export_file(const struct tct_trace *trace, const struct tcd_decoder *dec, const char *path,
                    const struct tct_export_options *options, char *err, size_t errlen)
{
    if (!trace->finished) {
        snprintf(err, errlen, "internal error: the trace was exported before it was finished");
        return -1;
    }
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    int to_stdout = strcmp(path, "-") == 0;
    enum tct_format format = to_stdout ? TCT_FORMAT_SUMMARY : tct_export_format_for(path);
    FILE *out = to_stdout ? stdout : fopen(path, "w");
    if (!out) {
        snprintf(err, errlen, "cannot open %s for writing: %s", path, strerror(errno));
        return -1;
    }
    int rc = tct_export_to(out, format, trace, &names, options);
    int saved = errno;
    if (fflush(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (!to_stdout && fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", to_stdout ? "the summary" : path, strerror(saved ? saved : EIO));
    return rc;
}
