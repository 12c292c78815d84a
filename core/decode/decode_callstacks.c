/* decode_callstacks.c - callstacks (docs/protocol.md §25): the payloads that carry them,
 * the registers that hand them to the item they belong to, samples, and the client's
 * answers to the CallstackFrame and Symbol queries, with the tables that keep them.
 *
 * A payload becomes the *pending* callstack; Callstack / CallstackAlloc move it to the
 * current thread's register and CallstackSerial to the serial one, from which the next
 * *Callstack item takes it; a CallstackSample* takes the pending one directly. Every
 * step that finds its register empty (or full) fails the decoder, as every one of them
 * is an assertion in the server. Distinct callstacks are kept once; every new return
 * address is queried once (CallstackFrame), and every new symbol address in an answer
 * (Symbol), as the server does.
 */
#include <inttypes.h>
#include <stdio.h>

#include "decode/decode_callstacks.h"
#include "decode/decode_item.h"

#define CUSTOM_FRAMES_MAX 64 /* CallstackAllocPayload: the server keeps them in a 64-entry array */

/* Whether the NUL-terminated kept string equals s[0..len). */
static bool same_text(const char *kept, const uint8_t *s, size_t len)
{
    return !memchr(s, 0, len) && strncmp(kept, (const char *)s, len) == 0 && kept[len] == '\0';
}

/* ---- frames ------------------------------------------------------------------------------- */

static struct tcd_frame_rec *frame_at(const struct tcd_decoder *dec, uint32_t index)
{
    return tcu_chunks_at(&dec->frames, index);
}

static struct tcd_frame_rec *new_frame(struct tcd_decoder *dec)
{
    if (dec->frames.count >= UINT32_MAX / 2) {
        tcd_fail(dec, "decoder memory limit reached (too many callstack frames)");
        return NULL;
    }
    struct tcd_frame_rec *f = tcu_chunks_push(&dec->frames);
    if (f)
        f->pub.image = "";
    return f;
}

/* The frame of a return address; a new one is queried (CallstackFrame). UINT32_MAX when
 * memory ran out. */
static uint32_t address_frame(struct tcd_decoder *dec, uint64_t address)
{
    const uint64_t *index = tcu_map_get(&dec->address_frames, address);
    if (index)
        return (uint32_t)*index;
    struct tcd_frame_rec *f = new_frame(dec);
    uint32_t i = (uint32_t)dec->frames.count - 1;
    if (!f || tcu_map_put(&dec->address_frames, address, i) < 0)
        return UINT32_MAX;
    f->pub.address = address;
    f->queried = 1;
    dec->pending_callstack_frames++;
    tcd_query(dec, TCW_QUERY_CALLSTACK_FRAME, address);
    return i;
}

struct alloc_frame {
    uint32_t line;
    const uint8_t *name, *file;
    size_t name_len, file_len;
};

/* A frame the client described itself (CallstackAllocPayload), kept once by content. */
static uint32_t custom_frame(struct tcd_decoder *dec, const struct alloc_frame *a)
{
    uint64_t h = tcu_hash_bytes(tcu_hash_bytes(TCU_HASH_INIT ^ a->line, a->name, a->name_len), a->file, a->file_len);
    const uint64_t *newest = tcu_map_get(&dec->custom_frames, h);
    uint32_t older = newest ? (uint32_t)*newest + 1 : 0;
    for (uint32_t i = older; i;) {
        const struct tcd_frame_rec *f = frame_at(dec, i - 1);
        const struct tcd_subframe *s = f->pub.sub;
        if (s->line == a->line && same_text(s->function, a->name, a->name_len) &&
            same_text(s->file, a->file, a->file_len))
            return i - 1;
        i = f->same_hash;
    }
    struct tcd_frame_rec *f = new_frame(dec);
    struct tcd_subframe *sub = f ? tcu_alloc(&dec->budget, sizeof *sub) : NULL;
    if (!sub)
        return UINT32_MAX;
    *sub =
        (struct tcd_subframe){tcd_intern(dec, a->name, a->name_len), tcd_intern(dec, a->file, a->file_len), a->line, 0};
    f->pub.sub = sub;
    f->pub.count = 1;
    f->pub.state = TCD_FRAME_CUSTOM;
    f->same_hash = older;
    uint32_t index = (uint32_t)dec->frames.count - 1;
    return tcu_map_put(&dec->custom_frames, h, index) < 0 ? UINT32_MAX : index;
}

/* ---- callstacks ---------------------------------------------------------------------------- */

static struct tcd_callstack_rec *callstack_at(const struct tcd_decoder *dec, uint32_t id)
{
    return tcu_array_at(&dec->callstacks, id - 1);
}

static const uint32_t *callstack_frames(const struct tcd_decoder *dec, const struct tcd_callstack_rec *cs)
{
    return (const uint32_t *)dec->callstack_frames.data + cs->first;
}

/* Hashes of the two kinds of content: the addresses of a native payload, the frame
 * indices of a callstack with custom frames. A given content always gets the same kind. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static uint64_t addresses_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc908ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = mix(h, tcu_rd64(p + 8 * i));
    return h;
}

static uint64_t indices_hash(const uint32_t *frames, size_t n)
{
    uint64_t h = 0xbb67ae8584caa73bull ^ n;
    for (size_t i = 0; i < n; i++)
        h = mix(h, frames[i]);
    return h;
}

static bool same_addresses(const struct tcd_decoder *dec, const struct tcd_callstack_rec *cs, const uint8_t *p,
                           size_t n)
{
    if (cs->depth != n)
        return false;
    const uint32_t *frames = callstack_frames(dec, cs);
    for (size_t i = 0; i < n; i++) {
        const struct tcd_frame_rec *f = frame_at(dec, frames[i]);
        if (f->pub.state == TCD_FRAME_CUSTOM || f->pub.address != tcu_rd64(p + 8 * i))
            return false;
    }
    return true;
}

/* Makes the frame indices pushed at callstack_frames[first..] a callstack (or finds the
 * one with the same content, giving the pushed indices back). 0 when memory ran out. */
static uint32_t keep_callstack(struct tcd_decoder *dec, uint64_t h, uint32_t first, uint32_t depth, bool by_indices)
{
    const uint32_t *mine = (const uint32_t *)dec->callstack_frames.data + first;
    const uint64_t *newest = tcu_map_get(&dec->callstack_ids, h);
    uint32_t older = newest ? (uint32_t)*newest : 0;
    if (by_indices) {
        for (uint32_t id = older; id;) {
            const struct tcd_callstack_rec *cs = callstack_at(dec, id);
            if (cs->depth == depth && !memcmp(callstack_frames(dec, cs), mine, depth * sizeof *mine)) {
                dec->callstack_frames.count = first;
                return id;
            }
            id = cs->same_hash;
        }
    }
    struct tcd_callstack_rec *cs = tcd_table_add(dec, &dec->callstacks, NULL, 0);
    if (!cs || tcu_map_put(&dec->callstack_ids, h, dec->callstacks.count) < 0)
        return 0;
    *cs = (struct tcd_callstack_rec){first, depth, older};
    return (uint32_t)dec->callstacks.count;
}

static int reserve_frames(struct tcd_decoder *dec, size_t more)
{
    if (dec->callstack_frames.count + more >= UINT32_MAX / 2) {
        tcd_fail(dec, "decoder memory limit reached (callstacks too large)");
        return -1;
    }
    return tcu_array_reserve(&dec->callstack_frames, dec->callstack_frames.count + more);
}

/* CallstackPayload: u64 return addresses, innermost first. */
void tcd_callstack_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len)
{
    if (dec->pending_callstack) {
        tcd_item_fail(dec, "CallstackPayload while the previous callstack was not consumed by any item");
        return;
    }
    if (len == 0 || len % 8) {
        char msg[96];
        snprintf(msg, sizeof msg, "callstack payload of %zu bytes (must be 1 or more 8-byte addresses)", len);
        tcd_item_fail(dec, msg);
        return;
    }
    size_t n = len / 8;
    uint64_t h = addresses_hash(p, n);
    const uint64_t *newest = tcu_map_get(&dec->callstack_ids, h);
    for (uint32_t id = newest ? (uint32_t)*newest : 0; id;) {
        const struct tcd_callstack_rec *cs = callstack_at(dec, id);
        if (same_addresses(dec, cs, p, n)) {
            dec->pending_callstack = id;
            return;
        }
        id = cs->same_hash;
    }
    if (reserve_frames(dec, n) != 0)
        return;
    uint32_t first = (uint32_t)dec->callstack_frames.count;
    for (size_t i = 0; i < n; i++) {
        uint32_t frame = address_frame(dec, tcu_rd64(p + 8 * i));
        if (frame == UINT32_MAX)
            return;
        *(uint32_t *)tcu_array_push(&dec->callstack_frames) = frame;
    }
    dec->pending_callstack = keep_callstack(dec, h, first, (uint32_t)n, false);
}

/* One frame of a CallstackAllocPayload at *off: u32 line, u16 length + function name,
 * u16 length + file; -1 when it overruns the payload. */
static int alloc_frame_at(const uint8_t *p, size_t len, size_t *off, struct alloc_frame *a)
{
    size_t o = *off;
    if (len - o < 6)
        return -1;
    a->line = tcu_rd32(p + o);
    a->name_len = tcu_rd16(p + o + 4);
    o += 6;
    if (len - o < a->name_len + 2u)
        return -1;
    a->name = p + o;
    o += a->name_len;
    a->file_len = tcu_rd16(p + o);
    o += 2;
    if (len - o < a->file_len)
        return -1;
    a->file = p + o;
    *off = o + a->file_len;
    return 0;
}

/* CallstackAllocPayload: u8 count, then per frame u32 line, u16 length + function name,
 * u16 length + file. The frames go in front of the native callstack pending, if any. */
void tcd_callstack_alloc_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len)
{
    if (len < 1 || p[0] > CUSTOM_FRAMES_MAX) {
        char msg[96];
        snprintf(msg, sizeof msg, "CallstackAllocPayload with %u frames (at most %u)", len ? p[0] : 0,
                 CUSTOM_FRAMES_MAX);
        tcd_item_fail(dec, len ? msg : "empty CallstackAllocPayload");
        return;
    }
    uint32_t count = p[0], native = dec->pending_callstack;
    uint32_t native_depth = native ? callstack_at(dec, native)->depth : 0;
    if (count == 0) {
        if (!native)
            tcd_item_fail(dec, "CallstackAllocPayload with no frames and no callstack before it");
        return; /* the native callstack stays pending as it is */
    }
    if (reserve_frames(dec, count + (size_t)native_depth) != 0)
        return;
    uint32_t first = (uint32_t)dec->callstack_frames.count;
    size_t off = 1;
    for (uint32_t i = 0; i < count; i++) {
        struct alloc_frame a;
        if (alloc_frame_at(p, len, &off, &a) != 0) {
            tcd_item_fail(dec, "CallstackAllocPayload frame overruns the payload");
            return;
        }
        uint32_t frame = custom_frame(dec, &a);
        if (frame == UINT32_MAX)
            return;
        *(uint32_t *)tcu_array_push(&dec->callstack_frames) = frame;
    }
    if (off != len) {
        dec->callstack_frames.count = first;
        tcd_item_fail(dec, "CallstackAllocPayload has bytes after its last frame");
        return;
    }
    for (uint32_t i = 0; i < native_depth; i++) { /* index: the array does not move (reserved) */
        uint32_t frame = callstack_frames(dec, callstack_at(dec, native))[i];
        *(uint32_t *)tcu_array_push(&dec->callstack_frames) = frame;
    }
    uint32_t depth = count + native_depth;
    uint64_t h = indices_hash((const uint32_t *)dec->callstack_frames.data + first, depth);
    dec->pending_callstack = keep_callstack(dec, h, first, depth, true);
}

static uint32_t take_pending(struct tcd_decoder *dec)
{
    uint32_t id = dec->pending_callstack;
    if (!id)
        tcd_item_fail(dec, "no callstack payload precedes the item");
    dec->pending_callstack = 0;
    return id;
}

/* Callstack, CallstackAlloc (the current thread's next item) and CallstackSerial. */
void tcd_callstack_item(struct tcd_decoder *dec, bool serial)
{
    uint32_t id = take_pending(dec);
    if (!id)
        return;
    if (serial) {
        if (dec->serial_callstack)
            tcd_item_fail(dec, "CallstackSerial while the previous one was not consumed by any item");
        dec->serial_callstack = id;
        return;
    }
    uint32_t thread = tcd_current_thread(dec)->id;
    const uint64_t *waiting = tcu_map_get(&dec->next_callstacks, thread);
    if (waiting && *waiting) {
        tcd_item_fail(dec, "a callstack is already waiting for this thread's next item");
        return;
    }
    tcu_map_put(&dec->next_callstacks, thread, id);
}

uint32_t tcd_take_thread_callstack(struct tcd_decoder *dec, bool required)
{
    uint64_t *waiting = tcu_map_get(&dec->next_callstacks, tcd_current_thread(dec)->id);
    if (!waiting || !*waiting) {
        if (required)
            tcd_item_fail(dec, "no Callstack item precedes the item (on this thread)");
        return 0;
    }
    uint32_t id = (uint32_t)*waiting;
    *waiting = 0;
    return id;
}

uint32_t tcd_take_serial_callstack(struct tcd_decoder *dec)
{
    uint32_t id = dec->serial_callstack;
    if (!id)
        tcd_item_fail(dec, "no CallstackSerial item precedes the item");
    dec->serial_callstack = 0;
    return id;
}

/* CallstackSample* and CallstackSampleContextSwitch*: u32 thread, then the time on the
 * context-switch chain (docs/protocol.md §25.4). */
void tcd_callstack_sample(struct tcd_decoder *dec, uint32_t thread, uint64_t delta, bool switched_out)
{
    uint32_t id = take_pending(dec);
    if (!id)
        return;
    uint64_t ref = dec->ref_ctx += delta;
    int64_t t = ref == 0 ? 0 : tcd_trace_time(dec, ref); /* the server keeps 0 as "no time" */
    struct tcd_thread *td = tcd_notice_thread(dec, thread);
    if (!switched_out)
        dec->stats.samples++;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_SAMPLE,
                                      .thread = td == &dec->scratch_thread ? thread : td->id,
                                      .time = t,
                                      .callstack = id,
                                      .flags = switched_out ? TCD_SAMPLE_SWITCH : 0});
}

/* ---- answers: CallstackFrameSize, CallstackFrame, SymbolInformation --------------------------- */

/* CallstackFrameSize: u64 address, u8 number of source frames; the single string is the
 * image. The frames follow as CallstackFrame items. */
void tcd_callstack_frame_size(struct tcd_decoder *dec, const uint8_t *it)
{
    uint64_t address = tcu_rd64(it + 1);
    uint8_t count = it[9];
    const uint8_t *image;
    size_t len;
    if (tcd_take_single(dec, &image, &len) != 0)
        return;
    char msg[160];
    if (dec->open_frame) {
        snprintf(msg, sizeof msg, "CallstackFrameSize while frame 0x%" PRIx64 " still expects %u CallstackFrame items",
                 dec->open_frame->pub.address, dec->open_frame_left);
        tcd_item_fail(dec, msg);
        return;
    }
    const uint64_t *index = tcu_map_get(&dec->address_frames, address);
    struct tcd_frame_rec *f = index ? frame_at(dec, (uint32_t)*index) : NULL;
    if (!f || !f->queried) {
        snprintf(msg, sizeof msg, "unsolicited CallstackFrameSize for address 0x%" PRIx64 " (%s)", address,
                 f ? "answered before" : "never queried");
        tcd_item_fail(dec, msg);
        return;
    }
    if (count == 0) {
        tcd_item_fail(dec, "CallstackFrameSize with no frames (an unknown frame is one frame named \"?\")");
        return;
    }
    struct tcd_subframe *sub = tcu_alloc(&dec->budget, count * sizeof *sub);
    if (!sub)
        return;
    f->queried = 0;
    dec->pending_callstack_frames--;
    tcd_reply_received(dec);
    f->pub.image = tcd_intern(dec, image, len);
    f->pub.sub = sub;
    dec->open_frame = f;
    dec->open_frame_index = (uint32_t)*index;
    dec->open_frame_left = count;
    dec->open_frame_size = count;
}

static void query_symbol(struct tcd_decoder *dec, uint64_t symbol)
{
    if (symbol == 0 || tcu_map_get(&dec->symbol_ids, symbol))
        return;
    struct tcd_symbol_rec *s = tcd_table_add(dec, &dec->symbols, &dec->symbol_ids, symbol);
    if (!s)
        return;
    *s = (struct tcd_symbol_rec){.file = "", .pending = 1};
    dec->pending_symbols++;
    tcd_query(dec, TCW_QUERY_SYMBOL, symbol);
}

/* CallstackFrame: u32 line, u64 symbol address, u32 symbol length; the single string is
 * the function, the second the file. */
void tcd_callstack_frame(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_frame_rec *f = dec->open_frame;
    if (!f) {
        tcd_item_fail(dec, "CallstackFrame without a CallstackFrameSize announcing it");
        return;
    }
    const uint8_t *function, *file;
    size_t flen, slen;
    if (tcd_take_single(dec, &function, &flen) != 0 || tcd_take_second(dec, &file, &slen) != 0)
        return;
    uint64_t symbol = tcu_rd64(it + 5);
    struct tcd_subframe *sub = (struct tcd_subframe *)f->pub.sub + (dec->open_frame_size - dec->open_frame_left);
    *sub =
        (struct tcd_subframe){tcd_intern(dec, function, flen), tcd_intern(dec, file, slen), tcu_rd32(it + 1), symbol};
    query_symbol(dec, symbol);
    if (--dec->open_frame_left)
        return;
    f->pub.count = dec->open_frame_size;
    f->pub.state = TCD_FRAME_RESOLVED;
    dec->open_frame = NULL;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_CALLSTACK_FRAME, .id = dec->open_frame_index});
}

/* SymbolInformation: u32 line, u64 symbol address; the single string is the file. */
void tcd_symbol_information(struct tcd_decoder *dec, const uint8_t *it)
{
    const uint8_t *file;
    size_t len;
    if (tcd_take_single(dec, &file, &len) != 0)
        return;
    uint64_t symbol = tcu_rd64(it + 5);
    const uint64_t *index = tcu_map_get(&dec->symbol_ids, symbol);
    struct tcd_symbol_rec *s = index ? tcu_array_at(&dec->symbols, *index) : NULL;
    if (!s || !s->pending) {
        tcd_unsolicited(dec, "SymbolInformation", symbol);
        return;
    }
    s->file = tcd_intern(dec, file, len);
    s->line = tcu_rd32(it + 1);
    s->pending = 0;
    dec->pending_symbols--;
    tcd_reply_received(dec);
}

/* ---- tables --------------------------------------------------------------------------------- */

void tcd_callstack_tables_free(struct tcd_decoder *dec)
{
    for (size_t i = 0; i < dec->frames.count; i++) {
        struct tcd_frame_rec *f = frame_at(dec, (uint32_t)i);
        size_t n = f->pub.state == TCD_FRAME_CUSTOM ? 1 : f == dec->open_frame ? dec->open_frame_size : f->pub.count;
        tcu_free(&dec->budget, (void *)f->pub.sub, n * sizeof *f->pub.sub);
    }
    tcu_chunks_free(&dec->frames);
}

uint32_t tcd_callstack_count(const struct tcd_decoder *dec)
{
    return (uint32_t)dec->callstacks.count;
}

const uint32_t *tcd_callstack(const struct tcd_decoder *dec, uint32_t id, uint32_t *depth)
{
    if (id == 0 || id > dec->callstacks.count) {
        *depth = 0;
        return NULL;
    }
    const struct tcd_callstack_rec *cs = callstack_at(dec, id);
    *depth = cs->depth;
    return callstack_frames(dec, cs);
}

uint32_t tcd_frame_count(const struct tcd_decoder *dec)
{
    return (uint32_t)dec->frames.count;
}

const struct tcd_frame *tcd_frame(const struct tcd_decoder *dec, uint32_t index)
{
    return index < dec->frames.count ? &frame_at(dec, index)->pub : NULL;
}

int tcd_symbol(const struct tcd_decoder *dec, uint64_t symbol, const char **file, uint32_t *line)
{
    const uint64_t *index = symbol ? tcu_map_get(&dec->symbol_ids, symbol) : NULL;
    const struct tcd_symbol_rec *s = index ? tcu_array_at(&dec->symbols, *index) : NULL;
    if (!s || s->pending)
        return 0;
    *file = s->file;
    *line = s->line;
    return 1;
}
