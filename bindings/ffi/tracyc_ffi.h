/* tracyc_ffi.h - a flat API for foreign-function interfaces.
 *
 * The upstream API in tracyc.h passes a struct by value (TracyCZoneCtx), wants source
 * locations as static structs whose address never changes, and takes NUL-terminated
 * strings that must outlive the call for plots and frame sets. Many FFIs (ctypes, C#
 * P/Invoke, Node, Lua's FFIs, scripting hosts) handle none of that well. This API uses
 * only integers, doubles and pointer + length strings:
 *
 *   - a source location is registered once and named by a 32-bit id;
 *   - plot and frame-set names are registered once and named by a 32-bit id;
 *   - a zone is an opaque 64-bit handle: begin(srcloc id) -> handle, end(handle);
 *   - strings are always (pointer, byte length), need no NUL and are copied or interned,
 *     so the caller's buffer may be freed as soon as the call returns;
 *   - colours are uint32 0x00RRGGBB (0 = default).
 *
 * Registration allocates and takes a lock; nothing else does. Zone begin/end cost one
 * lock-free table read on top of ___tracy_emit_zone_begin/___tracy_emit_zone_end.
 * Registered entries live until the process exits (the server asks for their strings
 * lazily), so register each source location or name once and keep its id: registering
 * the same content twice gives two ids.
 *
 * Every function may be called from any thread and does nothing when the library is
 * inert (TRACYC_DISABLE=1). A zone must be ended on the thread that began it.
 * Functions, parameter names and types are listed in bindings/ffi/tracyc.abi.json.
 */
#ifndef TRACYC_FFI_H
#define TRACYC_FFI_H

#include "tracyc.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most entries each table holds; registering more returns 0. */
#define TRACYC_FFI_MAX_IDS 65535

/* Registers a source location and returns its id (1..TRACYC_FFI_MAX_IDS), or 0 when the
 * table is full or out of memory. name may be NULL or empty: the zone is then named
 * after function. All strings are copied. */
TRACYC_API uint32_t tracyc_ffi_srcloc_register(const char *name, size_t name_len, const char *function,
                                               size_t function_len, const char *file, size_t file_len, uint32_t line,
                                               uint32_t color);

/* Registers a plot or frame-set name and returns its id (1..TRACYC_FFI_MAX_IDS), or 0
 * when the table is full, out of memory, or name is empty. The name is copied. */
TRACYC_API uint32_t tracyc_ffi_name_register(const char *name, size_t len);

/* Begins a zone at a registered source location on the calling thread. Returns its
 * handle, never 0 for a recorded zone; 0 when srcloc_id is unknown or the library is
 * inert. Every other zone function ignores handle 0. */
TRACYC_API uint64_t tracyc_ffi_zone_begin(uint32_t srcloc_id);

/* Ends the zone; it must be the innermost open zone of the calling thread. */
TRACYC_API void tracyc_ffi_zone_end(uint64_t zone);

/* Appends text to the zone's text (shown under the zone), up to 65534 bytes. */
TRACYC_API void tracyc_ffi_zone_text(uint64_t zone, const char *text, size_t len);

/* Replaces the zone's displayed name. */
TRACYC_API void tracyc_ffi_zone_name(uint64_t zone, const char *text, size_t len);

/* Sets the zone's colour, 0x00RRGGBB. */
TRACYC_API void tracyc_ffi_zone_color(uint64_t zone, uint32_t color);

/* Attaches a number to the zone. */
TRACYC_API void tracyc_ffi_zone_value(uint64_t zone, uint64_t value);

/* Names the calling thread. */
TRACYC_API void tracyc_ffi_thread_name(const char *name, size_t len);

/* Records a message on the calling thread's timeline, up to 65534 bytes; color 0 =
 * default. */
TRACYC_API void tracyc_ffi_message(const char *text, size_t len, uint32_t color);

/* Adds a point to the plot registered as name_id. Non-finite values are dropped. */
TRACYC_API void tracyc_ffi_plot(uint32_t name_id, double value);
TRACYC_API void tracyc_ffi_plot_int(uint32_t name_id, int64_t value);

/* Marks the end of a frame of the frame set registered as name_id; 0 = the main frame
 * set. */
TRACYC_API void tracyc_ffi_frame_mark(uint32_t name_id);

/* Start and end of a discontinuous frame of a named frame set (name_id 0 is ignored). */
TRACYC_API void tracyc_ffi_frame_mark_start(uint32_t name_id);
TRACYC_API void tracyc_ffi_frame_mark_end(uint32_t name_id);

#ifdef __cplusplus
}
#endif

#endif /* TRACYC_FFI_H */
