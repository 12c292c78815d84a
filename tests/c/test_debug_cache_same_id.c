/* test_debug_cache_same_id.c - two libraries with one build ID and different DWARF (other
 * units at other offsets: a debug package's DWARF compressed by dwz and the build tree's
 * are such a pair) each resolve with the debug cache as without it, in either order and
 * again: what the cache keeps of one module's DWARF (its index of units, its units' scopes
 * and line tables, named by the build ID) is not taken for the other's. */
#include "native/debug_cache.h"
#include "native/symbols.h"
#include "test_symbols.h"
#include "test_util.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct code {
    const char *path;
    uint64_t low, high;
};

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct code *c = arg;
    if (strcmp(info->dlpi_name, c->path) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            c->low = info->dlpi_addr + ph->p_vaddr;
            c->high = c->low + ph->p_memsz;
        }
    }
    return 1;
}

/* Every address of the library's code resolved by a resolver of its own, as a process would. */
static char *resolve(const struct code *c, int *with_lines)
{
    struct tcn_symbols *s = tcn_symbols_new();
    char *out = tt_resolve_text(s, c->low, c->high, (int)(c->high - c->low), 1, with_lines);
    tcn_symbols_free(s);
    return out;
}

int main(void)
{
    struct code a = {getenv("SAME_ID_A"), 0, 0}, b = {getenv("SAME_ID_B"), 0, 0};
    CHECK(a.path && b.path && dlopen(a.path, RTLD_NOW) && dlopen(b.path, RTLD_NOW));
    dl_iterate_phdr(find_code, &a);
    dl_iterate_phdr(find_code, &b);
    CHECK(a.high > a.low && b.high > b.low);

    int lines_a, lines_b, again;
    tcn_debug_cache_configure(NULL, 0);
    char *plain_a = resolve(&a, &lines_a), *plain_b = resolve(&b, &lines_b);
    CHECK(plain_a && plain_b && lines_a > 0 && lines_b > 0); /* their DWARF was read */
    CHECK(strstr(plain_a, "same_id_work ") && strstr(plain_a, "same_id_lib.c:"));
    CHECK(strstr(plain_b, "same_id_extra ") && strstr(plain_b, "same_id_extra.c:") &&
          !strstr(plain_a, "same_id_extra"));

    char root[PATH_MAX];
    tt_temp_path(root, sizeof root, "tracyc-same-id-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    tcn_debug_cache_configure(root, (size_t)1 << 30);
    for (int round = 0; round < 2; round++) {
        char *cached_a = resolve(&a, &again);
        CHECK(cached_a && strcmp(cached_a, plain_a) == 0);
        char *cached_b = resolve(&b, &again);
        CHECK(cached_b && strcmp(cached_b, plain_b) == 0);
        free(cached_a);
        free(cached_b);
    }
    free(plain_a);
    free(plain_b);
    char rm[PATH_MAX + 16];
    snprintf(rm, sizeof rm, "rm -rf '%s'", root);
    CHECK(system(rm) == 0);
    return tt_finish("test_debug_cache_same_id");
}
