/* held_dl_iterate_phdr.h - dl_iterate_phdr, exported by the test program that links
 * held_dl_iterate_phdr.c in libc's place: it lets every call through to libc's, except the
 * one tt_dl_iterate_phdr_hold takes. libunwind calls it to find an address's unwind
 * information, the symbol resolver's loader stamp to list the modules.
 * Not under ThreadSanitizer, whose runtime calls dl_iterate_phdr before main (tests that
 * need the hold skip themselves there: TT_UNDER_TSAN). */
#ifndef TRACYC_HELD_DL_ITERATE_PHDR_H
#define TRACYC_HELD_DL_ITERATE_PHDR_H

#include "test_hold.h"

#if defined(__SANITIZE_THREAD__)
#define TT_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TT_UNDER_TSAN 1
#endif
#endif

extern struct tt_hold tt_dl_iterate_phdr_hold;
/* Set by the first call to dl_iterate_phdr (the hold point is reached at all). */
extern atomic_int tt_dl_iterate_phdr_called;

/* Finds libc's dl_iterate_phdr: call it in main, before any hold (dlsym takes the loader's
 * lock, which a held caller may hold). */
void tt_dl_iterate_phdr_find_real(void);

#endif
