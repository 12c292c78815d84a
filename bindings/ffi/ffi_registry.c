/* ffi_registry.c - registering source locations and names. The strings are copied once
 * and never freed: the server may ask for them at any time, by address. */
#include "ffi_registry.h"
#include "tracyc_ffi.h"

#include <stdlib.h>
#include <string.h>

struct tf_table tf_srclocs = TF_TABLE_INIT(struct ___tracy_source_location_data);
struct tf_table tf_names = TF_TABLE_INIT(const char *);

static char *copy_string(const char *s, size_t len)
{
    if (!s)
        len = 0;
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    if (len)
        memcpy(copy, s, len);
    copy[len] = 0;
    return copy;
}

uint32_t tracyc_ffi_srcloc_register(const char *name, size_t name_len, const char *function, size_t function_len,
                                    const char *file, size_t file_len, uint32_t line, uint32_t color)
{
    struct ___tracy_source_location_data loc = {NULL, copy_string(function, function_len), copy_string(file, file_len),
                                                line, color};
    int named = name && name_len;
    if (named)
        loc.name = copy_string(name, name_len);
    uint32_t id = 0;
    if (loc.function && loc.file && (loc.name || !named))
        id = tf_table_add(&tf_srclocs, &loc);
    if (!id) {
        free((void *)loc.name);
        free((void *)loc.function);
        free((void *)loc.file);
    }
    return id;
}

uint32_t tracyc_ffi_name_register(const char *name, size_t len)
{
    if (!name || !len)
        return 0;
    char *copy = copy_string(name, len);
    if (!copy)
        return 0;
    uint32_t id = tf_table_add(&tf_names, &(const char *){copy});
    if (!id)
        free(copy);
    return id;
}
