/* export_pftrace_packet.c - what every part of the Perfetto output writes with: a packet on
 * a sequence, with its interned data first. */
#include "trace/export_pftrace.h"

size_t tct_pf_packet_begin(struct tct_pftrace *p, uint32_t sequence, int64_t time, int needs_state)
{
    size_t m = tct_pb_begin(&p->pb, PF_TRACE_PACKET);
    if (time != TCT_TIME_NONE) /* packet times are unsigned: a time before the origin is put on it */
        tct_pb_varint(&p->pb, PF_PACKET_TIMESTAMP, time > 0 ? (uint64_t)time : 0);
    tct_pb_varint(&p->pb, PF_PACKET_SEQUENCE_ID, sequence);
    if (needs_state)
        tct_pb_varint(&p->pb, PF_PACKET_SEQUENCE_FLAGS, PF_SEQ_NEEDS_INCREMENTAL_STATE);
    return m;
}

void tct_pf_interned(struct tct_pftrace *p)
{
    if (!p->interned)
        p->interned = tct_pb_begin(&p->pb, PF_PACKET_INTERNED_DATA);
}

void tct_pf_packet_body(struct tct_pftrace *p)
{
    if (p->interned)
        tct_pb_end(&p->pb, p->interned);
    p->interned = 0;
}

void tct_pf_packet_end(struct tct_pftrace *p, size_t mark)
{
    tct_pf_packet_body(p);
    tct_pb_end(&p->pb, mark);
    tct_pb_flush_if_full(&p->pb);
}

void tct_pf_interned_string(struct tct_pftrace *p, uint32_t field, uint64_t iid, const char *s, size_t len)
{
    tct_pf_interned(p);
    size_t m = tct_pb_begin(&p->pb, field);
    tct_pb_varint(&p->pb, PF_IID, iid);
    tct_pb_bytes(&p->pb, PF_INTERNED_STR, s, len);
    tct_pb_end(&p->pb, m);
}
