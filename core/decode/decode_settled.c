/* decode_settled.c - whether the names of an id are final (tcd_name_settled, decode.h):
 * the client has answered what the decoder asked about it. */
#include "decode/decode_internal.h"
#include "decode/decode_tables.h"

static bool string_settled(const struct tcd_decoder *dec, uint64_t handle)
{
    return handle == 0 || handle > dec->strings.count ||
           !((const struct tcd_string_entry *)tcu_array_at(&dec->strings, handle - 1))->pending;
}

static bool named_settled(const struct tcu_array *v, uint64_t index)
{
    return index >= v->count || !((const struct tcd_named *)tcu_array_at(v, index))->pending;
}

bool tcd_name_settled(const struct tcd_decoder *dec, enum tcd_name_kind kind, uint64_t id)
{
    switch (kind) {
    case TCD_NAME_SRCLOC: {
        if (id >= dec->srclocs.count)
            return true;
        const struct tcd_srcloc_rec *rec = tcu_chunks_at(&dec->srclocs, id);
        return !rec->is_static || (rec->answered && string_settled(dec, rec->name_str) &&
                                   string_settled(dec, rec->function_str) && string_settled(dec, rec->file_str));
    }
    case TCD_NAME_THREAD: {
        const struct tcd_thread *td = id <= UINT32_MAX ? tcd_find_thread(dec, (uint32_t)id) : NULL;
        return !td || !td->name_pending;
    }
    case TCD_NAME_PLOT:
        return named_settled(&dec->plots, id);
    case TCD_NAME_FRAME_SET:
        return named_settled(&dec->frame_sets, id);
    case TCD_NAME_POOL:
        return id == 0 || id >= dec->pools.count ||
               string_settled(dec, *(const uint32_t *)tcu_array_at(&dec->pools, id));
    case TCD_NAME_STRING:
        return string_settled(dec, id);
    case TCD_NAME_FRAME: {
        const struct tcd_frame *f = id <= UINT32_MAX ? tcd_frame(dec, (uint32_t)id) : NULL;
        return !f || f->state != TCD_FRAME_UNRESOLVED;
    }
    case TCD_NAME_SYMBOL: {
        const uint64_t *index = id ? tcu_map_get(&dec->symbol_ids, id) : NULL;
        return !index || !((const struct tcd_symbol_rec *)tcu_array_at(&dec->symbols, *index))->pending;
    }
    }
    return true;
}
