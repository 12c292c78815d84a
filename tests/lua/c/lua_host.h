/* lua_host.h - shared by the C host tests of the Lua binding: a Lua state with `tracy`
 * registered, a capture of this process's own events, and the zones rebuilt from them
 * per (virtual) thread, so a test can check names, lines, nesting and fibers exactly. */
#ifndef TRACYC_LUA_HOST_H
#define TRACYC_LUA_HOST_H

#include "test_capture.h"
#include "tracyc.h"
#include "test_util.h"
#include "tracyc_lua.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stddef.h>
#include <stdint.h>

/* Starts the capture thread on a free port; call before anything else. */
struct tt_capture *lh_capture_start(void);
/* Shuts the profiler down, waits for the capture, checks it ended well. */
void lh_capture_finish(struct tt_capture *cap);

/* A fresh state with the standard libraries and the global `tracy`. */
lua_State *lh_state(void);
/* Runs code as a chunk named chunkname; returns 1 if it ran without error (else prints
 * the error). */
int lh_run(lua_State *L, const char *chunkname, const char *code);
/* lua_resume on every Lua: resumes co from L with narg arguments, returns the status
 * (0 finished, LUA_YIELD, or an error) and leaves the results on co's stack. */
int lh_resume(lua_State *co, lua_State *L, int narg);
/* LUA_VERSION_NUM of the Lua this host embeds; 1 for LuaJIT. */
int lh_lua_version(void);

struct lh_zone {
    uint32_t thread; /* OS thread, or a fiber's virtual thread (0x80000000 | n) */
    const struct tcd_srcloc *loc;
    const char *name; /* as shown: ZoneName, else the srcloc's name, else its function */
    const char *text; /* ZoneText, or NULL */
    uint32_t color;
    uint64_t value;
    int depth;          /* 0 = outermost on its thread */
    long parent;        /* index of the enclosing zone, -1 for none */
    int64_t begin, end; /* end = -1: never ended */
};

struct lh_trace {
    struct lh_zone *zones; /* in begin order */
    size_t n;
    int stray_ends; /* ends with no open zone on their thread */
};

void lh_build(const struct tt_capture *cap, struct lh_trace *t);
void lh_trace_free(struct lh_trace *t);
/* The first zone shown as name, or NULL; lh_count counts them. */
const struct lh_zone *lh_find(const struct lh_trace *t, const char *name);
size_t lh_count(const struct lh_trace *t, const char *name);
/* Checks every zone ended and no end was stray. */
void lh_check_balanced(const struct lh_trace *t);
int lh_is_fiber(uint32_t thread);

/* One output (enum tct_format) of the capture's events, as the in-process capture and
 * tracyc-capture write it (a string: outputs hold no NUL byte). */
struct tct_export_options;
char *lh_output(const struct tt_capture *cap, int format, const struct tct_export_options *options);
/* The sections the capture's trace saw entered, and those still open at its end. */
void lh_sections(const struct tt_capture *cap, uint64_t *entered, uint64_t *unfinished);
/* Checks that text holds want, naming the output. */
void lh_expect_in(const char *output, const char *text, const char *want);

#endif
