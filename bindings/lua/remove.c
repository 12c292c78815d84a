/* remove.c - LuaRemove: strips instrumentation calls from a script, following Lua's lexer.
 *
 * One pass over the text tokenizes just enough of Lua to know where strings, comments
 * and names are, and what kind of token came last: that decides whether a call that
 * starts here is a statement (it becomes "do end", an empty statement valid anywhere in
 * every Lua, where 5.1 and LuaJIT reject a lone ";") or a value (it becomes a value). A
 * stack of open brackets and blocks tells a ";" between the fields of a table
 * constructor, after which a value comes, from one between statements. Every read is
 * bounded by len; anything unusual (an unterminated string or bracket, a call whose result
 * is used further, brackets and blocks that do not match) leaves the text from there as
 * it was, which is always valid: the tracy module is still there, inert. */
#include "binding.h"
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

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* At s[i] == '[': the level of a long bracket "[==[" (and *body = where its text starts),
 * or -1 if it is a plain '['. */
static int long_open(const char *s, size_t len, size_t i, size_t *body)
{
    size_t j = i + 1;
    while (j < len && s[j] == '=')
        j++;
    if (j >= len || s[j] != '[')
        return -1;
    *body = j + 1;
    return (int)(j - i - 1);
}

/* From the body of a long bracket of `level`: the index past its closing bracket. */
static size_t long_close(const char *s, size_t len, size_t i, int level, int *closed)
{
    for (; i < len; i++) {
        if (s[i] != ']')
            continue;
        size_t j = i + 1;
        while (j < len && s[j] == '=')
            j++;
        if (j < len && s[j] == ']' && (int)(j - i - 1) == level) {
            *closed = 1;
            return j + 1;
        }
    }
    *closed = 0;
    return len;
}

/* At an opening quote: the index past the closing one. */
static size_t short_string_end(const char *s, size_t len, size_t i, int *closed)
{
    char quote = s[i++];
    *closed = 0;
    while (i < len) {
        char c = s[i];
        if (c == quote) {
            *closed = 1;
            return i + 1;
        }
        if (c == '\n' || c == '\r')
            return i; /* unfinished string: Lua rejects it, so leave the rest alone */
        if (c != '\\') {
            i++;
            continue;
        }
        if (++i >= len)
            break;
        char e = s[i++];
        if ((e == '\n' || e == '\r') && i < len && (s[i] == '\n' || s[i] == '\r') && s[i] != e)
            i++; /* "\" before \r\n is one escaped newline */
        else if (e == 'z')
            while (i < len && is_space(s[i]))
                i++;
    }
    return len;
}

/* At "--": the index past the comment (a long one, or to the end of the line). */
static size_t comment_end(const char *s, size_t len, size_t i)
{
    size_t body;
    int closed, level;
    i += 2;
    if (i < len && s[i] == '[' && (level = long_open(s, len, i, &body)) >= 0)
        return long_close(s, len, body, level, &closed);
    while (i < len && s[i] != '\n' && s[i] != '\r')
        i++;
    return i;
}

static size_t skip_blank(const char *s, size_t len, size_t i)
{
    for (;;) {
        while (i < len && is_space(s[i]))
            i++;
        if (i + 1 < len && s[i] == '-' && s[i + 1] == '-')
            i = comment_end(s, len, i);
        else
            return i;
    }
}

/* At an opening '(' or '{': the index past the matching close, or 0 if unbalanced. */
static size_t balanced_end(const char *s, size_t len, size_t i, char open, char close)
{
    int depth = 0, closed;
    size_t body;
    while (i < len) {
        char c = s[i];
        int level;
        if (c == '"' || c == '\'') {
            i = short_string_end(s, len, i, &closed);
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            i = comment_end(s, len, i);
        } else if (c == '[' && (level = long_open(s, len, i, &body)) >= 0) {
            i = long_close(s, len, body, level, &closed);
        } else {
            if (c == open)
                depth++;
            else if (c == close && --depth == 0)
                return i + 1;
            i++;
        }
    }
    return 0;
}

/* At `tracy` (s[i..j)): if a removable call follows, blanks it and returns the index past
 * it; else 0. */
static size_t remove_call(char *s, size_t len, size_t i, size_t j, enum context ctx)
{
    size_t k = skip_blank(s, len, j);
    if (k >= len || s[k] != '.' || (k + 1 < len && s[k + 1] == '.'))
        return 0;
    size_t n0 = skip_blank(s, len, k + 1), n1 = n0;
    while (n1 < len && is_name_char(s[n1]))
        n1++;
    const char *value = NULL;
    for (size_t c = 0; c < sizeof calls / sizeof calls[0] && !value; c++)
        if (strlen(calls[c].name) == n1 - n0 && memcmp(calls[c].name, s + n0, n1 - n0) == 0)
            value = calls[c].value;
    if (!value || n0 == n1)
        return 0;

    size_t a = skip_blank(s, len, n1), e = 0, body;
    int closed = 0, level;
    if (a >= len)
        return 0;
    if (s[a] == '(')
        e = balanced_end(s, len, a, '(', ')');
    else if (s[a] == '{')
        e = balanced_end(s, len, a, '{', '}');
    else if (s[a] == '"' || s[a] == '\'')
        e = short_string_end(s, len, a, &closed), e = closed ? e : 0;
    else if (s[a] == '[' && (level = long_open(s, len, a, &body)) >= 0)
        e = long_close(s, len, body, level, &closed), e = closed ? e : 0;
    if (!e)
        return 0;

    /* Its result indexed, called or passed on (tracy.X().y, tracy.X() "s"): leave it. */
    size_t nx = skip_blank(s, len, e);
    if (nx < len) {
        char d = s[nx], d2 = nx + 1 < len ? s[nx + 1] : 0;
        if ((d == '.' && d2 != '.') || (d == ':' && d2 != ':') || d == '[' || d == '(' || d == '{' || d == '"' ||
            d == '\'')
            return 0;
    }

    for (size_t p = i; p < e; p++)
        if (s[p] != '\n' && s[p] != '\r')
            s[p] = ' ';
    if (ctx == VALUE) {
        memcpy(s + i, value, strlen(value)); /* fits: "tracy" alone is 5 bytes */
    } else { /* "do" where "tracy" was, "end" where the name was (at least 4 bytes, one line) */
        memcpy(s + i, "do", 2);
        memcpy(s + n0, "end", 3);
    }
    return e;
}

/* The context after a name or keyword. */
static enum context after_word(const char *w, size_t n)
{
    static const char *const value_kw[] = {"and", "elseif", "if", "in", "not", "or", "return", "until", "while"};
    static const char *const decl_kw[] = {"function", "local", "for", "goto"};
    for (size_t k = 0; k < sizeof value_kw / sizeof value_kw[0]; k++)
        if (strlen(value_kw[k]) == n && memcmp(value_kw[k], w, n) == 0)
            return VALUE;
    for (size_t k = 0; k < sizeof decl_kw / sizeof decl_kw[0]; k++)
        if (strlen(decl_kw[k]) == n && memcmp(decl_kw[k], w, n) == 0)
            return NOT_CALL;
    return STATEMENT; /* a name, nil/true/false, or do/then/else/end/repeat/break */
}

/* The brackets and blocks open at a point of the script, innermost last. */
#define NEST_MAX 256 /* deeper (or not matching): the rest of the script is left alone */
struct nesting {
    char v[NEST_MAX]; /* '(', '[', '{', or 'b' for a block */
    size_t n;
    int lost; /* the script does not nest as Lua would parse it */
};

static void nest_open(struct nesting *st, char kind)
{
    if (st->n == NEST_MAX)
        st->lost = 1;
    else
        st->v[st->n++] = kind;
}

static void nest_close(struct nesting *st, char kind)
{
    if (st->n && st->v[st->n - 1] == kind)
        st->n--;
    else
        st->lost = 1;
}

/* A keyword that opens or closes a block: function, do, if, repeat open one (while and for
 * open theirs with do), end and until close it. */
static void nest_word(struct nesting *st, const char *w, size_t n)
{
    static const char *const opens[] = {"function", "do", "if", "repeat"};
    static const char *const closes[] = {"end", "until"};
    for (size_t k = 0; k < sizeof opens / sizeof opens[0]; k++)
        if (strlen(opens[k]) == n && memcmp(opens[k], w, n) == 0)
            nest_open(st, 'b');
    for (size_t k = 0; k < sizeof closes / sizeof closes[0]; k++)
        if (strlen(closes[k]) == n && memcmp(closes[k], w, n) == 0)
            nest_close(st, 'b');
}

static size_t number_end(const char *s, size_t len, size_t i)
{
    int hex = i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    char prev = 0;
    while (i < len) {
        char c = s[i];
        int exp_sign = (c == '+' || c == '-') && (hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E'));
        if (!is_name_char(c) && c != '.' && !exp_sign)
            break;
        prev = c;
        i++;
    }
    return i;
}

void tracyc_lua_remove(char *s, size_t len)
{
    static const char opening[] = "([{", closing[] = ")]}";
    struct nesting st = {.n = 0};
    enum context ctx = STATEMENT;
    size_t i = 0, body;
    int closed, level;
    if (len && s[0] == '#') /* a "#!" line, which Lua's loadfile skips */
        while (i < len && s[i] != '\n')
            i++;
    while (i < len && !st.lost) {
        char c = s[i];
        if (is_space(c)) {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            i = comment_end(s, len, i);
        } else if (c == '"' || c == '\'') {
            i = short_string_end(s, len, i, &closed);
            ctx = STATEMENT;
        } else if (c == '[' && (level = long_open(s, len, i, &body)) >= 0) {
            i = long_close(s, len, body, level, &closed);
            ctx = STATEMENT;
        } else if (is_name_start(c)) {
            size_t j = i;
            while (j < len && is_name_char(s[j]))
                j++;
            size_t e = 0;
            if (ctx != NOT_CALL && j - i == 5 && memcmp(s + i, "tracy", 5) == 0)
                e = remove_call(s, len, i, j, ctx);
            if (e) {
                ctx = STATEMENT; /* a value, or an empty statement, ended */
                i = e;
            } else {
                nest_word(&st, s + i, j - i); /* keywords are reserved: never a field name */
                ctx = after_word(s + i, j - i);
                i = j;
            }
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            i = number_end(s, len, i);
            ctx = STATEMENT;
        } else if (c == '.' || c == ':') {
            int twice = i + 1 < len && s[i + 1] == c;
            int vararg = c == '.' && twice && i + 2 < len && s[i + 2] == '.';
            /* "." and ":" index; ".." is an operator; "..." a value; "::" ends a label */
            ctx = vararg || (c == ':' && twice) ? STATEMENT : twice ? VALUE : NOT_CALL;
            i += vararg ? 3 : twice ? 2 : 1;
        } else {
            /* ) ] } and ; end something; every other operator or bracket wants a value, and
             * so does ; between the fields of a table constructor */
            const char *o = strchr(opening, c), *cl = strchr(closing, c);
            if (c && o)
                nest_open(&st, c);
            else if (c && cl)
                nest_close(&st, opening[cl - closing]);
            int in_table = st.n && st.v[st.n - 1] == '{';
            ctx = (c && cl) || (c == ';' && !in_table) ? STATEMENT : VALUE;
            i++;
        }
    }
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
