/* host_id.h - which machine this is, as the clock extension names it (docs/protocol.md §28).
 *
 * Processes with the same host id share CLOCK_MONOTONIC_RAW: it is a hash of the kernel's
 * boot id, which changes with every boot and is the same in every container of one kernel
 * (they share its clock too). A client sends it with its clock readings; a collector
 * compares it with its own to know whether the client's monotonic clock is its own. */
#ifndef TRACYC_UTIL_HOST_ID_H
#define TRACYC_UTIL_HOST_ID_H

#include <stdint.h>

/* The FNV-1a 64-bit hash of /proc/sys/kernel/random/boot_id (its 36 characters, without
 * the newline); 0 when it cannot be read (a collector then knows no client to share its
 * clock). Read once, then kept. */
uint64_t tcu_host_id(void);

/* The hash of `len` bytes as tcu_host_id takes it (FNV-1a, 64 bits). */
uint64_t tcu_host_id_of(const char *text, unsigned long len);

#endif
