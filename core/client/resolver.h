/* resolver.h - a thread that answers the server's CallstackFrame and Symbol queries.
 *
 * Resolving an address can take long (libdw reads a library's DWARF the first time it is
 * needed), so the worker never does it: it hands the query over and, on later passes,
 * encodes the answers that are ready, while events keep flowing. The server takes these
 * answers in any order, since each names its address. Answers are kept (symbols.c), so a
 * second server's questions cost a lookup.
 */
#ifndef TRACYC_CLIENT_RESOLVER_H
#define TRACYC_CLIENT_RESOLVER_H

#include "client/symbols.h"

#include <stdint.h>

struct tc_resolved {
    uint64_t conn;                             /* the connection that asked (its serial number) */
    uint8_t query;                             /* TCW_QUERY_CALLSTACK_FRAME or TCW_QUERY_SYMBOL */
    uint64_t ptr;                              /* the address asked about */
    const struct tc_symbol_location *location; /* CallstackFrame */
    const char *file;                          /* Symbol */
    uint32_t line;
    struct tc_resolved *next;
};

/* Queues a query of connection `conn` (starting the thread on first use). -1 when out of
 * memory: the caller answers "unknown" itself. */
int tc_resolver_submit(uint64_t conn, uint8_t query, uint64_t ptr);
/* Takes the answers ready for connection conn, oldest first (NULL: none); free each with
 * tc_resolver_release once encoded. *pending receives how many are still being resolved. */
struct tc_resolved *tc_resolver_take(uint64_t conn, int *pending);
void tc_resolver_release(struct tc_resolved *answers);
/* Forgets everything asked by a connection that has closed. */
void tc_resolver_forget(uint64_t conn);
/* Stops the thread and frees the caches (at shutdown). */
void tc_resolver_stop(void);
/* In a forked child: the thread is gone; start afresh if ever needed. */
void tc_resolver_forget_after_fork(void);

#endif
