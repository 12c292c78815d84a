/* test_symbols_zero.c - a server may ask about address 0, as a frame (CallstackFrame) or as
 * a symbol (Symbol): "[unknown]", asked once or again, and freed with the rest of the
 * resolver's answers (util/map.h keeps key 0 apart from the table, where the resolver's
 * free did not look: LeakSanitizer found both answers leaked). */
#include "native/symbols.h"
#include "test_util.h"

#include <string.h>

int main(void)
{
    struct tcn_symbols *s = tcn_symbols_new();
    CHECK(s != NULL);
    for (int i = 0; s && i < 2; i++) {
        const struct tcn_symbol_location *loc = tcn_symbols_location(s, 0);
        CHECK(loc->count == 1 && strcmp(loc->frames[0].name, "[unknown]") == 0);
        const char *file = NULL;
        uint32_t line = 1;
        tcn_symbols_symbol(s, 0, &file, &line);
        CHECK(file && strcmp(file, "[unknown]") == 0 && line == 0);
    }
    tcn_symbols_free(s);
    return tt_finish("test_symbols_zero");
}
