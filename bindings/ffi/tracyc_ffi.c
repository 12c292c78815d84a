/* tracyc_ffi.c - the flat FFI API: zones as 64-bit handles, pointer + length strings,
 * registered ids for everything the server identifies by address. */
#include "ffi_registry.h"
#include "tracyc_ffi.h"

#include <stdlib.h>
#include <string.h>

/* A handle is the zone context, id in the high half and active in the low half, so an
 * active zone is never 0 and an inactive one always is. */
static inline uint64_t handle_of(TracyCZoneCtx ctx)
{
    return ctx.active ? (uint64_t)ctx.id << 32 | 1u : 0;
}

static inline TracyCZoneCtx ctx_of(uint64_t zone)
{
    TracyCZoneCtx ctx = {(uint32_t)(zone >> 32), (int32_t)(zone & 1u)};
    return ctx;
}

uint64_t tracyc_ffi_zone_begin(uint32_t srcloc_id)
{
    const struct ___tracy_source_location_data *loc = tf_srcloc(srcloc_id);
    if (__builtin_expect(!loc, 0))
        return 0;
    return handle_of(___tracy_emit_zone_begin(loc, 1));
}

void tracyc_ffi_zone_end(uint64_t zone)
{
    ___tracy_emit_zone_end(ctx_of(zone));
}

void tracyc_ffi_zone_text(uint64_t zone, const char *text, size_t len)
{
    ___tracy_emit_zone_text(ctx_of(zone), text, len);
}

void tracyc_ffi_zone_name(uint64_t zone, const char *text, size_t len)
{
    ___tracy_emit_zone_name(ctx_of(zone), text, len);
}

void tracyc_ffi_zone_color(uint64_t zone, uint32_t color)
{
    ___tracy_emit_zone_color(ctx_of(zone), color);
}

void tracyc_ffi_zone_value(uint64_t zone, uint64_t value)
{
    ___tracy_emit_zone_value(ctx_of(zone), value);
}

void tracyc_ffi_thread_name(const char *name, size_t len)
{
    if (!name)
        return;
    char *copy = malloc(len + 1); /* the upstream call wants a NUL-terminated string */
    if (!copy)
        return;
    memcpy(copy, name, len);
    copy[len] = 0;
    ___tracy_set_thread_name(copy);
    free(copy);
}

void tracyc_ffi_message(const char *text, size_t len, uint32_t color)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, (int32_t)color, 0, len, text);
}

void tracyc_ffi_plot(uint32_t name_id, double value)
{
    const char *name = tf_name(name_id);
    if (name)
        ___tracy_emit_plot(name, value);
}

void tracyc_ffi_plot_int(uint32_t name_id, int64_t value)
{
    const char *name = tf_name(name_id);
    if (name)
        ___tracy_emit_plot_int(name, value);
}

void tracyc_ffi_frame_mark(uint32_t name_id)
{
    const char *name = tf_name(name_id);
    if (name || name_id == 0)
        ___tracy_emit_frame_mark(name);
}

void tracyc_ffi_frame_mark_start(uint32_t name_id)
{
    const char *name = tf_name(name_id);
    if (name)
        ___tracy_emit_frame_mark_start(name);
}

void tracyc_ffi_frame_mark_end(uint32_t name_id)
{
    const char *name = tf_name(name_id);
    if (name)
        ___tracy_emit_frame_mark_end(name);
}
