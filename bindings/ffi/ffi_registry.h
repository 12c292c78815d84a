/* ffi_registry.h - the registered source locations and names of the flat FFI API. */
#ifndef TRACYC_FFI_REGISTRY_H
#define TRACYC_FFI_REGISTRY_H

#include "ffi_table.h"
#include "tracyc.h"

extern struct tf_table tf_srclocs; /* of struct ___tracy_source_location_data */
extern struct tf_table tf_names;   /* of const char * */

static inline const struct ___tracy_source_location_data *tf_srcloc(uint32_t id)
{
    return tf_table_get(&tf_srclocs, id);
}

/* The registered name, or NULL for id 0 or an unknown id. */
static inline const char *tf_name(uint32_t id)
{
    const char *const *name = tf_table_get(&tf_names, id);
    return name ? *name : NULL;
}

#endif
