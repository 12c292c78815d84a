/* resolver.h - a thread that answers the server's CallstackFrame and Symbol queries.
 *
 * Resolving an address can take long (libdw reads a library's DWARF the first time it is
 * needed), so the worker never does it while the program runs: it hands the query over
 * and, on later passes, encodes the answers that are ready, while events keep flowing. The server takes these
 * answers in any order, since each names its address. Answers are kept (symbols.c), so a
 * second server's questions cost a lookup.
 */
#ifndef TRACYC_NATIVE_RESOLVER_H
#define TRACYC_NATIVE_RESOLVER_H

#include "native/symbols.h"

#include <stdint.h>

/* What a query asks: the frames at an address (the server's CallstackFrame query) or the
 * source of a symbol (its Symbol query). */
enum tcn_resolve_kind { TCN_RESOLVE_FRAMES, TCN_RESOLVE_SYMBOL };

struct tcn_resolved {
    uint64_t conn; /* the connection that asked (its serial number) */
    enum tcn_resolve_kind kind;
    uint64_t ptr;                               /* the address asked about */
    const struct tcn_symbol_location *location; /* CallstackFrame */
    const char *file;                           /* Symbol */
    uint32_t line;
    struct tcn_resolved *next;
};

/* Called by the resolver thread (with no lock held) each time an answer is ready: the
 * worker, waiting for work, is woken by it. Set before the first query. */
void tcn_resolver_set_notify(void (*answered)(void));
/* Queues a query of connection `conn` (starting the thread on first use, unless
 * tcn_resolver_go_threadless said not to). -1 when out of memory: the caller answers
 * "unknown" itself. */
int tcn_resolver_submit(uint64_t conn, enum tcn_resolve_kind kind, uint64_t ptr);
/* Takes the answers ready for connection conn, oldest first (NULL: none); release them with
 * tcn_resolver_release once encoded, before taking more (the resolver keeps the list taken
 * meanwhile, for a forked child's leak check). */
struct tcn_resolved *tcn_resolver_take(uint64_t conn);
void tcn_resolver_release(struct tcn_resolved *answers);
/* Resolves the waiting queries, oldest first, on the calling thread, for up to about
 * 2 ms, when the resolver thread is not resolving one (one at a time: they share the
 * caches), once tcn_resolver_go_threadless has made the queries threadless. Returns how
 * many it resolved. For a thread that would only wait for the answers (the shutdown):
 * under load, the resolver thread may wait milliseconds for a CPU at each wake-up. */
int tcn_resolver_help(void);
/* From now on queries start no thread, and their asker resolves them with
 * tcn_resolver_help (the shutdown, where starting one would only add its wake-ups to the
 * wait); a thread already running goes on answering beside it. Does nothing when the
 * calling thread has less than 1 MiB of stack left, or it cannot tell (a fiber's stack, a
 * signal's): resolving reads DWARF and demangles names on the stack, which is sized for
 * the resolver thread's default stack; the resolver thread then answers as before. */
void tcn_resolver_go_threadless(void);
/* Forgets everything asked by a connection that has closed. */
void tcn_resolver_forget(uint64_t conn);
/* Stops the thread and frees the caches (at shutdown). */
void tcn_resolver_stop(void);
/* Around fork: before it, no new query starts and the one being resolved, if any, is
 * waited for (not the queue; lock and query together up to about 2 s); the lock is then held
 * across the fork, so that no query is submitted, handed over or released meanwhile either.
 * A child then finds all of the parent's resolving in the lists and caches, none of it on
 * the stack of a thread it does not have (a leak check's lost memory). After it, in the
 * parent, the queries go on and the lock is released.
 * Held, not just the queries stopped: submit, take, release and forget change the lists
 * under the lock, and a fork in their middle would leave a child the job on their stack
 * only. The constraint: a fork's prepare handler that runs after this one (registered
 * before it) must not wait for a thread that calls these (the worker): it would wait for
 * the fork's end. */
void tcn_resolver_before_fork(void);
void tcn_resolver_after_fork_parent(void);
/* In a forked child: the thread is gone; start afresh if ever needed. */
void tcn_resolver_forget_after_fork(void);

#endif
