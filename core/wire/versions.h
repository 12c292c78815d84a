/* versions.h - the Tracy protocol versions tracyc speaks, and how each differs from 82.
 *
 * Everything above the byte boundary speaks protocol 82: the encoder's item writers, the
 * decoder's item handlers and every table keyed by item type use the TCW_* names of
 * protocol.h as *logical* item types. This file is the boundary. A connection of another
 * version translates each item as it leaves the encoder (tcw_item_to_version) and as it
 * enters the decoder (the opcode tables, tcw_item_from_version), and converts the
 * welcome message and the query codes. docs/protocol.md §24 describes the differences.
 *
 * Versions are named by an index into tcw_versions[]: 0 is protocol 82, and every later
 * index an older protocol.
 */
#ifndef TRACYC_WIRE_VERSIONS_H
#define TRACYC_WIRE_VERSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "wire/protocol.h"

enum { TCW_V82, TCW_V76, TCW_V74, TCW_V69, TCW_V66, TCW_V64, TCW_VERSION_COUNT };

struct tcw_version {
    uint32_t protocol;     /* the number in the server's hello */
    const char *tracy;     /* the Tracy releases that speak it */
    uint16_t welcome_size; /* 1170; 1178 with a u64 `delay` at offset 24 (64-74) */
    uint8_t num_types;     /* item types on the wire (QueueType::NUM_TYPES) */
    uint8_t max_gpu_type;  /* highest GPU context type the server knows */
    uint8_t welcome_delay; /* the welcome carries `delay` */
    uint8_t compact;       /* protocol 82's encodings (§24.3): compact zone and sample
                            * times, 8-bit strings, message metadata, ParamSetup type */
    uint8_t ctx_switch_v2; /* ContextSwitch 23 and ThreadWakeup 16 bytes (74+) */
    uint8_t wide_topology; /* FiberEnter with groupHint, CpuTopology with die (69+) */
};

extern const struct tcw_version tcw_versions[TCW_VERSION_COUNT];

#define TCW_ABSENT 0xff

/* Wire opcode of each logical item type, by version index (TCW_ABSENT: no such item). */
extern const uint8_t tcw_opcodes[TCW_NUM_TYPES][TCW_VERSION_COUNT];

/* Index of a protocol version, -1 when tracyc does not speak it. */
int tcw_version_index(uint32_t protocol);

static inline int tcw_version_has(int vi, uint8_t type)
{
    return tcw_opcodes[type][vi] != TCW_ABSENT;
}

/* Fixed size of a logical item in version vi's layout (type byte included). */
size_t tcw_item_size_in(uint8_t type, int vi);

/* The most bytes tcw_item_to_version adds to an item (a 16-bit zone time becomes 64-bit). */
#define TCW_CONVERT_GROWTH 8

/* Rewrites one complete protocol-82 item (p[0] a logical type, len bytes) in place into
 * version vi's layout and opcode; p has room for len + TCW_CONVERT_GROWTH bytes. Returns
 * the item's new length, or 0 when the version has no such item. */
size_t tcw_item_to_version(uint8_t *p, size_t len, int vi);

/* Longest fixed-size item tcw_item_from_version writes. */
#define TCW_NORMALIZED_MAX 32

/* For a fixed-size item of version vi whose layout differs from 82's (type: its logical
 * type, it: its bytes, tcw_item_size_in(type, vi) of them), writes the protocol-82 item
 * to out (out[0] its logical type, which may be a compact variant) and returns true;
 * false when the layouts agree. */
int tcw_item_from_version(uint8_t type, const uint8_t *it, int vi, uint8_t out[TCW_NORMALIZED_MAX]);

/* The welcome message in version vi's layout from the protocol-82 one, and back. */
void tcw_welcome_to_version(uint8_t *out, const uint8_t w82[TCW_WELCOME_SIZE], int vi);
void tcw_welcome_from_version(uint8_t w82[TCW_WELCOME_SIZE], const uint8_t *in, int vi);

/* Server query codes: protocol 64 numbers Disconnect, CallstackFrame and ExternalName
 * differently. Codes without a meaning pass through. */
uint8_t tcw_query_to_wire(uint8_t query, int vi);
uint8_t tcw_query_from_wire(uint8_t code, int vi);

#endif
