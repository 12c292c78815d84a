/* abi_table.h - the manifest (bindings/ffi/tracyc.abi.json) as C data, generated at build
 * time by gen_abi_table.py so the libffi test calls each function with the manifest's
 * types rather than the C compiler's view of the header. */
#ifndef TRACYC_TEST_ABI_TABLE_H
#define TRACYC_TEST_ABI_TABLE_H

#include <stddef.h>

#define ABI_MAX_PARAMS 8
#define ABI_MAX_FIELDS 8

struct abi_param {
    const char *name;
    const char *type;
};

struct abi_function {
    const char *name;
    const char *returns;
    int variadic;
    int nparams;
    struct abi_param params[ABI_MAX_PARAMS];
};

struct abi_struct {
    const char *name;
    size_t size, align;
    int nfields;
    struct abi_param fields[ABI_MAX_FIELDS];
    size_t offsets[ABI_MAX_FIELDS];
};

extern const struct abi_function abi_functions[];
extern const size_t abi_function_count;
extern const struct abi_struct abi_structs[];
extern const size_t abi_struct_count;
/* {"int8_t", 1}, ..., {"pointer", 8} */
extern const struct abi_scalar {
    const char *name;
    size_t size;
} abi_scalars[];
extern const size_t abi_scalar_count;
/* The callback types (pointers to functions), NULL-terminated. */
extern const char *const abi_callbacks[];

#endif
