/* spill.c - an external merge sort of fixed-size records, with blobs beside (spill.h). */
#include "util/spill.h"
#include "util/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_BUFFER ((size_t)64 << 10) /* bytes read or written at a time per file */
#define MAX_RECORD 4096

struct run {
    uint64_t offset, count; /* where in the runs file, and how many records */
};

/* A run being read during a merge. */
struct reader {
    uint64_t offset, left; /* the next unread byte in the file, records not yet read */
    char *buf;
    size_t pos, len; /* bytes of buf used, and valid */
    uint32_t order;  /* position of its run: ties go to the earlier run */
};

/* A file of the spill's own: created on first need, unlinked at once. */
struct file {
    int fd;
    uint64_t size; /* bytes written, the buffer's included */
    char *buf;     /* writes gather here */
    size_t len;
};

struct tcu_spill {
    size_t size; /* of a record */
    int (*cmp)(const void *, const void *);
    int error;
    uint64_t added;

    /* records not yet in a run, and their order when sorted */
    char *records;
    uint32_t *order;
    size_t count, cap;
    struct file runs_file;
    struct run *runs;
    size_t run_count, run_cap;

    /* reading */
    int sorted;
    size_t next; /* in memory: the next index of order */
    struct reader *readers;
    size_t reader_count;
    uint32_t *heap; /* indices into readers, smallest record first */
    size_t heap_len;

    /* blobs: in memory up to the budget, then in blob_file */
    char *blobs;
    size_t blob_len, blob_cap, blob_budget;
    struct file blob_file;
    char *blob_scratch;
    size_t blob_scratch_cap;
};

static int fail(struct tcu_spill *s, int err)
{
    if (!s->error)
        s->error = err ? err : EIO;
    return -1;
}

/* ---- files ------------------------------------------------------------------------------- */

static int file_open(struct tcu_spill *s, struct file *f)
{
    if (f->fd > 0)
        return 0;
    int fd = tcu_tempfile();
    if (fd < 0)
        return fail(s, errno);
    f->buf = malloc(IO_BUFFER);
    if (!f->buf) {
        close(fd);
        return fail(s, ENOMEM);
    }
    f->fd = fd;
    return 0;
}

static int file_flush(struct tcu_spill *s, struct file *f)
{
    size_t done = 0;
    while (done < f->len) {
        ssize_t n = write(f->fd, f->buf + done, f->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(s, n < 0 ? errno : ENOSPC);
        done += (size_t)n;
    }
    f->len = 0;
    return 0;
}

static int file_write(struct tcu_spill *s, struct file *f, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        if (f->len == IO_BUFFER && file_flush(s, f) != 0)
            return -1;
        size_t n = IO_BUFFER - f->len < len ? IO_BUFFER - f->len : len;
        memcpy(f->buf + f->len, p, n);
        f->len += n;
        f->size += n;
        p += n;
        len -= n;
    }
    return 0;
}

/* Reads len bytes at offset, which file_flush has written. */
static int file_read(struct tcu_spill *s, struct file *f, uint64_t offset, void *out, size_t len)
{
    char *p = out;
    while (len) {
        ssize_t n = pread(f->fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(s, n < 0 ? errno : EIO);
        p += n;
        offset += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static void file_close(struct file *f)
{
    if (f->fd > 0)
        close(f->fd);
    free(f->buf);
    memset(f, 0, sizeof *f);
}

/* ---- adding --------------------------------------------------------------------------------- */

struct tcu_spill *tcu_spill_new(size_t record_size, int (*cmp)(const void *, const void *), size_t memory)
{
    if (!record_size || record_size > MAX_RECORD || !cmp)
        return NULL;
    struct tcu_spill *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!memory)
        memory = TCU_SPILL_MEMORY;
    s->size = record_size;
    s->cmp = cmp;
    s->cap = memory / (record_size + sizeof *s->order);
    if (s->cap < 2)
        s->cap = 2;
    if (s->cap > UINT32_MAX)
        s->cap = UINT32_MAX;
    s->blob_budget = memory;
    return s;
}

static int by_record(const void *a, const void *b, void *user)
{
    const struct tcu_spill *s = user;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    int c = s->cmp(s->records + (size_t)ia * s->size, s->records + (size_t)ib * s->size);
    if (c)
        return c;
    return ia < ib ? -1 : ia > ib; /* stable */
}

static void sort_in_memory(struct tcu_spill *s)
{
    for (size_t i = 0; i < s->count; i++)
        s->order[i] = (uint32_t)i;
    qsort_r(s->order, s->count, sizeof *s->order, by_record, s);
}

/* Writes the records in memory to the runs file as one sorted run. */
static int write_run(struct tcu_spill *s)
{
    struct run *grown = s->run_count == s->run_cap ? realloc(s->runs, (s->run_cap * 2 + 8) * sizeof *grown) : s->runs;
    if (!grown)
        return fail(s, ENOMEM);
    if (s->run_count == s->run_cap)
        s->run_cap = s->run_cap * 2 + 8;
    s->runs = grown;
    if (file_open(s, &s->runs_file) != 0)
        return -1;
    sort_in_memory(s);
    struct run *r = &s->runs[s->run_count];
    r->offset = s->runs_file.size;
    r->count = s->count;
    for (size_t i = 0; i < s->count; i++)
        if (file_write(s, &s->runs_file, s->records + (size_t)s->order[i] * s->size, s->size) != 0)
            return -1;
    s->run_count++;
    s->count = 0;
    return 0;
}

int tcu_spill_add(struct tcu_spill *s, const void *record)
{
    if (s->error || s->sorted)
        return fail(s, s->error ? s->error : EINVAL);
    if (!s->records) {
        s->records = malloc(s->cap * s->size);
        s->order = malloc(s->cap * sizeof *s->order);
        if (!s->records || !s->order)
            return fail(s, ENOMEM);
    }
    if (s->count == s->cap && write_run(s) != 0)
        return -1;
    memcpy(s->records + s->count * s->size, record, s->size);
    s->count++;
    s->added++;
    return 0;
}

/* ---- blobs ------------------------------------------------------------------------------------ */

int tcu_spill_put_blob(struct tcu_spill *s, const void *data, size_t len, uint64_t *ref)
{
    if (s->error)
        return -1;
    if (!len) { /* nothing to keep: any place will do */
        *ref = 0;
        return 0;
    }
    if (s->blob_file.fd <= 0 && s->blob_len + len <= s->blob_budget) {
        if (s->blob_len + len > s->blob_cap) {
            size_t cap = s->blob_cap ? s->blob_cap : 4096;
            while (cap < s->blob_len + len)
                cap *= 2;
            char *grown = realloc(s->blobs, cap);
            if (!grown)
                return fail(s, ENOMEM);
            s->blobs = grown;
            s->blob_cap = cap;
        }
        if (len)
            memcpy(s->blobs + s->blob_len, data, len);
        *ref = s->blob_len;
        s->blob_len += len;
        return 0;
    }
    if (s->blob_file.fd <= 0) { /* over the budget: what memory holds goes first */
        if (file_open(s, &s->blob_file) != 0 || file_write(s, &s->blob_file, s->blobs, s->blob_len) != 0)
            return -1;
        free(s->blobs);
        s->blobs = NULL;
        s->blob_cap = 0;
    }
    *ref = s->blob_file.size;
    return file_write(s, &s->blob_file, data, len);
}

const void *tcu_spill_get_blob(struct tcu_spill *s, uint64_t ref, size_t len)
{
    struct file *f = &s->blob_file;
    if (s->error || ref + len < ref)
        return NULL;
    if (!len)
        return "";
    if (f->fd <= 0)
        return ref + len <= s->blob_len ? s->blobs + ref : NULL;
    if (ref + len > f->size)
        return NULL;
    uint64_t buffered = f->size - f->len; /* where the unwritten buffer starts */
    if (ref >= buffered)
        return f->buf + (ref - buffered);
    if (len > s->blob_scratch_cap) {
        char *grown = realloc(s->blob_scratch, len);
        if (!grown) {
            fail(s, ENOMEM);
            return NULL;
        }
        s->blob_scratch = grown;
        s->blob_scratch_cap = len;
    }
    if (ref + len > buffered && file_flush(s, f) != 0)
        return NULL;
    return file_read(s, f, ref, s->blob_scratch, len) == 0 ? s->blob_scratch : NULL;
}

/* ---- reading ------------------------------------------------------------------------------- */

static int reader_fill(struct tcu_spill *s, struct reader *r)
{
    uint64_t bytes = r->left * s->size;
    size_t want = IO_BUFFER - IO_BUFFER % s->size;
    if (bytes < want)
        want = (size_t)bytes;
    if (file_read(s, &s->runs_file, r->offset, r->buf, want) != 0)
        return -1;
    r->offset += want;
    r->pos = 0;
    r->len = want;
    return 0;
}

static const char *reader_head(const struct reader *r)
{
    return r->buf + r->pos;
}

static int reader_less(const struct tcu_spill *s, const struct reader *a, const struct reader *b)
{
    int c = s->cmp(reader_head(a), reader_head(b));
    return c < 0 || (c == 0 && a->order < b->order);
}

static void heap_down(struct tcu_spill *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->heap_len && reader_less(s, &s->readers[s->heap[l]], &s->readers[s->heap[m]]))
            m = l;
        if (r < s->heap_len && reader_less(s, &s->readers[s->heap[r]], &s->readers[s->heap[m]]))
            m = r;
        if (m == i)
            return;
        uint32_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Starts merging runs [first, first + n). */
static int merge_start(struct tcu_spill *s, size_t first, size_t n)
{
    s->heap_len = 0;
    for (size_t i = 0; i < n; i++) {
        struct reader *r = &s->readers[i];
        r->offset = s->runs[first + i].offset;
        r->left = s->runs[first + i].count;
        r->order = (uint32_t)i;
        if (!r->left)
            continue;
        if (reader_fill(s, r) != 0)
            return -1;
        s->heap[s->heap_len++] = (uint32_t)i;
    }
    for (size_t i = s->heap_len / 2; i-- > 0;)
        heap_down(s, i);
    return 0;
}

/* The smallest head of the merge, taken out; NULL when every run is used up. */
static const void *merge_next(struct tcu_spill *s)
{
    if (!s->heap_len || s->error)
        return NULL;
    struct reader *r = &s->readers[s->heap[0]];
    const char *head = reader_head(r);
    /* Copied out (to the records buffer, idle while merging) before its buffer is refilled. */
    memcpy(s->records, head, s->size);
    r->pos += s->size;
    r->left--;
    if (!r->left)
        s->heap[0] = s->heap[--s->heap_len];
    else if (r->pos == r->len && reader_fill(s, r) != 0)
        return NULL;
    heap_down(s, 0);
    return s->records;
}

/* Merges groups of TCU_SPILL_FAN consecutive runs into one, in rounds, until at most
 * TCU_SPILL_FAN are left. Consecutive groups keep the order runs were written in, which
 * keeps the sort stable. */
static int merge_rounds(struct tcu_spill *s)
{
    while (s->run_count > TCU_SPILL_FAN) {
        size_t out = 0;
        for (size_t first = 0; first < s->run_count; first += TCU_SPILL_FAN) {
            size_t n = s->run_count - first < TCU_SPILL_FAN ? s->run_count - first : TCU_SPILL_FAN;
            struct run merged = {s->runs_file.size, 0};
            if (merge_start(s, first, n) != 0)
                return -1;
            for (const void *rec; (rec = merge_next(s));) {
                if (file_write(s, &s->runs_file, rec, s->size) != 0)
                    return -1;
                merged.count++;
            }
            if (s->error || file_flush(s, &s->runs_file) != 0)
                return -1;
            s->runs[out++] = merged;
        }
        s->run_count = out;
    }
    return 0;
}

int tcu_spill_sort(struct tcu_spill *s)
{
    if (s->error || s->sorted)
        return s->error ? -1 : 0;
    s->sorted = 1;
    if (!s->run_count) { /* everything fits in memory */
        if (s->count)
            sort_in_memory(s);
        s->next = 0;
        return 0;
    }
    if (s->count && write_run(s) != 0)
        return -1;
    if (file_flush(s, &s->runs_file) != 0)
        return -1;
    size_t fan = s->run_count < TCU_SPILL_FAN ? s->run_count : TCU_SPILL_FAN;
    s->readers = calloc(fan, sizeof *s->readers);
    s->heap = malloc(fan * sizeof *s->heap);
    if (!s->readers || !s->heap)
        return fail(s, ENOMEM);
    s->reader_count = fan;
    for (size_t i = 0; i < fan; i++)
        if (!(s->readers[i].buf = malloc(IO_BUFFER)))
            return fail(s, ENOMEM);
    if (merge_rounds(s) != 0)
        return -1;
    return merge_start(s, 0, s->run_count);
}

const void *tcu_spill_next(struct tcu_spill *s)
{
    if (!s->sorted || s->error)
        return NULL;
    if (!s->run_count)
        return s->next < s->count ? s->records + (size_t)s->order[s->next++] * s->size : NULL;
    return merge_next(s);
}

int tcu_spill_rewind(struct tcu_spill *s)
{
    if (!s->sorted || s->error)
        return fail(s, s->error ? s->error : EINVAL);
    if (!s->run_count) {
        s->next = 0;
        return 0;
    }
    return merge_start(s, 0, s->run_count);
}

uint64_t tcu_spill_count(const struct tcu_spill *s)
{
    return s->added;
}

int tcu_spill_error(const struct tcu_spill *s)
{
    return s->error;
}

size_t tcu_spill_memory(const struct tcu_spill *s)
{
    size_t bytes = (s->records ? s->cap * (s->size + sizeof *s->order) : 0) + s->blob_cap + s->blob_scratch_cap;
    if (s->runs_file.buf)
        bytes += IO_BUFFER;
    if (s->blob_file.buf)
        bytes += IO_BUFFER;
    bytes += s->reader_count * IO_BUFFER;
    return bytes;
}

void tcu_spill_free(struct tcu_spill *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->reader_count; i++)
        free(s->readers[i].buf);
    free(s->readers);
    free(s->heap);
    free(s->records);
    free(s->order);
    free(s->runs);
    file_close(&s->runs_file);
    file_close(&s->blob_file);
    free(s->blobs);
    free(s->blob_scratch);
    free(s);
}
