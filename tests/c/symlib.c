/* symlib.c - a library the symbol tests load with dlopen after the profiler started. Built
 * four times: with debug information (symlib_debug), without (symlib_plain: names from
 * the symbol table only, one of them a C++- and one a Rust-mangled name), stripped
 * (symlib_stripped: two functions of its own that no symbol names, as in Debian's zlib), and
 * a copy that the test unloads before its frames are resolved (symlib_unload). */
#include <stdint.h>

typedef void (*symlib_emit)(void);

#define NOINLINE __attribute__((noinline, visibility("default")))

/* Calls emit, which takes a callstack: this function is the frame after the test's. */
NOINLINE int SYMLIB_ENTRY(symlib_emit emit)
{
    emit();
    __asm__ volatile("" ::: "memory");
    return 1;
}

#ifdef SYMLIB_MANGLED
/* C functions under mangled names, as a C++ or Rust compiler would emit them. */
NOINLINE int cxx_function(symlib_emit emit) __asm__("_ZN6tracyc4demo5innerEi");
NOINLINE int cxx_function(symlib_emit emit)
{
    emit();
    __asm__ volatile("" ::: "memory");
    return 2;
}

NOINLINE int rust_function(symlib_emit emit) __asm__("_ZN6tracyc4demo4rust17h0123456789abcdefE");
NOINLINE int rust_function(symlib_emit emit)
{
    emit();
    __asm__ volatile("" ::: "memory");
    return 3;
}
#endif

#ifdef SYMLIB_STATIC
/* Functions the library keeps to itself: stripped, nothing names them. */
static __attribute__((noinline)) int static_first(symlib_emit emit)
{
    emit();
    __asm__ volatile("" ::: "memory");
    return 4;
}

static __attribute__((noinline)) int static_second(symlib_emit emit)
{
    emit();
    __asm__ volatile("" ::: "memory");
    return 5;
}

/* Calls emit from each of them; `which` picks one (1 or 2). */
NOINLINE int symlib_stripped_static(symlib_emit emit, int which)
{
    return which == 1 ? static_first(emit) : static_second(emit);
}
#endif
