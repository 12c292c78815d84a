/* ffi_call.c - the manifest-driven libffi caller of ffi_call.h. */
#include "ffi_call.h"

#include "abi_table.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fc_fn {
    const struct abi_function *abi;
    void *sym;
    ffi_type *ret;
    ffi_type *args[ABI_MAX_PARAMS + 16]; /* fixed parameters, then a call's variadic ones */
    ffi_cif cif;
    int called;
};

static void *lib;
static struct fc_fn *fns;
static ffi_type *struct_types;
static ffi_type *(*struct_elements)[ABI_MAX_FIELDS + 1];

static ffi_type *scalar_type(const char *t)
{
    static const struct {
        const char *name;
        ffi_type *type;
    } scalars[] = {
        {"void", &ffi_type_void},       {"int", &ffi_type_sint},
        {"int8_t", &ffi_type_sint8},    {"uint8_t", &ffi_type_uint8},
        {"uint16_t", &ffi_type_uint16}, {"int32_t", &ffi_type_sint32},
        {"uint32_t", &ffi_type_uint32}, {"int64_t", &ffi_type_sint64},
        {"uint64_t", &ffi_type_uint64}, {"size_t", sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32},
        {"float", &ffi_type_float},     {"double", &ffi_type_double},
        {"pointer", &ffi_type_pointer},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (strcmp(scalars[i].name, t) == 0)
            return scalars[i].type;
    return NULL;
}

/* The libffi type of a manifest type: pointers (callbacks too), structs by value
 * (top-level const is irrelevant to the ABI), scalars. */
static ffi_type *type_of(const char *t)
{
    if (t[strlen(t) - 1] == '*')
        return &ffi_type_pointer;
    for (size_t i = 0; abi_callbacks[i]; i++)
        if (strcmp(abi_callbacks[i], t) == 0)
            return &ffi_type_pointer;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    if (strncmp(t, "struct ", 7) == 0) {
        for (size_t i = 0; i < abi_struct_count; i++)
            if (strcmp(abi_structs[i].name, t + 7) == 0)
                return &struct_types[i];
        return NULL;
    }
    return scalar_type(t);
}

/* Builds libffi's description of every manifest struct and checks that libffi lays it
 * out (size, alignment, offsets) exactly as the manifest says. */
static int prepare_structs(void)
{
    struct_types = calloc(abi_struct_count, sizeof *struct_types);
    struct_elements = calloc(abi_struct_count, sizeof *struct_elements);
    int bad = 0;
    for (size_t i = 0; i < abi_struct_count; i++) {
        const struct abi_struct *s = &abi_structs[i];
        for (int f = 0; f < s->nfields; f++)
            struct_elements[i][f] = type_of(s->fields[f].type);
        struct_types[i].type = FFI_TYPE_STRUCT;
        struct_types[i].elements = struct_elements[i];
        size_t offsets[ABI_MAX_FIELDS];
        if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, &struct_types[i], offsets) != FFI_OK) {
            fprintf(stderr, "libffi cannot lay out struct %s\n", s->name);
            return -1;
        }
        bad |= struct_types[i].size != s->size || struct_types[i].alignment != s->align;
        for (int f = 0; f < s->nfields; f++)
            bad |= offsets[f] != s->offsets[f];
        if (bad) {
            fprintf(stderr, "libffi lays out struct %s differently from the manifest\n", s->name);
            return -1;
        }
    }
    for (size_t i = 0; i < abi_scalar_count; i++) {
        ffi_type *t = scalar_type(abi_scalars[i].name);
        if (!t || t->size != abi_scalars[i].size) {
            fprintf(stderr, "manifest scalar %s: libffi size differs\n", abi_scalars[i].name);
            return -1;
        }
    }
    return 0;
}

static int prepare_function(struct fc_fn *fn, const struct abi_function *abi)
{
    fn->abi = abi;
    char symbol[128]; /* "NAME@ORIGIN": the other form of a dual function, the same symbol */
    snprintf(symbol, sizeof symbol, "%.*s", (int)strcspn(abi->name, "@"), abi->name);
    fn->sym = dlsym(lib, symbol);
    fn->ret = type_of(abi->returns);
    int ok = fn->sym && fn->ret;
    for (int i = 0; i < abi->nparams; i++)
        ok &= (fn->args[i] = type_of(abi->params[i].type)) != NULL;
    if (ok && !abi->variadic)
        ok = ffi_prep_cif(&fn->cif, FFI_DEFAULT_ABI, (unsigned)abi->nparams, fn->ret, fn->args) == FFI_OK;
    if (!ok)
        fprintf(stderr, "%s: %s\n", abi->name, fn->sym ? "a manifest type libffi cannot express" : dlerror());
    return ok ? 0 : -1;
}

int fc_open(const char *library)
{
    lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    if (prepare_structs() != 0)
        return -1;
    fns = calloc(abi_function_count, sizeof *fns);
    int rc = 0;
    for (size_t i = 0; i < abi_function_count; i++)
        rc |= prepare_function(&fns[i], &abi_functions[i]);
    return rc;
}

static struct fc_fn *find(const char *name)
{
    for (size_t i = 0; i < abi_function_count; i++)
        if (strcmp(fns[i].abi->name, name) == 0)
            return &fns[i];
    fprintf(stderr, "%s is not in the manifest\n", name);
    abort();
}

union fc_ret fc_call(const char *name, void **args)
{
    struct fc_fn *fn = find(name);
    if (fn->abi->variadic)
        return fc_call_var(name, args, 0, NULL);
    union fc_ret ret;
    memset(&ret, 0, sizeof ret);
    ffi_call(&fn->cif, FFI_FN(fn->sym), &ret, args);
    fn->called++;
    return ret;
}

union fc_ret fc_call_var(const char *name, void **args, unsigned nvar, ffi_type **var_types)
{
    struct fc_fn *fn = find(name);
    unsigned nfixed = (unsigned)fn->abi->nparams;
    if (!fn->abi->variadic || nvar > 16)
        abort();
    ffi_cif cif;
    memcpy(fn->args + nfixed, var_types, nvar * sizeof *var_types);
    if (ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, nfixed, nfixed + nvar, fn->ret, fn->args) != FFI_OK)
        abort();
    union fc_ret ret;
    memset(&ret, 0, sizeof ret);
    ffi_call(&cif, FFI_FN(fn->sym), &ret, args);
    fn->called++;
    return ret;
}

void *fc_symbol(const char *name)
{
    return dlsym(lib, name);
}

const char *fc_other_form(const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < abi_function_count; i++)
        if (strncmp(fns[i].abi->name, name, len) == 0 && fns[i].abi->name[len] == '@')
            return fns[i].abi->name;
    return NULL;
}

int fc_has_param(const char *name, const char *param)
{
    const struct abi_function *abi = find(name)->abi;
    for (int i = 0; i < abi->nparams; i++)
        if (strcmp(abi->params[i].name, param) == 0)
            return 1;
    return 0;
}

size_t fc_report_uncalled(void)
{
    size_t n = 0;
    for (size_t i = 0; i < abi_function_count; i++)
        if (!fns[i].called) {
            fprintf(stderr, "FAIL: manifest function %s was never called through libffi\n", fns[i].abi->name);
            n++;
        }
    return n;
}
