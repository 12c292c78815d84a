/* held_dl_iterate_phdr.c - see held_dl_iterate_phdr.h. Linked into the test program
 * itself (never a shared library): only the program's definition takes libc's place. */
#include "held_dl_iterate_phdr.h"

#include <dlfcn.h>
#include <link.h>

struct tt_hold tt_dl_iterate_phdr_hold;
atomic_int tt_dl_iterate_phdr_called;

static __typeof__(dl_iterate_phdr) *real_dl_iterate_phdr;

void tt_dl_iterate_phdr_find_real(void)
{
    real_dl_iterate_phdr = (__typeof__(dl_iterate_phdr) *)dlsym(RTLD_NEXT, "dl_iterate_phdr");
}

#ifndef TT_UNDER_TSAN
/* (Not instrumented by AddressSanitizer, whose runtime calls it before its shadow is set up.) */
__attribute__((no_sanitize("address"))) int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
                                                            void *data)
{
    atomic_store(&tt_dl_iterate_phdr_called, 1);
    tt_hold_pass(&tt_dl_iterate_phdr_hold);
    if (!real_dl_iterate_phdr) /* (before main) */
        tt_dl_iterate_phdr_find_real();
    return real_dl_iterate_phdr(callback, data);
}
#endif
