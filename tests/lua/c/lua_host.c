/* lua_host.c - see lua_host.h. */
#include "lua_host.h"
#include "test_phase.h"
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

struct tt_capture *lh_capture_start(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    return cap;
}

void lh_capture_finish(struct tt_capture *cap)
{
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    int rc = tt_capture_join(cap);
    tt_phase_done();
    tt_phase_describe(NULL, NULL); /* (the caller frees the capture) */
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "capture: %s\n", cap->err);
}

lua_State *lh_state(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    tracyc_lua_register(L);
    return L;
}

int lh_run(lua_State *L, const char *chunkname, const char *code)
{
    if (luaL_loadbuffer(L, code, strlen(code), chunkname) || lua_pcall(L, 0, 0, 0)) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "lua error: %s\n", msg ? msg : "(not a string)");
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

int lh_resume(lua_State *co, lua_State *L, int narg)
{
#if LUA_VERSION_NUM >= 504
    int nres;
    return lua_resume(co, L, narg, &nres);
#elif LUA_VERSION_NUM == 503
    return lua_resume(co, L, narg);
#else
    (void)L;
    return lua_resume(co, narg);
#endif
}

int lh_lua_version(void)
{
#if defined(TRACYC_LUAJIT)
    return 1;
#else
    return LUA_VERSION_NUM;
#endif
}

struct open_stack {
    uint32_t thread;
    long *v;
    size_t n, cap;
};

static struct open_stack *stack_of(struct open_stack **stacks, size_t *len, uint32_t thread)
{
    for (size_t i = 0; i < *len; i++)
        if ((*stacks)[i].thread == thread)
            return &(*stacks)[i];
    *stacks = realloc(*stacks, (*len + 1) * sizeof **stacks);
    (*stacks)[*len] = (struct open_stack){thread, NULL, 0, 0};
    return &(*stacks)[(*len)++];
}

void lh_build(const struct tt_capture *cap, struct lh_trace *t)
{
    struct open_stack *stacks = NULL;
    size_t nstacks = 0, cap_zones = 0;
    *t = (struct lh_trace){0};
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *ev = &cap->events[i].ev;
        struct open_stack *s;
        switch (ev->kind) {
        case TCD_ZONE_BEGIN:
            s = stack_of(&stacks, &nstacks, ev->thread);
            if (t->n == cap_zones) {
                cap_zones = cap_zones ? cap_zones * 2 : 64;
                t->zones = realloc(t->zones, cap_zones * sizeof *t->zones);
            }
            if (s->n == s->cap) {
                s->cap = s->cap ? s->cap * 2 : 16;
                s->v = realloc(s->v, s->cap * sizeof *s->v);
            }
            const struct tcd_srcloc *loc = tcd_srcloc(cap->dec, ev->srcloc);
            t->zones[t->n] = (struct lh_zone){ev->thread,
                                              loc,
                                              loc->name[0] ? loc->name : loc->function,
                                              NULL,
                                              0,
                                              0,
                                              (int)s->n,
                                              s->n ? s->v[s->n - 1] : -1,
                                              ev->time,
                                              -1};
            s->v[s->n++] = (long)t->n++;
            break;
        case TCD_ZONE_END:
            s = stack_of(&stacks, &nstacks, ev->thread);
            if (s->n)
                t->zones[s->v[--s->n]].end = ev->time;
            else
                t->stray_ends++;
            break;
        case TCD_ZONE_TEXT:
        case TCD_ZONE_NAME:
        case TCD_ZONE_COLOR:
        case TCD_ZONE_VALUE:
            s = stack_of(&stacks, &nstacks, ev->thread);
            if (!s->n)
                break;
            struct lh_zone *z = &t->zones[s->v[s->n - 1]];
            if (ev->kind == TCD_ZONE_TEXT)
                z->text = ev->text;
            else if (ev->kind == TCD_ZONE_NAME)
                z->name = ev->text;
            else if (ev->kind == TCD_ZONE_COLOR)
                z->color = ev->color;
            else
                z->value = ev->value;
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < nstacks; i++)
        free(stacks[i].v);
    free(stacks);
}

void lh_trace_free(struct lh_trace *t)
{
    free(t->zones);
}

const struct lh_zone *lh_find(const struct lh_trace *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->zones[i].name, name) == 0)
            return &t->zones[i];
    return NULL;
}

size_t lh_count(const struct lh_trace *t, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += strcmp(t->zones[i].name, name) == 0;
    return n;
}

void lh_check_balanced(const struct lh_trace *t)
{
    size_t open = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->zones[i].end < 0) {
            open++;
            fprintf(stderr, "unended zone: %s (thread %u)\n", t->zones[i].name, t->zones[i].thread);
        }
    CHECK_EQ_INT(open, 0);
    CHECK_EQ_INT(t->stray_ends, 0);
}

int lh_is_fiber(uint32_t thread)
{
    return (thread & 0x80000000u) != 0;
}

/* The capture's events through a trace with one source and one output, written out. */
static char *output_of(const struct tt_capture *cap, int format, const struct tct_export_options *options,
                       uint64_t *sections, uint64_t *unfinished_sections)
{
    struct tct_trace *tr = tct_trace_new();
    struct tct_names names;
    tct_names_from_decoder(&names, cap->dec);
    CHECK_EQ_INT(tct_trace_add_source(tr, &names, 0), 0);
    struct tct_output *o = tct_output_new(tr, (enum tct_format)format, options);
    CHECK(o != NULL);
    for (size_t i = 0; i < cap->len; i++)
        tct_trace_on_event(tr, 0, &cap->events[i].ev);
    tct_trace_finish(tr);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    CHECK_EQ_INT(tct_output_write_to(o, out), 0);
    fclose(out);
    CHECK_EQ_INT(strlen(buf), len);
    if (sections)
        *sections = tct_trace_source(tr, 0)->sections;
    if (unfinished_sections)
        *unfinished_sections = tct_trace_source(tr, 0)->unfinished_sections;
    tct_output_free(o);
    tct_trace_free(tr);
    return buf;
}

char *lh_output(const struct tt_capture *cap, int format, const struct tct_export_options *options)
{
    return output_of(cap, format, options, NULL, NULL);
}

void lh_sections(const struct tt_capture *cap, uint64_t *entered, uint64_t *unfinished)
{
    free(output_of(cap, TCT_FORMAT_SUMMARY, NULL, entered, unfinished));
}

void lh_expect_in(const char *output, const char *text, const char *want)
{
    tt_check(strstr(text, want) != NULL, "%s has %s", output, want);
}
