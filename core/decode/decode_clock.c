/* decode_clock.c - tracyc's clock extension (docs/protocol.md §28): a tracyc client's
 * readings of its clocks, unsolicited or answering a probe, and the probes. */
#include "decode/decode_clock.h"
#include "decode/decode_item.h"
#include "decode/decode_tables.h"

/* TracycClock: i64 event clock (ticks), i64 CLOCK_MONOTONIC_RAW ns, i64 CLOCK_REALTIME ns,
 * u64 host id, u32 probe id. Only from a client asked for it, like a rename (§27). */
void tcd_clock_item(struct tcd_decoder *dec, const uint8_t *it)
{
    if (dec->clock == TCD_CLOCK_NONE) {
        tcd_item_fail(dec, "a clock reading from a client that was not asked for them");
        return;
    }
    dec->clock = TCD_CLOCK_TAKEN;
    struct tcd_event ev = {.kind = TCD_CLOCK_SYNC};
    ev.time = tcd_trace_time(dec, tcu_rd64(it + 1));
    ev.value = tcu_rd64(it + 9);
    ev.time2 = (int64_t)tcu_rd64(it + 17);
    ev.address = tcu_rd64(it + 25);
    ev.id = tcu_rd32(it + 33);
    if (ev.id && ev.id == dec->probe_pending)
        dec->probe_pending = 0;
    tcd_emit(dec, &ev);
}

/* Sent at once, past the queue and its limit: the time it leaves is what the probe
 * measures. Until its reading comes the decoder is not done, so that a client that ends
 * right after its first reading is still asked once, and answers. Its AckServerQueryNoop,
 * which follows the reading, is counted like any query's reply. */
int tcd_decoder_probe_clock(struct tcd_decoder *dec, uint32_t id)
{
    if (dec->clock != TCD_CLOCK_TAKEN || dec->state != TCD_STATE_RUNNING)
        return -1;
    uint8_t packet[TCW_QUERY_SIZE] = {tcw_query_to_wire(TCW_QUERY_TRACYC_CLOCK_PROBE, dec->vi)};
    uint64_t ptr = id;
    memcpy(packet + 1, &ptr, 8);
    dec->outstanding++;
    dec->stats.queries_sent++;
    dec->probe_pending = id;
    if (dec->cb.on_query)
        dec->cb.on_query(dec->query_user, packet);
    return 0;
}

enum tcd_state tcd_decoder_probe_lost(struct tcd_decoder *dec, uint32_t id)
{
    if (id && id == dec->probe_pending) {
        dec->probe_pending = 0;
        if (dec->state == TCD_STATE_RUNNING && dec->terminated && tcd_done(dec))
            dec->state = TCD_STATE_DONE;
    }
    return dec->state;
}
