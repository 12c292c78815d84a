/* The in-process capture takes zone begins and ends without their items (client/inproc.c,
 * tcd_decoder_zone_begin): the same records through a connection that hands them over and
 * through one that sends them as items, as to any server, give the same output files, byte
 * for byte, in every format. The records mix what goes each way: zones of two threads,
 * nested, with texts, names, values and colours between them, zones with callstacks, in a
 * fiber, messages, plots and frames. */
#include "client/conn.h"
#include "client/fiber.h"
#include "client/inproc.h"
#include "client/record.h"
#include "client/state.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct ___tracy_source_location_data outer = {"outer", "run", "bypass.c", 10, 0x112233};
static const struct ___tracy_source_location_data inner = {NULL, "leaf", "bypass.c", 20, 0};
static const struct ___tracy_source_location_data third = {"third", "other", "other.c", 30, 0};

/* A thread's records, written as the hot path writes them. */
struct records {
    uint8_t buf[1 << 16];
    size_t len;
};

static union tc_rec *add(struct records *rs, unsigned type, const void *text, size_t len)
{
    union tc_rec *r = (union tc_rec *)(rs->buf + rs->len);
    memset(r, 0, tc_rec_size(type, len));
    r->any.type = (uint8_t)type;
    r->any.len = (uint16_t)len;
    if (len)
        memcpy(tc_rec_text(r), text, len);
    rs->len += tc_rec_size(type, len);
    return r;
}

static void zone_begin(struct records *rs, int64_t time, const struct ___tracy_source_location_data *loc)
{
    union tc_rec *r = add(rs, TC_REC_ZONE_BEGIN, NULL, 0);
    r->zone_begin.time = time;
    r->zone_begin.srcloc = (uint64_t)(uintptr_t)loc;
}

static void zone_end(struct records *rs, int64_t time)
{
    add(rs, TC_REC_ZONE_END, NULL, 0)->zone_end.time = time;
}

static struct tc_fiber fiber = {.name = "job"};

static void record_thread(struct records *rs, int64_t t, int variant)
{
    uint64_t frames[2] = {(uint64_t)(uintptr_t)&record_thread + 1, (uint64_t)(uintptr_t)&zone_begin + 1};
    for (int i = 0; i < 40; i++, t += 1000) {
        zone_begin(rs, t, &outer);
        zone_begin(rs, t + 10, &inner);
        zone_end(rs, t + 10 + i % 3); /* some of no span */
        if (i % 4 == variant) {
            add(rs, TC_REC_ZONE_TEXT, "a text", 6);
            add(rs, TC_REC_ZONE_VALUE, NULL, 0)->zone_value.value = (uint64_t)i;
        }
        if (i % 5 == 0) {
            add(rs, TC_REC_ZONE_NAME, "renamed", 7);
            add(rs, TC_REC_ZONE_COLOR, NULL, 0)->zone_color.color = 0x00ff00;
        }
        if (i % 7 == 0) {
            add(rs, TC_REC_CALLSTACK, frames, sizeof frames);
            zone_begin(rs, t + 20, &third);
            zone_end(rs, t + 30);
        }
        if (i % 6 == 0) {
            union tc_rec *m = add(rs, TC_REC_MESSAGE, "a message", 9);
            m->message.time = t + 40;
            m->message.severity = 2;
        }
        if (i == 10 + variant) { /* zones in a fiber, nested per fiber as on the server */
            union tc_rec *f = add(rs, TC_REC_FIBER_ENTER, NULL, 0);
            f->fiber_enter.time = t + 41;
            f->fiber_enter.fiber = &fiber;
            zone_begin(rs, t + 42, &third);
            zone_end(rs, t + 43);
            add(rs, TC_REC_FIBER_LEAVE, NULL, 0)->fiber_leave.time = t + 44;
        }
        union tc_rec *p = add(rs, TC_REC_PLOT_INT, NULL, 0);
        p->plot.time = t + 50;
        p->plot.name = "level";
        p->plot.value_bits = (uint64_t)(i * 3);
        zone_end(rs, t + 500);
        union tc_rec *f = add(rs, TC_REC_FRAME_MARK, NULL, 0);
        f->frame.time = t + 999;
        f->frame.index = (uint32_t)i + 1;
    }
    zone_begin(rs, t, &outer);
    zone_end(rs, t + 5000);
}

/* Answers the capture's queries (symbols of the callstacks from the resolver thread, which
 * a bounded number of rounds waits for) until it has everything. */
static void serve(struct tc_conn *c, int final)
{
    for (int round = 0; round < 300 && c->alive && !c->terminated; round++) {
        int answered = tc_conn_serve_queries(c, 0);
        if (!final && answered <= 0 && !tc_conn_resolving(c))
            return;
        if (answered <= 0)
            usleep(1000);
    }
}

/* One capture of the records into path: bypassing the items or not. */
static int capture(const char *path, struct records *rs, struct tc_thread *threads, int bypass)
{
    char err[256];
    struct tc_inproc *ip = tc_inproc_open(path, err, sizeof err);
    if (!ip) {
        fprintf(stderr, "%s: %s\n", path, err);
        return -1;
    }
    struct tc_transport *t = tc_inproc_transport(ip);
    if (!bypass)
        if (!bypass) { /* as a TCP server gets them */
            t->zone_begin = NULL;
            t->zone_end = NULL;
        }
    uint8_t hello[12];
    struct tc_conn c;
    if (t->recv(t, hello, sizeof hello, 0) != (long)sizeof hello || tc_conn_open(&c, t, 0, hello) != 0) {
        tc_inproc_finish(ip);
        return -1;
    }
    CHECK_EQ_INT(c.bypass, bypass);
    serve(&c, 0);
    /* The threads' records in turns, in pieces, as the worker drains them. */
    size_t at[2] = {0, 0};
    for (int turn = 0; at[0] < rs[0].len || at[1] < rs[1].len; turn++) {
        struct records *r = &rs[turn % 2];
        size_t *from = &at[turn % 2], to = *from;
        for (int n = 0; n < 25 && to < r->len; n++)
            to += tc_rec_size(r->buf[to], ((const union tc_rec *)(r->buf + to))->any.len);
        tc_conn_records(&c, &threads[turn % 2], r->buf + *from, r->buf + to);
        *from = to;
        tcw_enc_flush(&c.enc);
        serve(&c, 0);
    }
    tcw_enc_byte(&c.enc, TCW_Terminate);
    tcw_enc_flush(&c.enc);
    serve(&c, 1);
    CHECK(c.terminated);
    tc_conn_close(&c);
    return tc_inproc_finish(ip);
}

int main(void)
{
    static struct records rs[2];
    record_thread(&rs[0], 1000000, 0);
    record_thread(&rs[1], 1000300, 1);
    static const char *const formats[] = {"txt", "csv", "json", "pftrace", "folded", "svg"};
    char dir[PATH_MAX];
    tt_temp_path(dir, sizeof dir, "tracyc_bypass.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char *text[2] = {NULL, NULL};
        size_t len[2] = {0, 0};
        for (int bypass = 0; bypass < 2; bypass++) {
            memset(fiber.conn_depth, 0, sizeof fiber.conn_depth);
            struct tc_thread *threads = calloc(2, sizeof *threads);
            threads[0].tid = 101;
            threads[1].tid = 102;
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/%s.%s", dir, bypass ? "bypass" : "items", formats[f]);
            CHECK_EQ_INT(capture(path, rs, threads, bypass), 0);
            FILE *in = fopen(path, "rb");
            if (in) {
                fseek(in, 0, SEEK_END);
                len[bypass] = (size_t)ftell(in);
                rewind(in);
                text[bypass] = malloc(len[bypass] + 1);
                len[bypass] = fread(text[bypass], 1, len[bypass], in);
                fclose(in);
            }
            if (getenv("KEEP"))
                continue;
            unlink(path);
            free(threads);
        }
        tt_check(text[0] && text[1] && len[0] > 0 && len[0] == len[1] && !memcmp(text[0], text[1], len[0]),
                 "%s: the same file either way (%zu and %zu bytes)", formats[f], len[0], len[1]);
        free(text[0]);
        free(text[1]);
    }
    rmdir(dir);
    return tt_finish("test_inproc_bypass");
}
