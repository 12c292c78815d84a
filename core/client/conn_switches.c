/* conn_switches.c - context switches on one connection.
 *
 * perf gives a switch-in and a switch-out record per thread and CPU (sampling.c); the
 * server expects a consistent story (docs/protocol.md §26.5): a thread stops only on the
 * CPU where it last started and only once, a CPU's timeline ends the thread it started
 * last, and a thread starts only when its previous run has ended. Records may be missing
 * (the kernel's ring overflowed, the connection began while a thread ran, the events were
 * enabled one after another), so this keeps the server's view per connection and sends
 * only switches that fit it, ending a run the server still has open when the records
 * skipped its end.
 */
#include "client/conn.h"

#include "client/record.h"
#include "wire/protocol.h"

/* Upstream's values on Linux: wait reason 100; state 103 for a thread preempted while
 * runnable, 104 for one that went to sleep (perf does not say whether it could be
 * interrupted, so 104, interruptible, stands for both), 108 for one that exited (dead). */
#define WAIT_REASON 100
#define STATE_PREEMPTED 103
#define STATE_SLEEPING 104
#define STATE_DEAD 108

static void send_switch(struct tc_conn *c, int64_t time, uint32_t old_tid, uint32_t new_tid, uint8_t cpu, uint8_t state)
{
    tcw_enc_context_switch(&c->enc, time, old_tid, new_tid, cpu, WAIT_REASON, old_tid ? state : 0);
}

static void stop(struct tc_conn *c, int64_t time, uint32_t tid, uint8_t cpu, uint8_t state)
{
    send_switch(c, time, tid, 0, cpu, state);
    c->cpu_open[cpu] = 0;
    tcu_map_remove(&c->running, tid, NULL);
}

void tc_conn_context_switch(struct tc_conn *c, const struct tc_rec_context_switch *r)
{
    uint32_t tid = r->thread;
    uint8_t cpu = r->cpu;
    /* The server needs time to go forward on this chain. */
    int64_t time = r->time > c->switch_time ? r->time : c->switch_time;
    c->switch_time = time;
    const uint64_t *on = tcu_map_get(&c->running, tid);
    int running_cpu = on ? (int)*on - 1 : -1;
    static const uint8_t state_of[] = {[TC_STOPPED_SLEEPING] = STATE_SLEEPING,
                                       [TC_STOPPED_PREEMPTED] = STATE_PREEMPTED,
                                       [TC_STOPPED_EXITED] = STATE_DEAD};
    uint8_t state = r->stopped < sizeof state_of ? state_of[r->stopped] : STATE_SLEEPING;
    if (!r->in) {
        /* Where the server has it running, which is here unless records were lost. */
        if (running_cpu >= 0)
            stop(c, time, tid, (uint8_t)running_cpu, state);
        return;
    }
    if (running_cpu >= 0) /* its switch-out was lost */
        stop(c, time, tid, (uint8_t)running_cpu, STATE_PREEMPTED);
    if (c->cpu_open[cpu]) /* the switch-out of the thread that ran here was lost */
        stop(c, time, c->cpu_thread[cpu], cpu, STATE_PREEMPTED);
    send_switch(c, time, 0, tid, cpu, 0);
    c->cpu_thread[cpu] = tid;
    c->cpu_open[cpu] = 1;
    tcu_map_put(&c->running, tid, (uint64_t)cpu + 1);
}
