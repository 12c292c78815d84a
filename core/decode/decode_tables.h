/* decode_tables.h - the decoder's memory and symbol tables, the strings it keeps, and its
 * queries (decode_tables.c). */
#ifndef TRACYC_DECODE_DECODE_TABLES_H
#define TRACYC_DECODE_DECODE_TABLES_H

#include "decode/decode_internal.h"

/* Memory. Every table allocates through dec->budget, bounded by max_memory, whose
 * refusals FAIL the decoder. */
int tcd_tables_init(struct tcd_decoder *dec, size_t max_memory);
void tcd_tables_free(struct tcd_decoder *dec);
/* A zero-filled new element of a table indexed by uint32_t, at index v->count, mapped
 * from key in ids (unless ids is NULL); NULL (and FAILED) when memory ran out. */
void *tcd_table_add(struct tcd_decoder *dec, struct tcu_array *v, struct tcu_map *ids, uint64_t key);
const char *tcd_arena_strdup(struct tcd_decoder *dec, const void *s, size_t len);
/* A copy of s[0..len) kept once for the decoder's lifetime however often it comes (frame
 * functions, files, images, thread names); "" when memory ran out. */
const char *tcd_intern(struct tcd_decoder *dec, const void *s, size_t len);
int tcd_pending_keep(struct tcd_decoder *dec, struct tcd_pending_bytes *pb);

/* Symbol tables; each sends the query the real server sends for a new identifier. On
 * allocation failure the decoder is FAILED and a harmless stand-in is returned (handle 0,
 * index 0, the scratch thread). */
uint32_t tcd_check_string(struct tcd_decoder *dec, uint64_t id);
/* What an event carries of a string handle's text: the text, or "" while unanswered (the
 * outputs look the handle up again, tct_text_or_string). */
const char *tcd_string_answered(const struct tcd_decoder *dec, uint32_t handle);
struct tcd_thread *tcd_find_thread(const struct tcd_decoder *dec, uint32_t tid);
struct tcd_thread *tcd_notice_thread(struct tcd_decoder *dec, uint32_t tid);
struct tcd_thread *tcd_fiber_thread(struct tcd_decoder *dec, uint64_t fiber);
uint32_t tcd_check_srcloc(struct tcd_decoder *dec, uint64_t id);
uint32_t tcd_payload_srcloc(struct tcd_decoder *dec, uint32_t color, uint32_t line, const char *function, size_t flen,
                            const char *file, size_t slen, const char *name, size_t nlen);
uint32_t tcd_check_plot(struct tcd_decoder *dec, uint64_t name);
uint32_t tcd_check_frame_set(struct tcd_decoder *dec, uint64_t name, bool create);
uint32_t tcd_find_pool(const struct tcd_decoder *dec, uint64_t name);
uint32_t tcd_check_pool(struct tcd_decoder *dec, uint64_t name);
int tcd_zone_stack_grow(struct tcd_decoder *dec, struct tcd_thread *td);

static inline int tcd_zone_push(struct tcd_decoder *dec, struct tcd_thread *td)
{
    if (td->depth == td->cap && tcd_zone_stack_grow(dec, td) != 0)
        return -1;
    td->zone_ids[td->depth++] = td->next_zone_id;
    td->next_zone_id = 0;
    dec->open_zones++;
    return 0;
}

/* Replies; each returns -1 (and fails) when nothing asked for it. */
int tcd_reply_string(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
int tcd_reply_thread_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
int tcd_reply_plot_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
int tcd_reply_frame_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
int tcd_reply_fiber_name(struct tcd_decoder *dec, uint64_t id, const uint8_t *s, size_t len);
int tcd_reply_srcloc(struct tcd_decoder *dec, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                     uint32_t color);
int tcd_reply_ack(struct tcd_decoder *dec, uint8_t type);

/* A reply gives back a unit of query space; an unsolicited one fails. */
void tcd_reply_received(struct tcd_decoder *dec);
int tcd_unsolicited(struct tcd_decoder *dec, const char *what, uint64_t id);

/* Queries */
void tcd_query(struct tcd_decoder *dec, uint8_t type, uint64_t ptr);
void tcd_flush_queries(struct tcd_decoder *dec);
bool tcd_nothing_pending(const struct tcd_decoder *dec);
/* The client terminated and everything it owes has come: the decoder is DONE. */
bool tcd_done(const struct tcd_decoder *dec);

#endif
