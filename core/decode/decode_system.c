/* decode_system.c - what a client's system tracing sends (docs/protocol.md §25.5):
 * context switches and wakeups of every thread of the system, the process of each thread
 * (TidToPid), and the names of threads outside the client, which the decoder asks for
 * with an ExternalName query the first time a thread is switched in, as the server does.
 */
#include <inttypes.h>

#include "decode/decode_item.h"
#include "decode/decode_system.h"

enum { EXTERNAL_THREAD_NAME = 1, EXTERNAL_PROCESS_NAME = 2 };

static void check_external(struct tcd_decoder *dec, uint32_t thread)
{
    if (tcu_map_get(&dec->external_ids, thread))
        return;
    struct tcd_external *e = tcd_table_add(dec, &dec->externals, &dec->external_ids, thread);
    if (!e)
        return;
    *e = (struct tcd_external){"", "", EXTERNAL_THREAD_NAME | EXTERNAL_PROCESS_NAME};
    dec->pending_externals += 2;
    tcd_query(dec, TCW_QUERY_EXTERNAL_NAME, thread);
}

/* The time of a ContextSwitch or ThreadWakeup: 0 when the chain is at 0, which is what a
 * client whose clock conversion failed sends (as for samples, docs/protocol.md §25.4). */
static int64_t ctx_time(struct tcd_decoder *dec, const uint8_t *it)
{
    uint64_t ref = dec->ref_ctx += tcu_rd64(it + 1);
    return ref == 0 ? 0 : tcd_trace_time(dec, ref);
}

/* ContextSwitch: i64 time (context-switch chain), u32 old thread, u32 new thread, u8 cpu,
 * u8 old thread's wait reason, u8 old thread's state, u8 previous C-state, i8 new thread's
 * priority, i8 old thread's priority. */
void tcd_context_switch(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = ctx_time(dec, it);
    uint32_t old_thread = tcu_rd32(it + 9), new_thread = tcu_rd32(it + 13);
    if (new_thread)
        check_external(dec, new_thread);
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_CONTEXT_SWITCH,
                                      .time = t,
                                      .id = old_thread,
                                      .thread = new_thread,
                                      .query = it[17],
                                      .flags = it[18],
                                      .format = it[19]});
}

/* ThreadWakeup: i64 time (context-switch chain), u32 thread, u8 cpu, i8 adjust reason,
 * i8 adjust increment. */
void tcd_thread_wakeup(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = ctx_time(dec, it);
    tcd_emit(dec,
             &(struct tcd_event){.kind = TCD_THREAD_WAKEUP, .time = t, .thread = tcu_rd32(it + 9), .query = it[13]});
}

/* TidToPid: u64 thread, u64 process. The first answer for a thread stays, as in the server. */
void tcd_tid_to_pid(struct tcd_decoder *dec, const uint8_t *it)
{
    uint64_t tid = tcu_rd64(it + 1);
    if (!tcu_map_get(&dec->thread_pids, tid))
        tcu_map_put(&dec->thread_pids, tid, tcu_rd64(it + 9));
}

/* ExternalThreadName and ExternalName answer an ExternalName query; only the second
 * gives the query's room back (docs/protocol.md §6.3). */
int tcd_reply_external(struct tcd_decoder *dec, uint8_t type, uint64_t id, const uint8_t *s, size_t len)
{
    bool process = type == TCW_ExternalName;
    const uint64_t *index = tcu_map_get(&dec->external_ids, id);
    struct tcd_external *e = index ? tcu_array_at(&dec->externals, *index) : NULL;
    uint8_t bit = process ? EXTERNAL_PROCESS_NAME : EXTERNAL_THREAD_NAME;
    if (!e || !(e->pending & bit))
        return tcd_unsolicited(dec, process ? "ExternalName" : "ExternalThreadName", id);
    const char *name = tcd_intern(dec, s, len);
    if (process)
        e->process_name = name;
    else
        e->thread_name = name;
    e->pending &= (uint8_t)~bit;
    dec->pending_externals--;
    if (process)
        tcd_reply_received(dec);
    return 0;
}

static const struct tcd_external *external(const struct tcd_decoder *dec, uint32_t thread)
{
    const uint64_t *index = tcu_map_get(&dec->external_ids, thread);
    return index ? tcu_array_at(&dec->externals, *index) : NULL;
}

const char *tcd_external_thread_name(const struct tcd_decoder *dec, uint32_t thread)
{
    const struct tcd_external *e = external(dec, thread);
    return e ? e->thread_name : "";
}

const char *tcd_external_process_name(const struct tcd_decoder *dec, uint32_t thread)
{
    const struct tcd_external *e = external(dec, thread);
    return e ? e->process_name : "";
}

uint64_t tcd_thread_pid(const struct tcd_decoder *dec, uint32_t thread)
{
    const uint64_t *pid = tcu_map_get(&dec->thread_pids, thread);
    return pid ? *pid : 0;
}
