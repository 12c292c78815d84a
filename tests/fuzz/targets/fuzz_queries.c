/* fuzz_queries - the client's answers to server queries: any bytes a server could send
 * after the handshake (13-byte query packets, arriving cut anywhere) go to a tc_conn over
 * an in-memory transport, interleaved with the client's own records.
 *
 * The answering must read only what the client itself put on the connection. The objects
 * the client registers live at a fixed address (so seeds and the fuzzer's comparisons can
 * name them), next to an inaccessible page holding a look-alike source location and
 * string that were never registered: answering from either one faults at once.
 */
#include "client/conn.h"
#include "client/state.h"
#include "client/record.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_ADDRESS ((void *)0x5a5a00000000ull) /* away from ASan's heap and shadow */
#define PAGE 4096
#define FUZZ_TID 77

/* Page 0 (readable): what the client registers. Page 1 (no access): the look-alikes. */
struct arena {
    struct ___tracy_source_location_data zone_loc, lock_loc, bare_loc;
    char zone_name[16], function[16], file[16], message[16], plot[16], frame[16], fiber[16], pool[16];
};

static struct arena *arena;

static void copy(char *dst, const char *s)
{
    strcpy(dst, s);
}

static void arena_init(void)
{
    uint8_t *base =
        mmap(ARENA_ADDRESS, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (base == MAP_FAILED)
        abort();
    arena = (struct arena *)base;
    copy(arena->zone_name, "zone");
    copy(arena->function, "function");
    copy(arena->file, "file.c");
    copy(arena->message, "message");
    copy(arena->plot, "plot");
    copy(arena->frame, "frame");
    copy(arena->fiber, "fiber");
    copy(arena->pool, "pool");
    arena->zone_loc =
        (struct ___tracy_source_location_data){arena->zone_name, arena->function, arena->file, 12, 0xff0000};
    arena->lock_loc = (struct ___tracy_source_location_data){NULL, arena->function, arena->file, 34, 0};
    arena->bare_loc = (struct ___tracy_source_location_data){"", NULL, NULL, 0, 0};
    /* The look-alikes: a source location whose strings point at registered text. */
    struct ___tracy_source_location_data *fake = (void *)(base + PAGE);
    *fake = arena->zone_loc;
    strcpy((char *)(base + PAGE + 256), "never registered");
    mprotect(base + PAGE, PAGE, PROT_NONE);
    tc_names_set(FUZZ_TID, "fuzz thread");
}

/* ---- the in-memory transport: the handshake, then the input in varying pieces --------- */

struct mem_transport {
    struct tc_transport base;
    const uint8_t *data;
    size_t len, off;
    size_t hello_off;
    int paused; /* the previous call delivered bytes: report "nothing more for now" once */
    uint64_t sent;
};

static const uint8_t hello[12] = {'T', 'r', 'a', 'c', 'y', 'P', 'r', 'f', 82, 0, 0, 0};

static int mem_send(struct tc_transport *t, const void *data, size_t len)
{
    struct mem_transport *m = (struct mem_transport *)t;
    (void)data;
    m->sent += len;
    return 0;
}

static long mem_recv(struct tc_transport *t, void *buf, size_t cap, int timeout_ms)
{
    struct mem_transport *m = (struct mem_transport *)t;
    (void)timeout_ms;
    if (m->hello_off < sizeof hello) {
        size_t n = sizeof hello - m->hello_off < cap ? sizeof hello - m->hello_off : cap;
        memcpy(buf, hello + m->hello_off, n);
        m->hello_off += n;
        return (long)n;
    }
    if (m->paused) {
        m->paused = 0;
        return 0;
    }
    if (m->off == m->len)
        return -1;                             /* the server went away */
    size_t n = 1 + (m->off * 7 + m->len) % 40; /* pieces of 1..40 bytes, cutting packets */
    if (n > m->len - m->off)
        n = m->len - m->off;
    if (n > cap)
        n = cap;
    memcpy(buf, m->data + m->off, n);
    m->off += n;
    m->paused = 1;
    return (long)n;
}

static void mem_close(struct tc_transport *t)
{
    (void)t;
}

/* ---- records the client puts on the connection ----------------------------------------- */

static void record(struct tc_conn *c, struct tc_thread *t, unsigned type, uint8_t u8, uint32_t u32, uint64_t w0,
                   uint64_t w1, uint64_t w2)
{
    uint64_t storage[8] = {0};
    struct tc_rec *r = (struct tc_rec *)storage;
    r->type = (uint8_t)type;
    r->u8 = u8;
    r->u32 = u32;
    r->w[0] = w0;
    r->w[1] = w1;
    r->w[2] = w2;
    tc_conn_record(c, t, r);
}

#define PTR(p) ((uint64_t)(uintptr_t)(p))

static void register_everything(struct tc_conn *c, struct tc_thread *t, int64_t time)
{
    record(c, t, TC_REC_ZONE_BEGIN, 0, 0, (uint64_t)time, PTR(&arena->zone_loc), 0);
    record(c, t, TC_REC_MESSAGE_LITERAL, 0, 0, (uint64_t)time + 1, PTR(arena->message), 0);
    record(c, t, TC_REC_PLOT_DOUBLE, 0, 0, (uint64_t)time + 2, PTR(arena->plot), 0);
    record(c, t, TC_REC_FRAME_MARK, 0, 0, (uint64_t)time + 3, PTR(arena->frame), 0);
    record(c, t, TC_REC_FIBER_ENTER, 0, 0, (uint64_t)time + 4, PTR(arena->fiber), 0);
    record(c, t, TC_REC_FIBER_LEAVE, 0, 0, (uint64_t)time + 5, 0, 0);
    record(c, t, TC_REC_ZONE_END, 0, 0, (uint64_t)time + 6, 0, 0);
    record(c, NULL, TC_REC_LOCK_ANNOUNCE, 0, 1, (uint64_t)time + 7, PTR(&arena->lock_loc), 0);
    record(c, NULL, TC_REC_LOCK_MARK, 0, 1, FUZZ_TID, PTR(&arena->bare_loc), 0);
    uint64_t alloc[8] = {0};
    struct tc_rec *r = (struct tc_rec *)alloc;
    r->type = TC_REC_MEM_ALLOC;
    r->u32 = FUZZ_TID;
    r->w[0] = (uint64_t)time + 8;
    r->w[1] = 0x1000;
    r->w[2] = 64;
    r->w[3] = PTR(arena->pool);
    tc_conn_record(c, NULL, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (!arena)
        arena_init();
    struct mem_transport m = {.base = {mem_send, mem_recv, mem_close}, .data = data, .len = len};
    struct tc_thread *t = calloc(1, sizeof *t);
    t->tid = FUZZ_TID;
    struct tc_conn c;
    if (tc_conn_open(&c, &m.base, 1) != 0)
        abort();
    register_everything(&c, t, 1000);
    int64_t time = 2000;
    uint64_t drops = 0;
    while (!c.terminated && tc_conn_serve_queries(&c, 0) >= 0) {
        /* Between bursts of queries the client keeps recording, as the worker does. */
        record(&c, t, TC_REC_ZONE_BEGIN, 0, 0, (uint64_t)time++, PTR(&arena->zone_loc), 0);
        record(&c, t, TC_REC_ZONE_END, 0, 0, (uint64_t)time++, 0, 0);
        if (m.off % 3 == 0)
            tc_conn_report_drops(&c, ++drops);
    }
    tc_conn_close(&c);
    free(t);
    return 0;
}
