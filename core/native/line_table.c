/* line_table.c - a compilation unit's line table, and its bytes (see line_table.h). */
#include "native/line_table.h"

#include "native/debug_cache.h"

#include <stdlib.h>
#include <string.h>

const struct tcn_line_row *tcn_line_table_find(const struct tcn_line_table *t, uint64_t addr)
{
    if (t->nrows == 0)
        return NULL;
    /* The last row at or below addr, unless it ends a sequence (dwfl_module_getsrc's search). */
    size_t l = 0, u = t->nrows - 1;
    while (l < u) {
        size_t idx = u - (u - l) / 2;
        if (addr < t->rows[idx].addr)
            u = idx - 1;
        else
            l = idx;
    }
    const struct tcn_line_row *row = &t->rows[l];
    return !(row->file & TCN_LINE_END_SEQUENCE) && row->addr <= addr ? row : NULL;
}

/* The bytes: this header, the rows, each file's offset in the names (NO_NAME: none), the
 * names. In this machine's byte order (the cache is the machine's own). */
struct header {
    char magic[8];
    uint32_t order, nfiles;
    uint64_t nrows, strings_len, unit, checksum;
};

static const char magic[8] = "TCNLINE1";
#define NO_NAME 0xffffffffu

void *tcn_line_table_encode(const struct tcn_line_table *t, uint64_t unit, size_t *len)
{
    size_t rows = t->nrows * sizeof *t->rows, offsets = (size_t)t->nfiles * sizeof(uint32_t);
    size_t size = sizeof(struct header) + rows + offsets + t->strings_len;
    if (t->strings_len >= NO_NAME)
        return NULL;
    unsigned char *out = malloc(size);
    if (!out)
        return NULL;
    struct header h = {{0}, 0, t->nfiles, t->nrows, t->strings_len, unit, 0};
    tcn_debug_cache_mark(&h, magic);
    unsigned char *body = out + sizeof h;
    if (rows)
        memcpy(body, t->rows, rows);
    for (uint32_t i = 0; i < t->nfiles; i++) {
        uint32_t at = t->files[i] ? (uint32_t)(t->files[i] - t->strings) : NO_NAME;
        memcpy(body + rows + (size_t)i * sizeof at, &at, sizeof at);
    }
    if (t->strings_len)
        memcpy(body + rows + offsets, t->strings, t->strings_len);
    h.checksum = tcn_debug_cache_checksum(body, size - sizeof h);
    memcpy(out, &h, sizeof h);
    *len = size;
    return out;
}

int tcn_line_table_decode(void *data, size_t len, uint64_t unit, struct tcn_line_table *t)
{
    memset(t, 0, sizeof *t);
    struct header h;
    if (tcn_debug_cache_header(data, len, &h, sizeof h, magic) != 0)
        return -1;
    unsigned char *body = (unsigned char *)data + sizeof h;
    size_t left = len - sizeof h;
    if (h.unit != unit || h.nrows > left / sizeof *t->rows || h.nfiles > TCN_LINE_NO_FILE ||
        (uint64_t)h.nfiles * sizeof(uint32_t) > left - h.nrows * sizeof *t->rows ||
        h.strings_len != left - h.nrows * sizeof *t->rows - (uint64_t)h.nfiles * sizeof(uint32_t) ||
        (h.strings_len && body[left - 1] != 0) || tcn_debug_cache_checksum(body, left) != h.checksum)
        return -1;
    size_t rows = (size_t)h.nrows * sizeof *t->rows, offsets = (size_t)h.nfiles * sizeof(uint32_t);
    t->files = malloc(h.nfiles ? h.nfiles * sizeof *t->files : 1);
    if (!t->files)
        return -1;
    t->rows = (struct tcn_line_row *)(void *)body; /* (after a 48-byte header: aligned) */
    t->strings = (char *)body + rows + offsets;
    t->nrows = (size_t)h.nrows;
    t->nfiles = h.nfiles;
    t->strings_len = (size_t)h.strings_len;
    for (uint32_t i = 0; i < h.nfiles; i++) {
        uint32_t at;
        memcpy(&at, body + rows + (size_t)i * sizeof at, sizeof at);
        if (at != NO_NAME && at >= h.strings_len)
            goto bad;
        t->files[i] = at == NO_NAME ? NULL : t->strings + at; /* (the names end with a 0) */
    }
    /* In libdw's order, each naming a file there is, the last ending a sequence. */
    for (size_t i = 0; i < t->nrows; i++) {
        uint32_t file = t->rows[i].file & ~TCN_LINE_END_SEQUENCE;
        if ((i && t->rows[i].addr < t->rows[i - 1].addr) || (file != TCN_LINE_NO_FILE && file >= t->nfiles))
            goto bad;
    }
    if (t->nrows && !(t->rows[t->nrows - 1].file & TCN_LINE_END_SEQUENCE))
        goto bad;
    t->bytes = data;
    t->bytes_len = len;
    return 0;
bad:
    free(t->files);
    memset(t, 0, sizeof *t);
    return -1;
}

void tcn_line_table_free(struct tcn_line_table *t)
{
    free(t->files);
    if (t->bytes) {
        free(t->bytes);
    } else {
        free(t->rows);
        free(t->strings);
    }
    memset(t, 0, sizeof *t);
}
