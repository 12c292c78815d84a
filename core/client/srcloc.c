/* srcloc.c - allocated source locations: a heap payload in upstream's layout,
 * [u16 size][u32 color][u32 line][function\0][file\0][name], consumed by a zone begin. */
#include "client/api.h"

#include <stdlib.h>
#include <string.h>

#define PAYLOAD_MAX 65535u

uint64_t ___tracy_alloc_srcloc_name(uint32_t line, const char *source, size_t sourceSz, const char *function,
                                    size_t functionSz, const char *name, size_t nameSz, uint32_t color)
{
    if (!source)
        sourceSz = 0;
    if (!function)
        functionSz = 0;
    if (!name)
        nameSz = 0;
    /* Keep the whole payload within its u16 size: shorten the name, then the file,
     * then the function, never splitting a UTF-8 character. */
    size_t fixed = 2 + 4 + 4 + 2;
    size_t room = PAYLOAD_MAX - fixed;
    functionSz = tc_text_fit(function, functionSz, room / 2);
    sourceSz = tc_text_fit(source, sourceSz, room - functionSz);
    nameSz = tc_text_fit(name, nameSz, room - functionSz - sourceSz);
    size_t size = fixed + functionSz + sourceSz + nameSz;
    /* The payload lives until the worker has sent its zone: it counts against the buffer
     * limit, and past the limit the zone is dropped here. */
    uint8_t *p = tc_buffer_alloc(size);
    if (!p) {
        tc_count_drop();
        return 0;
    }
    uint16_t size16 = (uint16_t)size;
    memcpy(p, &size16, 2);
    memcpy(p + 2, &color, 4);
    memcpy(p + 6, &line, 4);
    uint8_t *q = p + 10;
    if (functionSz)
        memcpy(q, function, functionSz);
    q += functionSz;
    *q++ = 0;
    if (sourceSz)
        memcpy(q, source, sourceSz);
    q += sourceSz;
    *q++ = 0;
    if (nameSz)
        memcpy(q, name, nameSz);
    return (uint64_t)(uintptr_t)p;
}

uint64_t ___tracy_alloc_srcloc(uint32_t line, const char *source, size_t sourceSz, const char *function,
                               size_t functionSz, uint32_t color)
{
    return ___tracy_alloc_srcloc_name(line, source, sourceSz, function, functionSz, NULL, 0, color);
}
