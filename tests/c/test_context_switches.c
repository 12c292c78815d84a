/* Context switches on one connection (core/client/conn_switches.c): whatever records the
 * kernel delivers or loses, the ContextSwitch items sent pass every check upstream's server
 * makes with assertions (tests/support/switch_rules.c), and a complete story is sent
 * unchanged. The raw records of the same schedules, sent as they come, break those checks:
 * that is what the filter is for. */
#include "client/conn.h"
#include "client/record.h"
#include "raw_server.h"
#include "switch_rules.h"
#include "test_util.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <stdlib.h>
#include <string.h>

static int discard(void *user, const void *data, size_t len)
{
    (void)user;
    (void)data;
    (void)len;
    return 0;
}

struct outcome {
    int items, violations;
    const char *first;
};

/* Checks the ContextSwitch items pending in the encoder against the server's rules. */
static struct outcome replay(struct tcw_encoder *e)
{
    struct outcome o = {0, 0, NULL};
    struct ts_rules *rules = ts_rules_new();
    int64_t ref = 0;
    for (size_t at = e->start; at < e->pos;) {
        struct tr_item it = {e->ring[at], at, tr_item_size(e->ring + at, e->pos - at), e->ring + at};
        if (!it.size)
            break;
        if (it.type == TCW_ContextSwitch) {
            tr_ctx_time(&it, &ref);
            const char *bad = ts_rules_switch(rules, ref, tcu_rd32(it.p + 9), tcu_rd32(it.p + 13), it.p[17]);
            o.items++;
            if (bad && !o.violations++)
                o.first = bad;
        }
        at += it.size;
    }
    ts_rules_free(rules);
    return o;
}

struct rec {
    int64_t time;
    uint32_t tid;
    uint8_t cpu, in;
};

/* Sends the records through the connection's filter, or (raw) straight as items. */
static struct outcome send_all(const struct rec *recs, int n, int raw)
{
    struct tc_conn c;
    memset(&c, 0, sizeof c);
    tcw_enc_init(&c.enc, discard, NULL);
    for (int i = 0; i < n; i++) {
        struct tc_rec_context_switch r = {
            .type = TC_REC_CONTEXT_SWITCH, .cpu = recs[i].cpu, .thread = recs[i].tid, .time = recs[i].time};
        r.in = recs[i].in;
        if (raw)
            tcw_enc_context_switch(&c.enc, r.time, r.in ? 0 : r.thread, r.in ? r.thread : 0, r.cpu, 100, 104);
        else
            tc_conn_context_switch(&c, &r);
    }
    struct outcome o = replay(&c.enc);
    tcu_map_free(&c.running);
    tcw_enc_free(&c.enc);
    return o;
}

/* A true schedule of `threads` threads on `cpus` CPUs, as perf would report it. */
static int schedule(struct rec *out, int max, int threads, int cpus, unsigned *seed)
{
    int running_on[8]; /* cpu of each thread, -1 */
    int cpu_busy[8];   /* thread on each cpu, -1 */
    for (int i = 0; i < 8; i++)
        running_on[i] = cpu_busy[i] = -1;
    int n = 0;
    int64_t t = 1000;
    while (n < max) {
        t += 1 + rand_r(seed) % 50;
        int th = rand_r(seed) % threads;
        if (running_on[th] >= 0) {
            int cpu = running_on[th];
            out[n++] = (struct rec){t, (uint32_t)(100 + th), (uint8_t)cpu, 0};
            running_on[th] = cpu_busy[cpu] = -1;
        } else {
            int cpu = rand_r(seed) % cpus;
            if (cpu_busy[cpu] >= 0)
                continue;
            out[n++] = (struct rec){t, (uint32_t)(100 + th), (uint8_t)cpu, 1};
            running_on[th] = cpu;
            cpu_busy[cpu] = th;
        }
    }
    return n;
}

int main(void)
{
    /* A complete, ordered story goes out unchanged. */
    static const struct rec story[] = {{10, 7, 0, 1}, {20, 7, 0, 0}, {30, 8, 0, 1}, {35, 7, 1, 1},
                                       {40, 8, 0, 0}, {50, 7, 1, 0}, {60, 7, 0, 1}, {70, 7, 0, 0}};
    struct outcome o = send_all(story, 8, 0);
    CHECK_EQ_INT(o.items, 8);
    CHECK_EQ_INT(o.violations, 0);

    /* Schedules with records lost here and there, and connections that begin mid-way. */
    enum { N = 4000 };
    static struct rec full[N], lossy[N];
    unsigned seed = 12345;
    int filtered_bad = 0, raw_bad = 0, sent = 0;
    for (int round = 0; round < 50; round++) {
        int n = schedule(full, N, 2 + round % 5, 1 + round % 4, &seed);
        int skip = rand_r(&seed) % 100; /* the connection starts here */
        int m = 0;
        for (int i = skip; i < n; i++)
            if (rand_r(&seed) % 100 >= 10) /* 10 % of the records lost */
                lossy[m++] = full[i];
        struct outcome f = send_all(lossy, m, 0), r = send_all(lossy, m, 1);
        filtered_bad += f.violations;
        raw_bad += r.violations;
        sent += f.items;
        if (f.violations)
            fprintf(stderr, "round %d: %s\n", round, f.first);
    }
    CHECK_EQ_INT(filtered_bad, 0);
    tt_check(raw_bad > 0, "the unfiltered records break the server's rules %d times", raw_bad);
    tt_check(sent > 50 * N / 2, "%d switches sent of about %d kept records", sent, 50 * N * 9 / 10);
    return tt_finish("test_context_switches");
}
