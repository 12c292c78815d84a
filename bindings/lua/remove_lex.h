/* remove_lex.h - the pieces of Lua's lexer that LuaRemove needs (remove_lex.c).
 *
 * Each function starts at index i of the text s and reads nothing at or past len; an
 * unterminated string, comment or bracket ends at len. */
#ifndef TRACYC_LUA_REMOVE_LEX_H
#define TRACYC_LUA_REMOVE_LEX_H

#include <stddef.h>

int tl_lex_is_name_start(char c);
int tl_lex_is_name_char(char c);
/* The index past the name starting at i, or i if none starts there. */
size_t tl_lex_name_end(const char *s, size_t len, size_t i);
/* Is s[i..j) the word w? */
int tl_lex_is_word(const char *s, size_t i, size_t j, const char *w);
/* At s[i] == '[': the level of a long bracket "[==[" (and *body = where its text starts),
 * or -1 if it is a plain '['. */
int tl_lex_long_open(const char *s, size_t len, size_t i, size_t *body);
/* From the body of a long bracket of `level`: the index past its closing bracket. */
size_t tl_lex_long_close(const char *s, size_t len, size_t i, int level, int *closed);
/* At an opening quote: the index past the closing one. */
size_t tl_lex_short_string_end(const char *s, size_t len, size_t i, int *closed);
/* At "--": the index past the comment (a long one, or to the end of the line). */
size_t tl_lex_comment_end(const char *s, size_t len, size_t i);
/* The index of the next token: past spaces and comments. */
size_t tl_lex_skip_blank(const char *s, size_t len, size_t i);
/* At an opening '(', '[' or '{': the index past the matching close, or 0 if unbalanced. */
size_t tl_lex_balanced_end(const char *s, size_t len, size_t i, char open, char close);
/* At a digit (or '.' before one): the index past the number. */
size_t tl_lex_number_end(const char *s, size_t len, size_t i);

#endif
