/* export.c - outputs: choosing a format, and writing its file whole or not at all. */
#include "trace/export.h"

#include "util/fd.h"
#include "util/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct tct_output {
    struct tct_trace *trace;
    const struct tct_format_ops *format;
    void *state;
    struct tct_export_options options;
    char *path; /* NULL for tct_output_new; "-": stdout */
};

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
    if (strcmp(path, "-") == 0)
        return TCT_FORMAT_SUMMARY;
    if (strcasecmp(ext, ".pftrace") == 0)
        return TCT_FORMAT_PFTRACE;
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
    if (tct_export_format_for(path) != TCT_FORMAT_UNSUPPORTED)
        return 0;
    const char *ext = extension(path);
    if (strcasecmp(ext, ".tracy") == 0)
        snprintf(err, errlen,
                 "%s: tracyc cannot write .tracy (the Tracy GUI's format): record it with upstream's "
                 "tracy-capture, or write .json and convert it with tracy-import-chrome",
                 path);
    else
        snprintf(err, errlen,
                 "%s: unknown output format '%s': tracyc writes .pftrace (Perfetto trace), .json (Chrome trace), "
                 ".csv (zone statistics), .folded (folded stacks), .svg (flame graph), .txt or no extension (summary)",
                 path, ext);
    return -1;
}

static const struct tct_format_ops *format_ops(enum tct_format format)
{
    switch (format) {
    case TCT_FORMAT_CHROME:
        return &tct_format_chrome;
    case TCT_FORMAT_CSV:
        return &tct_format_csv;
    case TCT_FORMAT_FOLDED:
        return &tct_format_folded;
    case TCT_FORMAT_SVG:
        return &tct_format_svg;
    case TCT_FORMAT_PFTRACE:
        return &tct_format_pftrace;
    default:
        return &tct_format_summary;
    }
}

struct tct_output *tct_output_new(struct tct_trace *tr, enum tct_format format, const struct tct_export_options *o)
{
    struct tct_output *out = calloc(1, sizeof *out);
    if (!out)
        return NULL;
    out->trace = tr;
    out->format = format_ops(format);
    if (o)
        out->options = *o;
    if (out->format->prepare(tr, &out->options, &out->state) != 0) {
        tct_output_free(out);
        return NULL;
    }
    return out;
}

/* Opens where the output goes: a new file beside path (its name in tmp, which has room
 * for path plus 32 bytes), renamed over path once complete, so that a program that dies on
 * the way (os._exit, SIGKILL) leaves no empty or truncated file and an existing one intact.
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

/* 0: an unnamed file can be made in path's directory; -1 with err set: it cannot (the
 * error); -1 with err "": the file system makes none, ask with a named one. */
static int check_unnamed(const char *path, char *err, size_t errlen)
{
    err[0] = '\0';
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) + (slash == path) : 1;
    char *dir = malloc(len + 1);
    if (!dir)
        return -1;
    memcpy(dir, slash ? path : ".", len);
    dir[len] = '\0';
    int fd = tcu_fd_open(dir, O_TMPFILE | O_WRONLY, 0600);
    int saved = errno;
    free(dir);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (saved != EOPNOTSUPP && saved != EISDIR && saved != EINVAL)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    return -1;
}

int tct_export_check_path(const char *path, char *err, size_t errlen)
{
    if (tct_export_check_format(path, err, errlen) != 0)
        return -1;
    if (strcmp(path, "-") == 0)
        return 0;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            errno = EISDIR;
        else if (access(path, W_OK) == 0) /* a device or a pipe: opening it could block */
            return 0;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* What access() says of the directory is not enough: root passes it everywhere, and
     * /proc takes no new file even from root. A file is made there: an unnamed one where the
     * file system can (O_TMPFILE), which nothing outlives, since the check may run on the
     * profiler's thread while another ends the process (os._exit) and leaves a named one. */
    if (check_unnamed(path, err, errlen) == 0)
        return 0;
    if (err[0])
        return -1;
    size_t tmplen = strlen(path) + 32;
    char *tmp = malloc(tmplen);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    FILE *out = open_output(path, tmp, tmplen);
    int saved = errno;
    if (out) {
        fclose(out);
        unlink(tmp);
    } else {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    }
    free(tmp);
    return out ? 0 : -1;
}

struct tct_output *tct_output_open(struct tct_trace *tr, const char *path, const struct tct_export_options *o,
                                   char *err, size_t errlen)
{
    if (tct_export_check_path(path, err, errlen) != 0)
        return NULL;
    struct tct_output *out = tct_output_new(tr, tct_export_format_for(path), o);
    if (out && !(out->path = strdup(path))) {
        tct_output_free(out);
        out = NULL;
    }
    if (!out)
        snprintf(err, errlen, "%s: out of memory", path);
    return out;
}

int tct_output_write_to(struct tct_output *output, FILE *out)
{
    if (!tct_trace_finished(output->trace)) {
        errno = EINVAL; /* an output is written from a finished trace only */
        return -1;
    }
    return output->format->write(out, output->trace, output->state, &output->options);
}

int tct_output_close(struct tct_output *output, char *err, size_t errlen)
{
    const char *path = output->path ? output->path : "-";
    int to_stdout = strcmp(path, "-") == 0;
    size_t tmplen = strlen(path) + 32;
    char *tmp = malloc(tmplen);
    FILE *out = !tmp ? NULL : to_stdout ? stdout : open_output(path, tmp, tmplen);
    if (!out) {
        snprintf(err, errlen, "cannot open %s for writing: %s", path, strerror(tmp ? errno : ENOMEM));
        free(tmp);
        tct_output_free(output);
        return -1;
    }
    int rc = tct_output_write_to(output, out);
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
    int kept = output->format->replays ? tct_trace_kept_error(output->trace) : 0;
    if (rc != 0 && kept) { /* the disk that filled is TMPDIR's, not (only) the output's */
        snprintf(err, errlen,
                 "cannot write %s: its events, kept in a temporary file in %s, could not all be stored there: %s", path,
                 tcu_tempfile_dir(), strerror(kept));
        errno = kept;
    } else if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", to_stdout ? "the summary" : path, strerror(saved ? saved : EIO));
        errno = saved ? saved : EIO;
    }
    tct_output_free(output);
    return rc;
}

void tct_output_free(struct tct_output *output)
{
    if (!output)
        return;
    if (output->format && output->format->free)
        output->format->free(output->state);
    free(output->path);
    free(output);
}
