/* ffi_call.h - calls into a dlopen'ed libtracyc.so through libffi, with the argument and
 * return types the manifest gives, and remembers which manifest functions were called. */
#ifndef TRACYC_TEST_FFI_CALL_H
#define TRACYC_TEST_FFI_CALL_H

#include "tracyc.h"

#include <ffi.h>
#include <stdint.h>

/* A return value: read the member of the manifest's return type (integers narrower than
 * a register come back widened to ffi_arg, as libffi requires). */
union fc_ret {
    ffi_arg word;
    ffi_sarg sword;
    uint64_t u64;
    int64_t i64;
    void *ptr;
    double f64;
    float f32;
    struct ___tracy_c_zone_context zone;
};

/* dlopens library and prepares a call interface for every manifest function, checking
 * libffi's layout of every manifest struct against the manifest. Returns 0 or -1 (with
 * a message on stderr). */
int fc_open(const char *library);

/* Calls the manifest function name with args[i] pointing at a value of the i-th
 * parameter's manifest type (args may be NULL when there are none). Aborts on an
 * unknown name. */
union fc_ret fc_call(const char *name, void **args);

/* The same for a variadic function: nvar extra arguments of the given types follow. */
union fc_ret fc_call_var(const char *name, void **args, unsigned nvar, ffi_type **var_types);

/* 1 if the manifest gives function name a parameter called param (used where a build
 * option selects between two signatures). */
int fc_has_param(const char *name, const char *param);

/* The library's symbol name, for a call the manifest cannot describe. */
void *fc_symbol(const char *name);

/* The entry of a dual function's other form ("NAME@0.13.1" or "NAME@0.14.0"), or NULL
 * when the manifest has none for this machine. */
const char *fc_other_form(const char *name);

/* Prints every manifest function never called and returns how many there are. */
size_t fc_report_uncalled(void);

#define CALL(name, ...) fc_call(name, (void *[]){__VA_ARGS__})
#define CALL0(name) fc_call(name, NULL)

#endif
