/* fuzz_queries - the client's answers to server queries: any bytes a server could send
 * after the handshake (13-byte query packets, arriving cut anywhere) go to a tc_conn over
 * an in-memory transport, interleaved with the client's own records. The input's first
 * byte picks the protocol version the server's hello asks for (fz_version).
 *
 * The answering must read only what the client itself put on the connection. The objects
 * the client registers live at a fixed address (so seeds and the fuzzer's comparisons can
 * name them), next to an inaccessible page holding a look-alike source location and
 * string that were never registered: answering from either one faults at once.
 */
#include "client/conn.h"
#include "client/fiber.h"
#include "client/state.h"
#include "client/record.h"
#include "fuzz_util.h"
#include "tracyc.h"
#include "wire/versions.h"

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
    struct tc_fiber fiber_rec; /* named fiber */
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
    arena->fiber_rec.name = arena->fiber;
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
    int paused; /* the previous call delivered bytes: report "nothing more for now" once */
    uint64_t sent;
};

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

#define PTR(p) ((uint64_t)(uintptr_t)(p))

static void record(struct tc_conn *c, struct tc_thread *t, union tc_rec r)
{
    tc_conn_record(c, t, &r);
}

static void register_everything(struct tc_conn *c, struct tc_thread *t, int64_t time)
{
    record(c, t,
           (union tc_rec){.zone_begin = {.type = TC_REC_ZONE_BEGIN, .time = time, .srcloc = PTR(&arena->zone_loc)}});
    record(
        c, t,
        (union tc_rec){.message_literal = {.type = TC_REC_MESSAGE_LITERAL, .time = time + 1, .text = arena->message}});
    record(c, t, (union tc_rec){.plot = {.type = TC_REC_PLOT_DOUBLE, .time = time + 2, .name = arena->plot}});
    record(c, t, (union tc_rec){.frame = {.type = TC_REC_FRAME_MARK, .time = time + 3, .name = arena->frame}});
    record(c, t,
           (union tc_rec){.fiber_enter = {.type = TC_REC_FIBER_ENTER, .time = time + 4, .fiber = &arena->fiber_rec}});
    record(c, t, (union tc_rec){.fiber_leave = {.type = TC_REC_FIBER_LEAVE, .time = time + 5}});
    record(c, t, (union tc_rec){.zone_end = {.type = TC_REC_ZONE_END, .time = time + 6}});
    record(c, NULL,
           (union tc_rec){
               .lock_announce = {
                   .type = TC_REC_LOCK_ANNOUNCE, .lock = 1, .time = time + 7, .srcloc = PTR(&arena->lock_loc)}});
    record(
        c, NULL,
        (union tc_rec){
            .lock_mark = {.type = TC_REC_LOCK_MARK, .lock = 1, .thread = FUZZ_TID, .srcloc = PTR(&arena->bare_loc)}});
    record(c, NULL,
           (union tc_rec){.mem_alloc = {.type = TC_REC_MEM_ALLOC,
                                        .thread = FUZZ_TID,
                                        .time = time + 8,
                                        .address = 0x1000,
                                        .size = 64,
                                        .pool = arena->pool}});
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (!arena)
        arena_init();
    int vi = fz_version(&data, &len);
    uint8_t hello[12] = {'T', 'r', 'a', 'c', 'y', 'P', 'r', 'f'};
    memcpy(hello + 8, &tcw_versions[vi].protocol, 4);
    struct mem_transport m = {.base = {mem_send, mem_recv, mem_close}, .data = data, .len = len};
    struct tc_thread *t = calloc(1, sizeof *t);
    t->tid = FUZZ_TID;
    struct tc_conn c;
    if (tc_conn_open(&c, &m.base, 1, hello) != 0)
        abort();
    register_everything(&c, t, 1000);
    int64_t time = 2000;
    uint64_t drops = 0;
    while (!c.terminated && tc_conn_serve_queries(&c, 0) >= 0) {
        /* Between bursts of queries the client keeps recording, as the worker does. */
        record(
            &c, t,
            (union tc_rec){.zone_begin = {.type = TC_REC_ZONE_BEGIN, .time = time++, .srcloc = PTR(&arena->zone_loc)}});
        record(&c, t, (union tc_rec){.zone_end = {.type = TC_REC_ZONE_END, .time = time++}});
        if (m.off % 3 == 0)
            tc_conn_report_drops(&c, ++drops);
    }
    tc_conn_close(&c);
    free(t);
    return 0;
}
