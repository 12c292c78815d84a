/* unit_index.c - which unit of a module's DWARF holds an address (see unit_index.h). */
#include "native/unit_index.h"

#include "native/debug_cache.h"
#include "native/libdw.h"

#include <stdlib.h>
#include <string.h>

int tcn_unit_index_build(const struct tcn_libdw *dw, Dwarf *dbg, struct tcn_unit_index *ix)
{
    memset(ix, 0, sizeof *ix);
    Dwarf_Aranges *ranges;
    size_t n;
    if (dw->dwarf_getaranges(dbg, &ranges, &n) != 0 || n == 0)
        return -1;
    ix->runs = malloc(n * sizeof *ix->runs);
    if (!ix->runs)
        return -1;
    Dwarf_Off last_unit = 0;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Addr start;
        Dwarf_Word length;
        Dwarf_Off unit;
        if (dw->dwarf_getarangeinfo(dw->dwarf_onearange(ranges, i), &start, &length, &unit) != 0) {
            tcn_unit_index_free(ix);
            return -1;
        }
        /* A new run where the unit changes (libdwfl's runs: the little gaps between one unit's
         * ranges are that unit's). */
        if (i == 0 || unit != last_unit)
            ix->runs[ix->nruns++] = (struct tcn_unit_run){start, unit};
        last_unit = unit;
        if (i == n - 1)
            ix->last_end = start + length;
    }
    return 0;
}

int tcn_unit_index_find(const struct tcn_unit_index *ix, uint64_t addr, uint64_t *unit)
{
    /* libdwfl's search, step for step: among runs that start at the same address, it is the
     * one this search lands on that libdw answers with. */
    size_t l = 0, u = ix->nruns;
    while (l < u) {
        size_t idx = (l + u) / 2;
        uint64_t start = ix->runs[idx].start;
        if (addr < start) {
            u = idx;
            continue;
        }
        if (addr > start) {
            if (idx + 1 < ix->nruns) {
                if (addr >= ix->runs[idx + 1].start) {
                    l = idx + 1;
                    continue;
                }
            } else if (addr > ix->last_end) {
                break;
            }
        }
        *unit = ix->runs[idx].unit;
        return 1;
    }
    return 0;
}

/* The bytes: this header, then the runs. In this machine's byte order (the cache is the
 * machine's own). */
struct header {
    char magic[8];
    uint32_t order, zero;
    uint64_t dwarf, nruns, last_end, checksum;
};

static const char magic[8] = "TCNUNIT1";

void *tcn_unit_index_encode(const struct tcn_unit_index *ix, uint64_t dwarf, size_t *len)
{
    size_t runs = ix->nruns * sizeof *ix->runs;
    unsigned char *out = malloc(sizeof(struct header) + runs);
    if (!out)
        return NULL;
    struct header h = {{0}, 0, 0, dwarf, ix->nruns, ix->last_end, 0};
    tcn_debug_cache_mark(&h, magic);
    if (runs)
        memcpy(out + sizeof h, ix->runs, runs);
    h.checksum = tcn_debug_cache_checksum(out + sizeof h, runs);
    memcpy(out, &h, sizeof h);
    *len = sizeof h + runs;
    return out;
}

int tcn_unit_index_decode(void *data, size_t len, uint64_t dwarf, struct tcn_unit_index *ix)
{
    memset(ix, 0, sizeof *ix);
    struct header h;
    if (tcn_debug_cache_header(data, len, &h, sizeof h, magic) != 0)
        return -1;
    unsigned char *body = (unsigned char *)data + sizeof h;
    size_t left = len - sizeof h;
    if (h.dwarf != dwarf || h.nruns == 0 || h.nruns != left / sizeof *ix->runs || left % sizeof *ix->runs != 0 ||
        tcn_debug_cache_checksum(body, left) != h.checksum)
        return -1;
    struct tcn_unit_run *runs = (struct tcn_unit_run *)(void *)body; /* (after a 48-byte header: aligned) */
    for (size_t i = 1; i < h.nruns; i++)
        if (runs[i].start < runs[i - 1].start)
            return -1;
    ix->runs = runs;
    ix->nruns = (size_t)h.nruns;
    ix->last_end = h.last_end;
    ix->bytes = data;
    return 0;
}

void tcn_unit_index_free(struct tcn_unit_index *ix)
{
    free(ix->bytes ? ix->bytes : (void *)ix->runs);
    memset(ix, 0, sizeof *ix);
}
