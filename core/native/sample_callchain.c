/* sample_callchain.c - see sample_callchain.h. */
#include "native/sample_callchain.h"

#include "native/loader_stamp.h"
#include "util/bytes.h"

#include <link.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

struct code_range {
    uint64_t lo, hi;
};

struct tcn_sample_callchain {
    struct tcn_loader_stamp loader;
    struct code_range *v;
    size_t n, cap;
};

struct tcn_sample_callchain *tcn_sample_callchain_new(void)
{
    struct tcn_sample_callchain *c = calloc(1, sizeof *c);
    if (c)
        tcn_sample_callchain_sync(c);
    return c;
}

void tcn_sample_callchain_free(struct tcn_sample_callchain *c)
{
    if (!c)
        return;
    free(c->v);
    free(c);
}

static int add_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct tcn_sample_callchain *c = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            struct code_range *v = realloc(c->v, cap * sizeof *v);
            if (!v)
                return 1;
            c->v = v;
            c->cap = cap;
        }
        uint64_t lo = info->dlpi_addr + ph->p_vaddr;
        c->v[c->n++] = (struct code_range){lo, lo + ph->p_memsz};
    }
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct code_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void tcn_sample_callchain_sync(struct tcn_sample_callchain *c)
{
    if (!tcn_loader_changed(&c->loader))
        return;
    c->n = 0;
    dl_iterate_phdr(add_segments, c);
    qsort(c->v, c->n, sizeof *c->v, by_lo);
}

static int in_code(const struct tcn_sample_callchain *c, uint64_t address)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) { /* the first range starting after address */
        size_t mid = (lo + hi) / 2;
        if (c->v[mid].lo <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && address < c->v[lo - 1].hi;
}

int tcn_sample_callchain_frames(const struct tcn_sample_callchain *c, const uint8_t *ips, uint64_t nr, uint64_t *frames,
                                int max)
{
    int n = 0, user = 0;
    for (uint64_t i = 0; i < nr && n < max; i++) {
        uint64_t ip = tcu_rd64(ips + 8 * i);
        if (ip >= (uint64_t)PERF_CONTEXT_MAX) { /* a context marker */
            user = ip == (uint64_t)PERF_CONTEXT_USER;
            continue;
        }
        if (!user)
            continue;
        if (n == 0) {
            frames[n++] = ip; /* the interrupted instruction */
            continue;
        }
        /* A frame pointer that was no frame pointer: the rest is garbage. */
        if (!in_code(c, ip))
            break;
        frames[n++] = ip - 1;
    }
    return n;
}
