/* remove_lex.c - the pieces of Lua's lexer that LuaRemove needs: names, strings, long
 * brackets, comments, numbers, balanced brackets. */
#include "remove_lex.h"

#include <string.h>

int tl_lex_is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

int tl_lex_is_name_char(char c)
{
    return tl_lex_is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int tl_lex_long_open(const char *s, size_t len, size_t i, size_t *body)
{
    size_t j = i + 1;
    while (j < len && s[j] == '=')
        j++;
    if (j >= len || s[j] != '[')
        return -1;
    *body = j + 1;
    return (int)(j - i - 1);
}

size_t tl_lex_long_close(const char *s, size_t len, size_t i, int level, int *closed)
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

size_t tl_lex_short_string_end(const char *s, size_t len, size_t i, int *closed)
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

size_t tl_lex_comment_end(const char *s, size_t len, size_t i)
{
    size_t body;
    int closed, level;
    i += 2;
    if (i < len && s[i] == '[' && (level = tl_lex_long_open(s, len, i, &body)) >= 0)
        return tl_lex_long_close(s, len, body, level, &closed);
    while (i < len && s[i] != '\n' && s[i] != '\r')
        i++;
    return i;
}

size_t tl_lex_skip_blank(const char *s, size_t len, size_t i)
{
    for (;;) {
        while (i < len && is_space(s[i]))
            i++;
        if (i + 1 < len && s[i] == '-' && s[i + 1] == '-')
            i = tl_lex_comment_end(s, len, i);
        else
            return i;
    }
}

size_t tl_lex_balanced_end(const char *s, size_t len, size_t i, char open, char close)
{
    int depth = 0, closed;
    size_t body;
    while (i < len) {
        char c = s[i];
        int level;
        if (c == '"' || c == '\'') {
            i = tl_lex_short_string_end(s, len, i, &closed);
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            i = tl_lex_comment_end(s, len, i);
        } else if (c == '[' && (level = tl_lex_long_open(s, len, i, &body)) >= 0) {
            i = tl_lex_long_close(s, len, body, level, &closed);
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

size_t tl_lex_number_end(const char *s, size_t len, size_t i)
{
    int hex = i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    char prev = 0;
    while (i < len) {
        char c = s[i];
        int exp_sign = (c == '+' || c == '-') && (hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E'));
        if (!tl_lex_is_name_char(c) && c != '.' && !exp_sign)
            break;
        prev = c;
        i++;
    }
    return i;
}

size_t tl_lex_name_end(const char *s, size_t len, size_t i)
{
    if (i >= len || !tl_lex_is_name_start(s[i]))
        return i;
    while (i < len && tl_lex_is_name_char(s[i]))
        i++;
    return i;
}

int tl_lex_is_word(const char *s, size_t i, size_t j, const char *w)
{
    size_t n = strlen(w);
    return j - i == n && memcmp(s + i, w, n) == 0;
}
