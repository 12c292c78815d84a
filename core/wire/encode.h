/* encode.h - protocol items for one connection, framed and LZ4-compressed.
 *
 * The encoder owns the connection's item stream: the time-reference chains (R_thread,
 * R_serial, R_gpu), the current thread context, and the LZ4 streaming compressor with
 * upstream's buffer discipline (a 3 x 256 KiB ring, so the last 64 KiB of input stay in
 * place for the compressor). Items never straddle frames. Frames go to `write`.
 *
 * Item writers always write protocol 82: p[0] of the space tcw_enc_item() returns gets a
 * logical TCW_* type and the body 82's layout. On a connection of another version
 * (tcw_enc_set_version) each item is rewritten into that version's opcode and layout as
 * soon as it is complete, i.e. when the next item is reserved or the frame is flushed
 * (wire/versions.h); a writer never needs to know the version. Items a version lacks must
 * not be written (tcw_enc_has): the caller drops the whole event.
 */
#ifndef TRACYC_WIRE_ENCODE_H
#define TRACYC_WIRE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

union LZ4_stream_u;

typedef int (*tcw_write_fn)(void *user, const void *data, size_t len);

struct tcw_encoder {
    uint8_t *ring;
    size_t start, pos;
    uint8_t *out;
    union LZ4_stream_u *lz4;
    int64_t ref_thread, ref_serial, ref_gpu, ref_ctx;
    uint32_t thread; /* current ThreadContext, 0 = none */
    tcw_write_fn write;
    tcw_write_fn write_items; /* set: frames go to it uncompressed, with no size (same process) */
    void *user;
    int failed; /* the transport failed: everything is discarded */
    uint64_t bytes_out;
    int vi;          /* protocol version index (wire/versions.h), 0 = protocol 82 */
    int pending;     /* an item at `last` still awaits its conversion to version vi */
    size_t last;     /* ring offset of the most recent item */
    uint64_t absent; /* items written although version vi lacks them (dropped) */
};

int tcw_enc_init(struct tcw_encoder *e, tcw_write_fn write, void *user);
void tcw_enc_free(struct tcw_encoder *e);
/* Frames go to write_items as their items, uncompressed and with no size in front, instead
 * of to the writer LZ4-framed: for a decoder in the same process (tcd_decoder_feed_items). */
void tcw_enc_set_items_writer(struct tcw_encoder *e, tcw_write_fn write_items);
/* Speak protocol version index vi (wire/versions.h) from now on; call before any item. */
void tcw_enc_set_version(struct tcw_encoder *e, int vi);
/* Whether the connection's protocol has the logical item type. */
int tcw_enc_has(const struct tcw_encoder *e, uint8_t type);
/* Flush pending items as one frame. 0, or -1 when the transport failed. */
int tcw_enc_flush(struct tcw_encoder *e);

/* Room for an n-byte protocol-82 item (n <= 256 KiB - TCW_CONVERT_GROWTH), flushing first
 * when the frame is full. The caller writes the logical type at p[0] and the body. */
uint8_t *tcw_enc_item(struct tcw_encoder *e, size_t n);

/* Item writers. Times are raw clock ticks; the encoder applies the delta chains. */
/* A ThreadContext item when tid is not the current thread (inline: checked per item). */
void tcw_enc_thread_switch(struct tcw_encoder *e, uint32_t tid);
static inline void tcw_enc_thread(struct tcw_encoder *e, uint32_t tid)
{
    if (e->thread != tid)
        tcw_enc_thread_switch(e, tid);
}
/* For a thread-bound event at `time` handed to a decoder in this process without its item
 * (client/conn_records.c): flushes the items before it, which the decoder takes first, and
 * moves the thread's time chain on as the item would have. 0, or -1 when the transport failed. */
static inline int tcw_enc_thread_bypass(struct tcw_encoder *e, int64_t time)
{
    e->ref_thread = time;
    return e->pos != e->start || e->failed ? tcw_enc_flush(e) : 0;
}
void tcw_enc_zone_begin(struct tcw_encoder *e, int64_t time, uint64_t srcloc);
/* The same zone with the callstack sent just before it (tcw_enc_callstack, TCW_Callstack). */
void tcw_enc_zone_begin_callstack(struct tcw_encoder *e, int64_t time, uint64_t srcloc);
/* An allocated source location in upstream's layout ([u16 size][color][line][strings],
 * size counting itself), sent as a SourceLocationPayload for the next zone begin. */
void tcw_enc_srcloc_payload(struct tcw_encoder *e, const uint8_t *blob);
void tcw_enc_zone_begin_alloc(struct tcw_encoder *e, int64_t time, const uint8_t *blob);
void tcw_enc_zone_begin_alloc_callstack(struct tcw_encoder *e, int64_t time, const uint8_t *blob);
void tcw_enc_zone_end(struct tcw_encoder *e, int64_t time);
void tcw_enc_zone_text(struct tcw_encoder *e, uint8_t type, const char *text, size_t len);
void tcw_enc_zone_color(struct tcw_encoder *e, uint32_t color);
void tcw_enc_zone_value(struct tcw_encoder *e, uint64_t value);
void tcw_enc_single_string(struct tcw_encoder *e, const char *text, size_t len);
void tcw_enc_message(struct tcw_encoder *e, int64_t time, const char *text, size_t len, uint32_t color, uint8_t meta);
void tcw_enc_message_literal(struct tcw_encoder *e, int64_t time, uint64_t text_id, uint32_t color, uint8_t meta);
/* Messages whose callstack was sent just before them (tcw_enc_callstack, TCW_Callstack). */
void tcw_enc_message_callstack(struct tcw_encoder *e, int64_t time, const char *text, size_t len, uint32_t color,
                               uint8_t meta);
void tcw_enc_message_literal_callstack(struct tcw_encoder *e, int64_t time, uint64_t text_id, uint32_t color,
                                       uint8_t meta);
void tcw_enc_app_info(struct tcw_encoder *e, int64_t time, const char *text, size_t len);
void tcw_enc_plot(struct tcw_encoder *e, uint8_t type, uint64_t name, int64_t time, uint64_t value_bits);
void tcw_enc_plot_config(struct tcw_encoder *e, uint64_t name, uint8_t format, uint8_t step, uint8_t fill,
                         uint32_t color);
void tcw_enc_frame_mark(struct tcw_encoder *e, uint8_t type, int64_t time, uint64_t name);
void tcw_enc_frame_image(struct tcw_encoder *e, uint64_t id, const uint8_t *dxt, uint32_t size, uint32_t frame,
                         uint16_t w, uint16_t h, uint8_t flip);
void tcw_enc_fiber_enter(struct tcw_encoder *e, int64_t time, uint64_t fiber, uint32_t tid);
void tcw_enc_fiber_leave(struct tcw_encoder *e, int64_t time, uint32_t tid);
void tcw_enc_gpu_zone_begin(struct tcw_encoder *e, uint8_t type, int64_t time, uint32_t tid, uint16_t query,
                            uint8_t ctx, uint64_t srcloc, int serial);
void tcw_enc_gpu_zone_end(struct tcw_encoder *e, uint8_t type, int64_t time, uint32_t tid, uint16_t query, uint8_t ctx,
                          int serial);
void tcw_enc_gpu_time(struct tcw_encoder *e, int64_t gpu_time, uint16_t query, uint8_t ctx);
void tcw_enc_gpu_new_context(struct tcw_encoder *e, int64_t cpu, int64_t gpu, uint32_t tid, float period, uint8_t ctx,
                             uint8_t flags, uint8_t type);
void tcw_enc_gpu_context_name(struct tcw_encoder *e, uint8_t ctx, const char *name, size_t len);
void tcw_enc_gpu_calibration(struct tcw_encoder *e, int64_t gpu, int64_t cpu, int64_t cpu_delta, uint8_t ctx);
void tcw_enc_gpu_time_sync(struct tcw_encoder *e, int64_t gpu, int64_t cpu, uint8_t ctx);
/* callstack: the Callstack form, whose callstack was sent just before (TCW_CallstackSerial). */
void tcw_enc_mem_alloc(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t addr, uint64_t size, uint64_t pool,
                       int callstack);
void tcw_enc_mem_free(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t addr, uint64_t pool, int callstack);
void tcw_enc_mem_discard(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t pool, int callstack);
void tcw_enc_lock_announce(struct tcw_encoder *e, uint32_t id, int64_t time, uint64_t srcloc, uint8_t shared);
void tcw_enc_lock_terminate(struct tcw_encoder *e, uint32_t id, int64_t time);
void tcw_enc_lock_event(struct tcw_encoder *e, uint8_t type, uint32_t id, int64_t time, uint32_t tid);
void tcw_enc_lock_mark(struct tcw_encoder *e, uint32_t id, uint32_t tid, uint64_t srcloc);
void tcw_enc_lock_name(struct tcw_encoder *e, uint32_t id, const char *name, size_t len);
void tcw_enc_section_enter(struct tcw_encoder *e, int64_t time, uint32_t id, uint16_t category, const char *text,
                           size_t len);
void tcw_enc_section_leave(struct tcw_encoder *e, int64_t time, uint32_t id);
void tcw_enc_section_setup(struct tcw_encoder *e, uint16_t category, const char *text, size_t len);
/* Callstacks and sampling (docs/protocol.md §26). tcw_enc_callstack sends n addresses as
 * a CallstackPayload and then `type`: TCW_Callstack (for the current thread's next event)
 * or TCW_CallstackSerial (for the next serial event). */
void tcw_enc_callstack(struct tcw_encoder *e, uint8_t type, const uint64_t *frames, size_t n);
/* A CPU sample of thread tid: its payload, then CallstackSample(16/32). Context-switch
 * time chain. */
void tcw_enc_callstack_sample(struct tcw_encoder *e, uint32_t tid, int64_t time, const uint64_t *frames, size_t n);
/* old_tid stopped and/or new_tid started running on cpu (0: none). */
void tcw_enc_context_switch(struct tcw_encoder *e, int64_t time, uint32_t old_tid, uint32_t new_tid, uint8_t cpu,
                            uint8_t reason, uint8_t state);
/* Thread tid belongs to process pid (for threads known from context switches). */
void tcw_enc_tid_to_pid(struct tcw_encoder *e, uint64_t tid, uint64_t pid);
/* tracyc's TracycClock item (docs/protocol.md §28): the event clock (ticks, as event times),
 * CLOCK_MONOTONIC_RAW and CLOCK_REALTIME in ns read with it, the host id, the probe id
 * answered (0: none). */
void tcw_enc_tracyc_clock(struct tcw_encoder *e, int64_t ticks, int64_t raw_ns, int64_t real_ns, uint64_t host,
                          uint32_t probe);
/* Replies to server queries. */
void tcw_enc_second_string(struct tcw_encoder *e, const char *text, size_t len);
/* A CallstackFrame reply: image name and frame count, then each frame (innermost first). */
void tcw_enc_callstack_frame_size(struct tcw_encoder *e, uint64_t address, uint8_t frames, const char *image,
                                  size_t image_len);
void tcw_enc_callstack_frame(struct tcw_encoder *e, const char *name, size_t name_len, const char *file,
                             size_t file_len, uint32_t line, uint64_t sym_addr, uint32_t sym_len);
/* A Symbol reply. */
void tcw_enc_symbol_information(struct tcw_encoder *e, uint64_t sym_addr, const char *file, size_t file_len,
                                uint32_t line);
void tcw_enc_string_reply(struct tcw_encoder *e, uint8_t type, uint64_t id, const char *text, size_t len);
void tcw_enc_srcloc_reply(struct tcw_encoder *e, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                          uint32_t color);
void tcw_enc_byte(struct tcw_encoder *e, uint8_t type);
void tcw_enc_source_unavailable(struct tcw_encoder *e, uint32_t id);

#endif
