/* export.c - choosing an exporter, opening the output, and names from the decoder. */
#include "trace/export.h"

#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The extension of path's last component ("" when it has none; a leading dot, as in
 * ".profile", starts a name, not an extension). */
static const char *extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

enum tct_format tct_export_format_for(const char *path)
{
    const char *ext = extension(path);
    if (strcasecmp(ext, ".json") == 0)
        return TCT_FORMAT_CHROME;
    if (strcasecmp(ext, ".csv") == 0)
        return TCT_FORMAT_CSV;
    if (strcasecmp(ext, ".folded") == 0)
        return TCT_FORMAT_FOLDED;
    if (strcasecmp(ext, ".svg") == 0)
        return TCT_FORMAT_SVG;
    if (!*ext || strcasecmp(ext, ".txt") == 0)
        return TCT_FORMAT_SUMMARY;
    return TCT_FORMAT_UNSUPPORTED;
}

int tct_export_check_format(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0 || tct_export_format_for(path) != TCT_FORMAT_UNSUPPORTED)
        return 0;
    const char *ext = extension(path);
    if (strcasecmp(ext, ".tracy") == 0)
        snprintf(err, errlen,
                 "%s: tracyc cannot write .tracy (the Tracy GUI's format): record it with upstream's "
                 "tracy-capture, or write .json and convert it with tracy-import-chrome",
                 path);
    else
        snprintf(err, errlen,
                 "%s: unknown output format '%s': tracyc writes .json (Chrome trace), .csv (zone statistics), "
                 ".folded (folded stacks), .svg (flame graph), .txt or no extension (summary)",
                 path, ext);
    return -1;
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

/* Opens where the export goes: a new file beside path (its name in tmp, which has room for
 * path plus 32 bytes), renamed over path once complete, so that a program that dies on the
 * way (os._exit, SIGKILL) leaves no empty or truncated file and an existing one intact.
 * What cannot be replaced that way (/dev/stdout, a pipe) is written directly, tmp "". */
static FILE *open_output(const char *path, char *tmp, size_t tmplen)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    tmp[0] = '\0';
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = tcu_fd_open(path, O_WRONLY | O_TRUNC, 0);
        FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!out && fd >= 0)
            close(fd);
        return out;
    }
    mode_t mode = exists ? st.st_mode & 07777 : 0666; /* a new file: 0666 less the umask, as fopen */
    for (unsigned serial = 0; serial < 100; serial++) {
        snprintf(tmp, tmplen, "%s.%ld-%u.tmp", path, (long)getpid(), serial);
        int fd = tcu_fd_open(tmp, O_WRONLY | O_CREAT | O_EXCL, (int)mode);
        if (fd >= 0) {
            if (exists)
                fchmod(fd, mode); /* keep the replaced file's permissions, umask or not */
            FILE *out = fdopen(fd, "w");
            if (!out) {
                close(fd);
                unlink(tmp);
            }
            return out;
        }
        if (errno != EEXIST)
            break;
    }
    tmp[0] = '\0';
    return NULL;
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
    if (tct_export_check_format(path, err, errlen) != 0)
        return -1;
    int to_stdout = strcmp(path, "-") == 0;
    enum tct_format format = to_stdout ? TCT_FORMAT_SUMMARY : tct_export_format_for(path);
    size_t tmplen = strlen(path) + 32;
    char *tmp = malloc(tmplen);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    FILE *out = to_stdout ? stdout : open_output(path, tmp, tmplen);
    if (!out) {
        snprintf(err, errlen, "cannot open %s for writing: %s", path, strerror(errno));
        free(tmp);
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
    if (!to_stdout && tmp[0]) {
        if (rc == 0 && rename(tmp, path) != 0) {
            rc = -1;
            saved = errno;
        }
        if (rc != 0)
            unlink(tmp);
    }
    free(tmp);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", to_stdout ? "the summary" : path, strerror(saved ? saved : EIO));
        errno = saved ? saved : EIO;
    }
    return rc;
}
