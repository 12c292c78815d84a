/* tracyc_lua_remove: Lua's lexical rules, newlines kept, values where values are needed,
 * never a byte read past len, and cleaned scripts compute what the originals did. */
#include "lua_host.h"

#include <stdlib.h>
#include <string.h>

/* Removes in a buffer of exactly strlen(in) bytes (no NUL: ASan sees any over-read). */
static char *cleaned(const char *in)
{
    size_t n = strlen(in);
    char *buf = malloc(n ? n : 1);
    memcpy(buf, in, n);
    tracyc_lua_remove(buf, n);
    char *out = malloc(n + 1);
    memcpy(out, buf, n);
    out[n] = 0;
    free(buf);
    return out;
}

/* s with every run of spaces made one space. */
static char *squeezed(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++)
        if (*s != ' ' || o == out || o[-1] != ' ')
            *o++ = *s;
    *o = 0;
    return out;
}

static int compiles(const char *text)
{
    static lua_State *L;
    if (!L)
        L = luaL_newstate();
    int ok = luaL_loadbuffer(L, text, strlen(text), "=case") == 0;
    lua_pop(L, 1);
    return ok;
}

/* The cleaned text reads as want (up to the width of blanks), is as long as the input,
 * has its newlines at the same places, and compiles in this Lua if the input does. */
static void expect(const char *in, const char *want)
{
    char *got = cleaned(in), *a = squeezed(got), *b = squeezed(want);
    CHECK_STR(a, b);
    size_t moved = 0;
    for (size_t i = 0; in[i]; i++)
        moved += (in[i] == '\n') != (got[i] == '\n');
    CHECK_EQ_INT(moved, 0);
    if (compiles(in) && !compiles(got)) {
        fprintf(stderr, "compiles no more: [%s] -> [%s]\n", in, got);
        CHECK(0);
    }
    free(got), free(a), free(b);
}

static void unchanged(const char *in)
{
    expect(in, in);
}

static void cases(void)
{
    expect("tracy.ZoneBegin()", "do end ");
    expect("tracy.ZoneEnd()\ntracy.ZoneEnd()", "do end \ndo end ");
    expect("local id = tracy.SectionEnter('x')", "local id = 0 ");
    expect("tracy.SectionLeave(id)", "do end ");
    expect("if tracy.IsConnected() then end", "if false then end");
    expect("return tracy.ZoneBeginN('x')", "return nil ");
    expect("a = b tracy.ZoneEnd() c = 1", "a = b do end c = 1");
    expect("f(tracy.ZoneBegin(), 2)", "f(nil , 2)");
    expect("t = {tracy.IsConnected()}", "t = {false }");
    /* statements where a block begins: a lone ";" there is an error in 5.1 and LuaJIT */
    expect("do tracy.ZoneEnd() end", "do do end end");
    expect("if x then tracy.ZoneEnd() else tracy.ZoneEnd() end", "if x then do end else do end end");
    expect("while false do tracy.ZoneEnd() end", "while false do do end end");
    expect("for i = 1, 2 do tracy.ZoneEnd() end", "for i = 1, 2 do do end end");
    expect("repeat tracy.ZoneEnd() until true", "repeat do end until true");
    expect("local function f() tracy.ZoneBegin() end", "local function f() do end end");
    expect("f = function() tracy.ZoneBegin() end", "f = function() do end end");
    /* fields of a table constructor, separated by ";" or ",": values */
    expect("t = { 1; tracy.Message(\"m\") }", "t = { 1; nil }");
    expect("t = { tracy.Message(\"m\"); 2 }", "t = { nil ; 2 }");
    expect("t = { x = 1, tracy.ZoneBegin(); tracy.IsConnected() }", "t = { x = 1, nil ; false }");
    expect("t = { f = function() g(); tracy.ZoneEnd(); tracy.ZoneEnd() end; tracy.ZoneEnd() }",
           "t = { f = function() g(); do end ; do end end; nil }");
    expect("t = { [1] = { tracy.ZoneEnd() }; (tracy.ZoneEnd()) }", "t = { [1] = { nil }; (nil ) }");
    /* strings and comments are not code */
    unchanged("print(\"tracy.ZoneEnd()\")");
    unchanged("print('tracy.ZoneEnd()')");
    unchanged("x = [==[ tracy.ZoneEnd() ]] ]==]");
    unchanged("-- tracy.ZoneEnd()\nx = 1");
    unchanged("--[[ tracy.ZoneEnd()\n ]] x = 1");
    unchanged("--[=[ ]] tracy.ZoneEnd() ]=] x = 1");
    unchanged("s = 'it\\'s tracy.ZoneEnd()'");
    unchanged("s = \"a\\z\n   tracy.ZoneEnd()\"");
    /* arguments: strings with parentheses, nested calls, comments, several lines */
    expect("tracy.Message((\"a)b\"):rep(2) .. f(g(1)))", "do end ");
    expect("tracy.Message(\"a\\\")b\") x = 1", "do end x = 1");
    expect("tracy.ZoneText(\n  'a',\n  'b'\n)\nx = 1", "do end \n \n \n \nx = 1");
    expect("tracy.Message('x' -- )\n)", "do end \n ");
    expect("tracy.Message([[)\n]])", "do end \n ");
    expect("tracy.Message(--[[ ) ]] 'x')", "do end ");
    /* other call forms and spacing */
    expect("tracy.Message \"hi\"", "do end ");
    expect("tracy.Message [[hi]]", "do end ");
    expect("tracy.Message{1, 2}", "do end ");
    expect("tracy . ZoneEnd ( )", "do end ");
    expect("tracy\n.ZoneEnd()", "do \n end ");
    /* not references to the tracy module, or not removable */
    unchanged("mytracy.ZoneBegin()");
    unchanged("x.tracy.ZoneBegin()");
    unchanged("x . tracy.ZoneBegin()");
    unchanged("obj:tracy()");
    unchanged("function tracy.ZoneBegin() end");
    unchanged("local tracy = require 'tracy'");
    unchanged("tracy.ZoneBegin().x = 1");
    unchanged("tracy.ZoneBegin():m()");
    unchanged("tracy.ZoneBegin()\n(f)()");
    unchanged("tracy.Unknown()");
    unchanged("tracy.loadfile('x')");
    unchanged("tracy..x");
    /* unterminated input, or brackets and blocks that do not match, is left alone */
    unchanged("tracy.Message(\"abc");
    unchanged("tracy.Message(");
    unchanged("tracy.Message([[abc)");
    unchanged("tracy.Message");
    unchanged("end tracy.ZoneEnd()");
    unchanged("t = { 1 ) tracy.ZoneEnd()");
    /* a #! line is skipped; a number is a value */
    expect("#!/usr/bin/env lua tracy.ZoneEnd()\ntracy.ZoneEnd()", "#!/usr/bin/env lua tracy.ZoneEnd()\ndo end ");
    expect("x = 1e+5 tracy.ZoneEnd()", "x = 1e+5 do end ");
    expect("x = ... tracy.ZoneEnd()", "x = ... do end ");
    expect("::top:: tracy.ZoneEnd()", "::top:: do end ");
    expect("x = 1 .. tracy.ZoneBeginN('a')", "x = 1 .. nil ");
}

/* Only calls on the module: the global `tracy`, or a local holding require "tracy". */
static void scopes(void)
{
    /* locals holding the module */
    expect("local tracy = require 'tracy'\ntracy.ZoneEnd()", "local tracy = require 'tracy'\ndo end ");
    expect("local tracy = require(\"tracy\") tracy.ZoneEnd()", "local tracy = require(\"tracy\") do end ");
    expect("local tracy = require [[tracy]]; tracy.ZoneEnd()", "local tracy = require [[tracy]]; do end ");
    expect("local tracy <const> = require 'tracy' tracy.ZoneEnd()", "local tracy <const> = require 'tracy' do end ");
    expect("local tracy = tracy tracy.ZoneEnd()", "local tracy = tracy do end ");
    expect("tracy = require 'tracy' tracy.ZoneEnd()", "tracy = require 'tracy' do end ");
    /* locals, parameters and loop variables holding something else, in their scope */
    unchanged("local tracy = {Message = print}\ntracy.Message('x')");
    unchanged("local tracy = require 'other' tracy.ZoneEnd()");
    unchanged("local tracy = require('tracy').x tracy.ZoneEnd()");
    unchanged("local tracy = require 'tracy' or {} tracy.ZoneEnd()");
    unchanged("local t, tracy = 1, require 'tracy' tracy.ZoneEnd()");
    unchanged("local tracy\ntracy.ZoneEnd()");
    unchanged("local function tracy() end tracy.ZoneEnd()");
    expect("local function f() tracy.ZoneEnd() end local tracy = {} tracy.ZoneEnd()",
           "local function f() do end end local tracy = {} tracy.ZoneEnd()");
    expect("do local tracy = {} tracy.ZoneEnd() end tracy.ZoneEnd()",
           "do local tracy = {} tracy.ZoneEnd() end do end ");
    expect("local function f(a, tracy) tracy.ZoneEnd() end tracy.ZoneEnd()",
           "local function f(a, tracy) tracy.ZoneEnd() end do end ");
    expect("function m.f(tracy) tracy.ZoneEnd() end tracy.ZoneEnd()",
           "function m.f(tracy) tracy.ZoneEnd() end do end ");
    expect("function m:f(tracy) tracy.ZoneEnd() end tracy.ZoneEnd()",
           "function m:f(tracy) tracy.ZoneEnd() end do end ");
    expect("f(function(tracy) tracy.ZoneEnd() end, tracy.IsConnected())",
           "f(function(tracy) tracy.ZoneEnd() end, false )");
    expect("for tracy = 1, 2 do tracy.ZoneEnd() end tracy.ZoneEnd()",
           "for tracy = 1, 2 do tracy.ZoneEnd() end do end ");
    expect("for _, tracy in ipairs(t) do tracy.ZoneEnd() end tracy.ZoneEnd()",
           "for _, tracy in ipairs(t) do tracy.ZoneEnd() end do end ");
    expect("for i = 1, 2 do local tracy = t[i] tracy.ZoneEnd() end tracy.ZoneEnd()",
           "for i = 1, 2 do local tracy = t[i] tracy.ZoneEnd() end do end ");
    /* a local is in scope after its statement: the value is read before */
    expect("local tracy = f(tracy.IsConnected()) tracy.ZoneEnd()", "local tracy = f(false ) tracy.ZoneEnd()");
    /* each branch of an if is a scope; a repeat's scope reaches into its condition */
    expect("if c then local tracy = {} tracy.ZoneEnd() elseif tracy.IsConnected() then tracy.ZoneEnd() "
           "else tracy.ZoneEnd() end",
           "if c then local tracy = {} tracy.ZoneEnd() elseif false then do end else do end end");
    expect("repeat local tracy = t until tracy.IsConnected() tracy.ZoneEnd()",
           "repeat local tracy = t until tracy.IsConnected() do end ");
    expect("repeat until tracy.IsConnected()", "repeat until false ");
    /* assigning the module something else leaves the script as it is */
    unchanged("tracy = {Message = print} tracy.Message('x')");
    unchanged("tracy.ZoneEnd() x, tracy = 1, {}");
    unchanged("tracy, x = {}, 1 tracy.ZoneEnd()");
    unchanged("tracy.ZoneEnd() function tracy() end");
    unchanged("local function f() tracy = nil end tracy.ZoneEnd()");
    unchanged("local tracy = require 'tracy' tracy = {} tracy.ZoneEnd()");
    /* ... but not assigning a local, a field or a table key */
    expect("do local tracy = {} tracy = 1 end tracy.ZoneEnd()", "do local tracy = {} tracy = 1 end do end ");
    expect("t = {tracy = 1} t.tracy = 2 tracy.x = 3 tracy.ZoneEnd()",
           "t = {tracy = 1} t.tracy = 2 tracy.x = 3 do end ");
    expect("function tracy.f() end tracy.ZoneEnd()", "function tracy.f() end do end ");
}

static const char *program = "local tracy = tracy\n"
                             "local out = {}\n"
                             "local function add(v) out[#out + 1] = tostring(v) end\n"
                             "tracy.ZoneBeginN('setup')\n"
                             "local id = tracy.SectionEnter('section')\n"
                             "add(type(id))\n"
                             "tracy.Message([[multi\nline]])\n"
                             "for i = 1, 3 do\n"
                             "  tracy.ZoneBegin() tracy.ZoneText(('i=%d'):format(i))\n"
                             "  add(i * i) tracy.ZoneEnd()\n"
                             "end\n"
                             "tracy.SectionLeave(id)\n"
                             "add('tracy.ZoneEnd() in a string') -- tracy.ZoneEnd() in a comment\n"
                             "tracy.ZoneEnd()\n"
                             "local connected = tracy.IsConnected()\n"
                             "add(type(connected))\n"
                             "add(debug.getinfo(1, 'l').currentline)\n"
                             "return table.concat(out, ',')\n";

/* A program whose own `tracy` tables must keep their calls. */
static const char *shadowing = "local out = {}\n"
                               "local function note(s) out[#out + 1] = s end\n"
                               "local function with_param(tracy) tracy.Message('parameter') end\n"
                               "with_param({Message = note})\n"
                               "do local tracy = {Message = note} tracy.Message('local') end\n"
                               "for _, tracy in ipairs({{Message = note}}) do tracy.Message('loop') end\n"
                               "tracy.Message('module')\n"
                               "return table.concat(out, ',')\n";

/* Runs code as a chunk and returns its string result (or the error), malloc'd. */
static char *run(const char *code)
{
    lua_State *L = lh_state();
    if (luaL_loadbuffer(L, code, strlen(code), "=program") == 0)
        lua_pcall(L, 0, 1, 0);
    const char *r = lua_tostring(L, -1); /* the result (a string) or the error */
    char *copy = strdup(r ? r : "(none)");
    lua_close(L);
    return copy;
}

static void same_results(void)
{
    char *clean = cleaned(program);
    CHECK(strstr(clean, "tracy.ZoneBegin()") == NULL);
    char *a = run(program), *b = run(clean);
    CHECK_STR(b, a);
    CHECK_STR(a, "number,1,4,9,tracy.ZoneEnd() in a string,boolean,18");
    free(a), free(b), free(clean);

    clean = cleaned(shadowing);
    CHECK(strstr(clean, "tracy.Message('module')") == NULL);
    a = run(shadowing), b = run(clean);
    CHECK_STR(a, "parameter,local,loop");
    CHECK_STR(b, a);
    free(a), free(b), free(clean);

    /* An error reports the same line after cleaning. */
    const char *failing = "tracy.Message(\n'x'\n)\nlocal t = nil\nreturn t.field\n";
    char *clean2 = cleaned(failing);
    char *e1 = run(failing), *e2 = run(clean2);
    CHECK_STR(e2, e1);
    CHECK(strstr(e1, "program:5:") != NULL);
    free(e1), free(e2), free(clean2);
}

/* Every prefix of a tricky text, each in a buffer of exactly its size. */
static void every_prefix(void)
{
    const char *tricky = "tracy.Message(\"a\\\"\\\n)\" .. [==[)]=]]==] --[[ ) ]]\n"
                         "--[=[\n]=] tracy.ZoneText [[x]] tracy.ZoneBeginN{'a'} tracy.ZoneEnd(\n)";
    size_t n = strlen(tricky), bad = 0;
    for (size_t len = 0; len <= n; len++) {
        char *buf = malloc(len ? len : 1);
        memcpy(buf, tricky, len);
        tracyc_lua_remove(buf, len);
        for (size_t i = 0; i < len; i++)
            bad += (tricky[i] == '\n') != (buf[i] == '\n');
        free(buf);
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    cases();
    scopes();
    same_results();
    every_prefix();
    return tt_finish("test_lua_remove");
}
