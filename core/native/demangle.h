/* demangle.h - readable names for mangled C++ and Rust symbols (libiberty's demanglers,
 * linked in statically: demangle.c). */
#ifndef TRACYC_NATIVE_DEMANGLE_H
#define TRACYC_NATIVE_DEMANGLE_H

/* A readable name for a mangled C++ or Rust (legacy and v0) symbol, in malloc'd memory,
 * or NULL when name is not mangled or not understood. */
char *tcn_demangle(const char *name);

#endif
