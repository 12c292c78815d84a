/* conn_queries.c - answers to the server's queries, only ever from data this client
 * sent on the connection: an unknown identifier gets a placeholder. */
#include "client/conn.h"

#include "client/record.h"
#include "native/resolver.h"
#include "client/state.h"
#include "tracyc.h"
#include "util/fd.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char unknown_text[] = "?";

static void reply_string(struct tc_conn *c, uint8_t type, uint64_t id)
{
    const char *s = tc_conn_sent_string(c, id);
    if (!s)
        s = unknown_text;
    tcw_enc_string_reply(&c->enc, type, id, s, strlen(s));
}

static void reply_srcloc(struct tc_conn *c, uint64_t id)
{
    const struct ___tracy_source_location_data *s = tc_conn_sent_srcloc(c, id);
    if (!s) {
        uint64_t q = tc_conn_string_id(c, unknown_text);
        tcw_enc_srcloc_reply(&c->enc, 0, q, q, 0, 0);
        return;
    }
    uint64_t name = s->name && s->name[0] ? tc_conn_string_id(c, s->name) : 0;
    uint64_t function = tc_conn_string_id(c, s->function ? s->function : unknown_text);
    uint64_t file = tc_conn_string_id(c, s->file ? s->file : unknown_text);
    tcw_enc_srcloc_reply(&c->enc, name, function, file, s->line, s->color);
}

static const char unknown_file[] = "[unknown]";
static const struct tcn_symbol_location unknown_location = {unknown_file, 1, {{unknown_file, unknown_file, 0, 0, 0}}};

static size_t text_len(const char *s)
{
    size_t n = strlen(s);
    return n < TC_MAX_TEXT ? n : TC_MAX_TEXT;
}

/* A CallstackFrame reply: the image, the frame count, then each frame, innermost first
 * (docs/protocol.md §26.3). */
static void reply_frames(struct tc_conn *c, uint64_t ptr, const struct tcn_symbol_location *loc)
{
    tcw_enc_callstack_frame_size(&c->enc, ptr, loc->count, loc->image, text_len(loc->image));
    for (int i = 0; i < loc->count; i++) {
        const struct tcn_symbol_frame *f = &loc->frames[i];
        tcw_enc_callstack_frame(&c->enc, f->name, text_len(f->name), f->file, text_len(f->file), f->line, f->sym_addr,
                                f->sym_len);
    }
}

/* Answers the resolver has ready; returns how many. */
static int send_resolved(struct tc_conn *c)
{
    if (!c->resolving)
        return 0;
    int sent = 0;
    struct tcn_resolved *answers = tcn_resolver_take(c->serial);
    for (struct tcn_resolved *a = answers; a; a = a->next, sent++) {
        if (a->kind == TCN_RESOLVE_FRAMES)
            reply_frames(c, a->ptr, a->location);
        else
            tcw_enc_symbol_information(&c->enc, a->ptr, a->file, text_len(a->file), a->line);
    }
    tcn_resolver_release(answers);
    c->resolving -= sent;
    return sent;
}

int tc_conn_resolving(const struct tc_conn *c)
{
    return c->resolving;
}

/* Threads the server learnt of from context switches: tracyc's name for the thread (or
 * the kernel's), and the program's name, with the thread's process. */
static void reply_external_name(struct tc_conn *c, uint64_t tid)
{
    char name[256], path[64];
    size_t n = tc_names_get((uint32_t)tid, name, sizeof name, NULL);
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", (unsigned)tid);
    FILE *f = tid == (uint32_t)tid ? tcu_fd_fopen_read(path) : NULL;
    if (f) {
        /* Only a thread without a name of ours is worth the kernel's (15 bytes) one. */
        char comm[64];
        if (!tc_names_has((uint32_t)tid) && tid != tc_prof.main_tid && fgets(comm, sizeof comm, f)) {
            comm[strcspn(comm, "\n")] = 0;
            n = (size_t)snprintf(name, sizeof name, "%s", comm);
        }
        fclose(f);
        tcw_enc_tid_to_pid(&c->enc, tid, (uint64_t)getpid());
    }
    extern char *program_invocation_short_name;
    const char *program = program_invocation_short_name ? program_invocation_short_name : unknown_text;
    tcw_enc_string_reply(&c->enc, TCW_ExternalThreadName, tid, name, n);
    tcw_enc_string_reply(&c->enc, TCW_ExternalName, tid, program, strlen(program));
}

static void answer(struct tc_conn *c, uint8_t type, uint64_t ptr, uint32_t extra)
{
    struct tcw_encoder *e = &c->enc;
    switch (type) {
    case TCW_QUERY_TERMINATE:
    case TCW_QUERY_DISCONNECT:
        c->terminated = 1;
        break;
    case TCW_QUERY_STRING:
        reply_string(c, TCW_StringData, ptr);
        break;
    case TCW_QUERY_THREAD_STRING: {
        char name[256];
        uint64_t version;
        size_t n = tc_names_get((uint32_t)ptr, name, sizeof name, &version);
        tcw_enc_string_reply(e, TCW_ThreadName, ptr, name, n);
        if (ptr <= UINT32_MAX)
            tcu_map_put(&c->named, ptr, version); /* a later rename goes to a server that takes it */
        break;
    }
    case TCW_QUERY_SOURCE_LOCATION:
        reply_srcloc(c, ptr);
        break;
    case TCW_QUERY_PLOT_NAME:
        reply_string(c, TCW_PlotName, ptr);
        break;
    case TCW_QUERY_FRAME_NAME:
        reply_string(c, TCW_FrameName, ptr);
        break;
    case TCW_QUERY_FIBER_NAME:
        reply_string(c, TCW_FiberName, ptr);
        break;
    case TCW_QUERY_EXTERNAL_NAME:
        reply_external_name(c, ptr);
        break;
    case TCW_QUERY_CALLSTACK_FRAME:
    case TCW_QUERY_SYMBOL:
        /* Frames a program registered (tracyc_frames_register) are answered at once from
         * its resolver; the rest off the worker (native/resolver.c), answered by send_resolved. */
        if (tc_conn_answer_frame(c, type, ptr))
            break;
        if (tcn_resolver_submit(c->serial, type == TCW_QUERY_SYMBOL ? TCN_RESOLVE_SYMBOL : TCN_RESOLVE_FRAMES, ptr) ==
            0)
            c->resolving++;
        else if (type == TCW_QUERY_CALLSTACK_FRAME)
            reply_frames(c, ptr, &unknown_location);
        else
            tcw_enc_symbol_information(e, ptr, unknown_file, sizeof unknown_file - 1, 0);
        break;
    case TCW_QUERY_SYMBOL_CODE:
        tcw_enc_byte(e, TCW_AckSymbolCodeNotAvailable);
        break;
    case TCW_QUERY_SOURCE_CODE:
        tcw_enc_source_unavailable(e, (uint32_t)ptr);
        break;
    case TCW_QUERY_TRACYC_EXTENSIONS:
        c->renames = (ptr & TCW_EXTENSION_THREAD_RENAMES) != 0;
        c->clock = (ptr & TCW_EXTENSION_CLOCK) != 0;
        tcw_enc_byte(e, TCW_AckServerQueryNoop);
        if (c->clock) /* the first reading, right after the answer (§28) */
            tc_conn_send_clock(c, 0);
        break;
    case TCW_QUERY_TRACYC_CLOCK_PROBE:
        if (c->clock)
            tc_conn_send_clock(c, (uint32_t)ptr);
        tcw_enc_byte(e, TCW_AckServerQueryNoop);
        break;
    default: /* Parameter, DataTransfer(Part), and codes this protocol does not define */
        (void)extra;
        tcw_enc_byte(e, TCW_AckServerQueryNoop);
        break;
    }
}

int tc_conn_serve_queries(struct tc_conn *c, int timeout_ms)
{
    if (!c->alive)
        return -1;
    int answered = 0;
    uint8_t buf[13 * 64];
    for (;;) {
        long n = c->transport->recv(c->transport, buf, sizeof buf, answered ? 0 : timeout_ms);
        if (n < 0) {
            c->alive = 0;
            return -1;
        }
        if (n == 0)
            break;
        for (long i = 0; i < n; i++) {
            c->query[c->query_len++] = buf[i];
            if (c->query_len < TCW_QUERY_SIZE)
                continue;
            uint64_t ptr;
            uint32_t extra;
            memcpy(&ptr, c->query + 1, 8);
            memcpy(&extra, c->query + 9, 4);
            c->query_len = 0;
            answer(c, tcw_query_from_wire(c->query[0], c->enc.vi), ptr, extra);
            answered++;
        }
        timeout_ms = 0;
    }
    answered += send_resolved(c);
    if (answered && tcw_enc_flush(&c->enc) != 0)
        return -1;
    return answered;
}

static void send_rename(void *user, uint32_t tid, const char *name, uint64_t version)
{
    struct tc_conn *c = user;
    uint64_t *given = tcu_map_get(&c->named, tid);
    if (!given || *given >= version)
        return; /* not asked about yet (the answer will have it), or given already */
    *given = version;
    tcw_enc_string_reply(&c->enc, TCW_ThreadName, tid, name, strnlen(name, 255));
}

void tc_conn_send_renames(struct tc_conn *c)
{
    uint64_t latest = tc_names_version();
    if (!c->renames || latest == c->names_seen)
        return;
    tc_names_each_since(c->names_seen, send_rename, c);
    c->names_seen = latest;
}
