/* test_symbols.c - see test_symbols.h. */
#include "test_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tt_resolve_text(struct tcn_symbols *s, uint64_t low, uint64_t high, int count, int nudge, int *with_lines)
{
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    *with_lines = 0;
    for (int i = 0; s && out && i < count; i++) {
        uint64_t address = low + (high - low) / (uint64_t)count * (uint64_t)i + (uint64_t)(i % nudge);
        const struct tcn_symbol_location *loc = tcn_symbols_location(s, address);
        for (int f = 0; f < loc->count; f++) {
            const struct tcn_symbol_frame *fr = &loc->frames[f];
            if (cap - len < 1024) {
                char *grown = realloc(out, cap *= 2);
                if (!grown) {
                    free(out);
                    return NULL;
                }
                out = grown;
            }
            len += (size_t)snprintf(out + len, cap - len, "%" PRIx64 " %s %d/%d %s %s:%u %" PRIx64 "+%u\n", address,
                                    loc->image, f, loc->count, fr->name, fr->file, fr->line, fr->sym_addr, fr->sym_len);
            *with_lines += fr->line > 0 && strcmp(fr->file, "[unknown]") != 0;
        }
    }
    if (out && !len)
        out[0] = 0;
    return out;
}
