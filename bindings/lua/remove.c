/* remove.c - LuaRemove: strips instrumentation calls from a script, following Lua's lexer.
 *
 * A pass over the text tokenizes just enough of Lua (remove_lex.c) to know where strings,
 * comments and names are, and what kind of token came last: that decides whether a call
 * that starts here is a statement (it becomes "do end", an empty statement valid anywhere
 * in every Lua, where 5.1 and LuaJIT reject a lone ";") or a value (it becomes a value). A
 * stack of open brackets and blocks tells a ";" between the fields of a table
 * constructor, after which a value comes, from one between statements.
 *
 * Only calls on the module are removed. The same stack follows Lua's scopes for the name
 * `tracy`: a global `tracy` is the module (as tracyc_lua_register and upstream's
 * LuaRegister set it), and so is a local `local tracy = require "tracy"` (or `= tracy`
 * while that is the module); any other local, parameter or loop variable named `tracy`
 * is not, in its scope. A first pass looks for assignments to `tracy` while it is the
 * module (`tracy = {}`, `function tracy() end`): a script that makes one is left as it
 * is, since which calls follow it depends on how the script runs.
 *
 * Every read is bounded by len; anything unusual (an unterminated string or bracket, a
 * call whose result is used further) leaves the text from there as it was, and brackets
 * and blocks that do not match leave the whole script as it was, which is always valid:
 * the tracy module is still there, inert. */
#include "binding.h"
#include "remove_lex.h"
#include "tracyc_lua.h"

#include <string.h>

/* The calls removed, and the value each becomes where its result is used. */
static const struct {
    const char *name;
    const char *value;
} calls[] = {
    {"ZoneBegin", "nil"},      {"ZoneBeginN", "nil"},   {"ZoneBeginS", "nil"},    {"ZoneBeginNS", "nil"},
    {"ZoneEnd", "nil"},        {"ZoneText", "nil"},     {"ZoneName", "nil"},      {"ZoneColor", "nil"},
    {"ZoneValue", "nil"},      {"Message", "nil"},      {"MessageC", "nil"},      {"SectionEnter", "0"},
    {"SectionLeave", "nil"},   {"Plot", "nil"},         {"PlotConfig", "nil"},    {"FrameMark", "nil"},
    {"FrameMarkStart", "nil"}, {"FrameMarkEnd", "nil"}, {"SetThreadName", "nil"}, {"IsConnected", "false"},
    {"AppInfo", "nil"},        {"HookEnable", "nil"},   {"HookDisable", "nil"},
};

/* What the last token says about a call starting at the next one. */
enum context {
    STATEMENT, /* a statement starts here */
    VALUE,     /* an expression starts here */
    NOT_CALL,  /* a field, method, or a name being declared: not a reference to `tracy` */
};

/* What the name `tracy` stands for at a point of the script. */
enum binding {
    MODULE,     /* the global, or a local holding require "tracy" */
    NOT_MODULE, /* a local, parameter or loop variable holding anything else */
};

#define NEST_MAX 256 /* deeper (or not matching): the rest of the script is left alone */

struct lexer {
    char *s;
    size_t len;
    int edit; /* blank the calls (else only look for assignments to the module) */
    enum context ctx;
    char nest[NEST_MAX];     /* the brackets and blocks open: '(', '[', '{', or 'b' for a block */
    uint8_t outer[NEST_MAX]; /* what `tracy` stood for where each opened, restored when it closes */
    size_t n;
    int lost; /* the script does not nest as Lua would parse it */
    enum binding tracy;
    /* A local `tracy` declared by the statement being read: it takes effect (pending_to)
     * when the next statement starts at depth pending_at. */
    int pending;
    enum binding pending_to;
    size_t pending_at;
    /* A `for` declared a loop variable `tracy`: its body is the block the next "do" at
     * depth loop_at opens. */
    int loop_var;
    size_t loop_at;
    int reassigned; /* the script assigns to `tracy` while it is the module */
};

static void nest_open(struct lexer *lx, char kind)
{
    if (lx->n == NEST_MAX) {
        lx->lost = 1;
        return;
    }
    lx->outer[lx->n] = (uint8_t)lx->tracy;
    lx->nest[lx->n++] = kind;
}

static void nest_close(struct lexer *lx, char kind)
{
    if (!lx->n || lx->nest[lx->n - 1] != kind) {
        lx->lost = 1;
        return;
    }
    lx->tracy = (enum binding)lx->outer[--lx->n];
    if (lx->pending && lx->pending_at > lx->n)
        lx->pending = 0; /* declared in the scope that closed */
}

static int is_tracy(const struct lexer *lx, size_t i, size_t j)
{
    return tl_lex_is_word(lx->s, i, j, "tracy");
}

/* At a string: the index past it if it is the string "tracy", else 0. */
static size_t tracy_string_end(const struct lexer *lx, size_t i)
{
    const char *s = lx->s;
    size_t len = lx->len, body, e;
    int closed = 0, level;
    if (i < len && (s[i] == '"' || s[i] == '\'')) {
        body = i + 1;
        e = tl_lex_short_string_end(s, len, i, &closed);
        return closed && e - body == 6 && memcmp(s + body, "tracy", 5) == 0 ? e : 0;
    }
    if (i < len && s[i] == '[' && (level = tl_lex_long_open(s, len, i, &body)) >= 0) {
        e = tl_lex_long_close(s, len, body, level, &closed);
        return closed && e - body == 5 + 2 + (size_t)level && memcmp(s + body, "tracy", 5) == 0 ? e : 0;
    }
    return 0;
}

/* At the start of an expression: is it, whole, `require "tracy"` (any string form, with
 * or without parentheses) or `tracy` while that is the module? */
static int is_module_value(const struct lexer *lx, size_t i)
{
    const char *s = lx->s;
    size_t len = lx->len, j = tl_lex_name_end(s, len, i), e = 0;
    if (is_tracy(lx, i, j)) {
        if (lx->tracy != MODULE)
            return 0;
        e = j;
    } else if (tl_lex_is_word(s, i, j, "require")) {
        size_t a = tl_lex_skip_blank(s, len, j);
        if (a < len && s[a] == '(') {
            e = tracy_string_end(lx, tl_lex_skip_blank(s, len, a + 1));
            e = e ? tl_lex_skip_blank(s, len, e) : 0;
            e = e && e < len && s[e] == ')' ? e + 1 : 0;
        } else {
            e = tracy_string_end(lx, a);
        }
    }
    if (!e)
        return 0;
    /* and nothing continues it: the script ends, a ";" or a word other than an operator */
    size_t k = tl_lex_skip_blank(s, len, e), w = tl_lex_name_end(s, len, k);
    return k >= len || s[k] == ';' || (w > k && !tl_lex_is_word(s, k, w, "and") && !tl_lex_is_word(s, k, w, "or"));
}

/* After `local` (at j): notes what a `tracy` it declares stands for, and returns where
 * its names end (the main loop skips them: they are no references). */
static size_t declare_local(struct lexer *lx, size_t j)
{
    const char *s = lx->s;
    size_t len = lx->len, k = tl_lex_skip_blank(s, len, j), w = tl_lex_name_end(s, len, k);
    if (tl_lex_is_word(s, k, w, "function")) { /* in scope in its own body already */
        size_t n0 = tl_lex_skip_blank(s, len, w);
        if (is_tracy(lx, n0, tl_lex_name_end(s, len, n0)))
            lx->tracy = NOT_MODULE;
        return j;
    }
    int declares = 0, names = 0, plain = 1;
    while (w > k) {
        declares |= is_tracy(lx, k, w);
        names++;
        k = tl_lex_skip_blank(s, len, w);
        if (k < len && s[k] == '<') { /* an attribute (5.4): <const> keeps it the module */
            size_t a = tl_lex_skip_blank(s, len, k + 1), b = tl_lex_name_end(s, len, a);
            plain &= tl_lex_is_word(s, a, b, "const");
            k = tl_lex_skip_blank(s, len, b);
            if (k >= len || s[k] != '>')
                return j;
            k = tl_lex_skip_blank(s, len, k + 1);
        }
        if (k >= len || s[k] != ',')
            break;
        k = tl_lex_skip_blank(s, len, k + 1);
        w = tl_lex_name_end(s, len, k);
    }
    if (declares) {
        int assigned = k + 1 < len && s[k] == '=' && s[k + 1] != '=';
        int module = names == 1 && plain && assigned && is_module_value(lx, tl_lex_skip_blank(s, len, k + 1));
        lx->pending = 1;
        lx->pending_to = module ? MODULE : NOT_MODULE;
        lx->pending_at = lx->n;
    }
    return k;
}

/* After `function` (at j), its block just opened: a parameter named `tracy` is not the
 * module in its body. A function named `tracy` assigns the module. */
static void declare_parameters(struct lexer *lx, size_t j)
{
    const char *s = lx->s;
    size_t len = lx->len, k = tl_lex_skip_blank(s, len, j), w = tl_lex_name_end(s, len, k);
    if (w > k) { /* the function's name: a.b.c or a.b:c */
        int single = 1;
        if (is_tracy(lx, k, w) && lx->outer[lx->n - 1] == MODULE) {
            size_t after = tl_lex_skip_blank(s, len, w);
            single = after >= len || (s[after] != '.' && s[after] != ':');
            lx->reassigned |= single;
        }
        k = tl_lex_skip_blank(s, len, w);
        while (k < len && (s[k] == '.' || s[k] == ':')) {
            k = tl_lex_skip_blank(s, len, k + 1);
            k = tl_lex_skip_blank(s, len, tl_lex_name_end(s, len, k));
        }
    }
    if (k >= len || s[k] != '(')
        return;
    for (k = tl_lex_skip_blank(s, len, k + 1);; k = tl_lex_skip_blank(s, len, k + 1)) {
        w = tl_lex_name_end(s, len, k);
        if (is_tracy(lx, k, w))
            lx->tracy = NOT_MODULE;
        k = tl_lex_skip_blank(s, len, w);
        if (k >= len || s[k] != ',')
            return;
    }
}

/* After `for` (at j): a loop variable named `tracy` is not the module in the loop's body. */
static void declare_loop_variables(struct lexer *lx, size_t j)
{
    const char *s = lx->s;
    size_t len = lx->len, k = tl_lex_skip_blank(s, len, j);
    for (;;) {
        size_t w = tl_lex_name_end(s, len, k);
        if (w == k)
            return;
        if (is_tracy(lx, k, w)) {
            lx->loop_var = 1;
            lx->loop_at = lx->n;
        }
        k = tl_lex_skip_blank(s, len, w);
        if (k >= len || s[k] != ',')
            return;
        k = tl_lex_skip_blank(s, len, k + 1);
    }
}

/* At `tracy` (s[i..j)), the module, where a statement or an item of a list starts: is it
 * assigned something other than the module? (`tracy = x`, `tracy, y = ...`, `y, tracy = ...`) */
static int assigns_other(const struct lexer *lx, size_t j)
{
    const char *s = lx->s;
    size_t len = lx->len, k = tl_lex_skip_blank(s, len, j);
    if (k + 1 < len && s[k] == '=' && s[k + 1] != '=')
        return !is_module_value(lx, tl_lex_skip_blank(s, len, k + 1));
    while (k < len && s[k] == ',') { /* more variables: names, fields, indexes */
        k = tl_lex_skip_blank(s, len, k + 1);
        size_t w = tl_lex_name_end(s, len, k);
        if (w == k)
            return 0;
        for (k = tl_lex_skip_blank(s, len, w); k < len && (s[k] == '.' || s[k] == '[');) {
            size_t e = s[k] == '.' ? tl_lex_name_end(s, len, tl_lex_skip_blank(s, len, k + 1))
                                   : tl_lex_balanced_end(s, len, k, '[', ']');
            if (!e || e == k + 1)
                return 0;
            k = tl_lex_skip_blank(s, len, e);
        }
    }
    return k + 1 < len && s[k] == '=' && s[k + 1] != '=';
}

/* At `tracy` (s[i..j)): if a removable call follows, blanks it (when editing) and returns
 * the index past it; else 0. */
static size_t remove_call(struct lexer *lx, size_t i, size_t j)
{
    char *s = lx->s;
    size_t len = lx->len;
    size_t k = tl_lex_skip_blank(s, len, j);
    if (k >= len || s[k] != '.' || (k + 1 < len && s[k + 1] == '.'))
        return 0;
    size_t n0 = tl_lex_skip_blank(s, len, k + 1), n1 = tl_lex_name_end(s, len, n0);
    const char *value = NULL;
    for (size_t c = 0; c < sizeof calls / sizeof calls[0] && !value; c++)
        if (tl_lex_is_word(s, n0, n1, calls[c].name))
            value = calls[c].value;
    if (!value)
        return 0;

    size_t a = tl_lex_skip_blank(s, len, n1), e = 0, body;
    int closed = 0, level;
    if (a >= len)
        return 0;
    if (s[a] == '(')
        e = tl_lex_balanced_end(s, len, a, '(', ')');
    else if (s[a] == '{')
        e = tl_lex_balanced_end(s, len, a, '{', '}');
    else if (s[a] == '"' || s[a] == '\'')
        e = tl_lex_short_string_end(s, len, a, &closed), e = closed ? e : 0;
    else if (s[a] == '[' && (level = tl_lex_long_open(s, len, a, &body)) >= 0)
        e = tl_lex_long_close(s, len, body, level, &closed), e = closed ? e : 0;
    if (!e)
        return 0;

    /* Its result indexed, called or passed on (tracy.X().y, tracy.X() "s"): leave it. */
    size_t nx = tl_lex_skip_blank(s, len, e);
    if (nx < len) {
        char d = s[nx], d2 = nx + 1 < len ? s[nx + 1] : 0;
        if ((d == '.' && d2 != '.') || (d == ':' && d2 != ':') || d == '[' || d == '(' || d == '{' || d == '"' ||
            d == '\'')
            return 0;
    }
    if (!lx->edit)
        return e;

    for (size_t p = i; p < e; p++)
        if (s[p] != '\n' && s[p] != '\r')
            s[p] = ' ';
    if (lx->ctx == VALUE) {
        memcpy(s + i, value, strlen(value)); /* fits: "tracy" alone is 5 bytes */
    } else { /* "do" where "tracy" was, "end" where the name was (at least 4 bytes, one line) */
        memcpy(s + i, "do", 2);
        memcpy(s + n0, "end", 3);
    }
    return e;
}

/* The context after a name or keyword. */
static enum context after_word(const char *s, size_t i, size_t j)
{
    static const char *const value_kw[] = {"and", "elseif", "if", "in", "not", "or", "return", "until", "while"};
    static const char *const decl_kw[] = {"function", "local", "for", "goto"};
    for (size_t k = 0; k < sizeof value_kw / sizeof value_kw[0]; k++)
        if (tl_lex_is_word(s, i, j, value_kw[k]))
            return VALUE;
    for (size_t k = 0; k < sizeof decl_kw / sizeof decl_kw[0]; k++)
        if (tl_lex_is_word(s, i, j, decl_kw[k]))
            return NOT_CALL;
    return STATEMENT; /* a name, nil/true/false, or do/then/else/end/repeat/break */
}

/* A keyword that opens or closes a block, or starts another branch of one: function, do,
 * if, repeat open one (while and for open theirs with do), end and until close it, else
 * and elseif begin a new scope in it. */
static void nest_word(struct lexer *lx, size_t i, size_t j)
{
    const char *s = lx->s;
    if (tl_lex_is_word(s, i, j, "function") || tl_lex_is_word(s, i, j, "if") || tl_lex_is_word(s, i, j, "repeat")) {
        nest_open(lx, 'b');
    } else if (tl_lex_is_word(s, i, j, "do")) {
        int loop_body = lx->loop_var && lx->loop_at == lx->n;
        nest_open(lx, 'b');
        if (loop_body) {
            lx->tracy = NOT_MODULE;
            lx->loop_var = 0;
        }
    } else if (tl_lex_is_word(s, i, j, "end")) {
        nest_close(lx, 'b');
    } else if (tl_lex_is_word(s, i, j, "until")) {
        /* the condition is still in the loop body's scope; the scope ends after it */
        enum binding inner = lx->pending && lx->pending_at == lx->n ? lx->pending_to : lx->tracy;
        nest_close(lx, 'b');
        lx->pending = 1;
        lx->pending_to = lx->tracy;
        lx->pending_at = lx->n;
        lx->tracy = inner;
    } else if ((tl_lex_is_word(s, i, j, "else") || tl_lex_is_word(s, i, j, "elseif")) && lx->n &&
               lx->nest[lx->n - 1] == 'b') {
        lx->tracy = (enum binding)lx->outer[lx->n - 1];
        if (lx->pending && lx->pending_at == lx->n)
            lx->pending = 0;
    }
}

/* A name or keyword at s[i..j); returns where the next token starts. */
static size_t on_word(struct lexer *lx, size_t i, size_t j)
{
    const char *s = lx->s;
    if (lx->pending && lx->ctx == STATEMENT && lx->pending_at == lx->n && !tl_lex_is_word(s, i, j, "and") &&
        !tl_lex_is_word(s, i, j, "or")) { /* a statement starts: the declaration before it takes effect */
        lx->tracy = lx->pending_to;
        lx->pending = 0;
    }
    if (lx->ctx != NOT_CALL && is_tracy(lx, i, j) && lx->tracy == MODULE) {
        int starts_item = lx->ctx == STATEMENT || !lx->n || lx->nest[lx->n - 1] == 'b';
        if (starts_item && assigns_other(lx, j))
            lx->reassigned = 1;
        size_t e = remove_call(lx, i, j);
        if (e) {
            lx->ctx = STATEMENT; /* a value, or an empty statement, ended */
            return e;
        }
    }
    nest_word(lx, i, j); /* keywords are reserved: never a field name */
    lx->ctx = after_word(s, i, j);
    if (tl_lex_is_word(s, i, j, "local")) {
        size_t k = declare_local(lx, j);
        if (k != j)
            lx->ctx = STATEMENT;
        return k;
    }
    if (tl_lex_is_word(s, i, j, "function"))
        declare_parameters(lx, j);
    else if (tl_lex_is_word(s, i, j, "for"))
        declare_loop_variables(lx, j);
    return j;
}

/* One pass over the script. */
static void scan(struct lexer *lx)
{
    static const char opening[] = "([{", closing[] = ")]}";
    const char *s = lx->s;
    size_t len = lx->len, i = 0, body;
    int closed, level;
    if (len && s[0] == '#') /* a "#!" line, which Lua's loadfile skips */
        while (i < len && s[i] != '\n')
            i++;
    while (i < len && !lx->lost && !(lx->reassigned && !lx->edit)) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            i = tl_lex_comment_end(s, len, i);
        } else if (c == '"' || c == '\'') {
            i = tl_lex_short_string_end(s, len, i, &closed);
            lx->ctx = STATEMENT;
        } else if (c == '[' && (level = tl_lex_long_open(s, len, i, &body)) >= 0) {
            i = tl_lex_long_close(s, len, body, level, &closed);
            lx->ctx = STATEMENT;
        } else if (tl_lex_is_name_start(c)) {
            i = on_word(lx, i, tl_lex_name_end(s, len, i));
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            i = tl_lex_number_end(s, len, i);
            lx->ctx = STATEMENT;
        } else if (c == '.' || c == ':') {
            int twice = i + 1 < len && s[i + 1] == c;
            int vararg = c == '.' && twice && i + 2 < len && s[i + 2] == '.';
            /* "." and ":" index; ".." is an operator; "..." a value; "::" ends a label */
            lx->ctx = vararg || (c == ':' && twice) ? STATEMENT : twice ? VALUE : NOT_CALL;
            i += vararg ? 3 : twice ? 2 : 1;
        } else {
            /* ) ] } and ; end something; every other operator or bracket wants a value, and
             * so does ; between the fields of a table constructor */
            const char *o = strchr(opening, c), *cl = strchr(closing, c);
            if (c && o)
                nest_open(lx, c);
            else if (c && cl)
                nest_close(lx, opening[cl - closing]);
            int in_table = lx->n && lx->nest[lx->n - 1] == '{';
            lx->ctx = (c && cl) || (c == ';' && !in_table) ? STATEMENT : VALUE;
            i++;
        }
    }
}

void tracyc_lua_remove(char *s, size_t len)
{
    struct lexer lx = {.s = s, .len = len};
    scan(&lx);                    /* looks for assignments to the module */
    if (lx.reassigned || lx.lost) /* lost: what follows might assign it */
        return;
    lx = (struct lexer){.s = s, .len = len, .edit = 1};
    scan(&lx);
}

static int remove_in_string(lua_State *L)
{
    size_t len;
    const char *src = luaL_checklstring(L, 1, &len);
    char *copy = lua_newuserdata(L, len ? len : 1); /* collected with the call's stack */
    memcpy(copy, src, len);
    tracyc_lua_remove(copy, len);
    lua_pushlstring(L, copy, len);
    return 1;
}

void tl_open_remove(lua_State *L)
{
    tl_push_state(L);
    lua_pushcclosure(L, remove_in_string, 1);
    lua_setfield(L, -2, "LuaRemove");
}
