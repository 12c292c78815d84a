/* demangle.c - C++ and Rust symbol names, by libiberty's demanglers (GNU binutils; Debian's
 * libiberty-dev, linked in statically, so programs need neither a C++ runtime nor another
 * shared library). */
#include "native/demangle.h"

#include <libiberty/demangle.h>
#include <string.h>

char *tcn_demangle(const char *name)
{
    if (!name || name[0] != '_')
        return NULL;
    /* Rust first: its legacy names are valid C++ names too, which would keep the hash. */
    char *out = rust_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    if (!out && name[1] == 'Z')
        out = cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI);
    return out;
}
