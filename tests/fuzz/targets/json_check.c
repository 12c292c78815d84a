/* json_check.c - recursive descent over one JSON value, nesting bounded. */
#include "json_check.h"

#include <string.h>

#define MAX_NESTING 512

struct parser {
    const unsigned char *p, *end;
    const char *error;
};

static int fail(struct parser *ps, const char *what)
{
    if (!ps->error)
        ps->error = what;
    return 0;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

/* One UTF-8 sequence of 2..4 bytes starting at a lead byte >= 0x80 (RFC 3629). */
static int utf8(struct parser *ps)
{
    const unsigned char *p = ps->p;
    size_t left = (size_t)(ps->end - p), n;
    unsigned lo = 0x80, hi = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    else
        return fail(ps, "invalid UTF-8 lead byte");
    if (left < n || p[1] < lo || p[1] > hi)
        return fail(ps, "invalid UTF-8 sequence");
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return fail(ps, "invalid UTF-8 continuation");
    ps->p += n;
    return 1;
}

static int string(struct parser *ps)
{
    ps->p++; /* the opening quote */
    while (ps->p < ps->end) {
        unsigned char c = *ps->p;
        if (c == '"') {
            ps->p++;
            return 1;
        }
        if (c < 0x20)
            return fail(ps, "raw control character in a string");
        if (c >= 0x80) {
            if (!utf8(ps))
                return 0;
            continue;
        }
        ps->p++;
        if (c != '\\')
            continue;
        if (ps->p >= ps->end)
            break;
        c = *ps->p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++, ps->p++)
                if (ps->p >= ps->end || !strchr("0123456789abcdefABCDEF", *ps->p) || !*ps->p)
                    return fail(ps, "bad \\u escape");
        } else if (!strchr("\"\\/bfnrt", c) || !c) {
            return fail(ps, "bad escape");
        }
    }
    return fail(ps, "unterminated string");
}

static int digits(struct parser *ps)
{
    const unsigned char *start = ps->p;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
        ps->p++;
    return ps->p > start;
}

static int number(struct parser *ps)
{
    if (*ps->p == '-')
        ps->p++;
    if (ps->p < ps->end && *ps->p == '0')
        ps->p++;
    else if (!digits(ps))
        return fail(ps, "bad number");
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (!digits(ps))
            return fail(ps, "bad fraction");
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (!digits(ps))
            return fail(ps, "bad exponent");
    }
    return 1;
}

static int literal(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, "unexpected character");
    ps->p += n;
    return 1;
}

static int value(struct parser *ps, int depth);

/* An object (close = '}') or an array (close = ']'). */
static int container(struct parser *ps, int depth, char close)
{
    if (depth > MAX_NESTING)
        return fail(ps, "nested too deeply");
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 1;
    }
    for (;;) {
        skip_space(ps);
        if (close == '}') {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "object key is not a string");
            if (!string(ps))
                return 0;
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p++ != ':')
                return fail(ps, "missing ':'");
        }
        if (!value(ps, depth + 1))
            return 0;
        skip_space(ps);
        if (ps->p >= ps->end)
            return fail(ps, "unterminated object or array");
        unsigned char c = *ps->p++;
        if (c == (unsigned char)close)
            return 1;
        if (c != ',')
            return fail(ps, "missing ',' or closing bracket");
    }
}

static int value(struct parser *ps, int depth)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return fail(ps, "missing value");
    switch (*ps->p) {
    case '{':
        return container(ps, depth, '}');
    case '[':
        return container(ps, depth, ']');
    case '"':
        return string(ps);
    case 't':
        return literal(ps, "true");
    case 'f':
        return literal(ps, "false");
    case 'n':
        return literal(ps, "null");
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            return number(ps);
        return fail(ps, "unexpected character");
    }
}

const char *json_check(const char *text, size_t len, size_t *where)
{
    struct parser ps = {(const unsigned char *)text, (const unsigned char *)text + len, NULL};
    if (value(&ps, 0)) {
        skip_space(&ps);
        if (ps.p != ps.end)
            fail(&ps, "text after the document");
    }
    *where = (size_t)(ps.p - (const unsigned char *)text);
    return ps.error;
}
