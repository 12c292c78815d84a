/* bytes.h - unaligned reads and writes of the wire's little-endian integers (the client
 * and the decoder run on little-endian hosts only: docs/protocol.md §1). */
#ifndef TRACYC_UTIL_BYTES_H
#define TRACYC_UTIL_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t tcu_rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint32_t tcu_rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t tcu_rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline float tcu_rdf32(const uint8_t *p)
{
    float v;
    memcpy(&v, p, 4);
    return v;
}
static inline void tcu_wr16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}
static inline void tcu_wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static inline void tcu_wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

#endif
