/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tplint.c - a strict syntactic check of tracepoint format texts: the line layout, field
 * declarations of identifiers and '*', and print fmt arguments tokenized as C and checked
 * token by token (what may follow what), with brackets and ?: balanced.
 */
#include "tplint.h"

#include <stdbool.h>
#include <string.h>

#define DEPTH_MAX 64

enum tok {
	T_END, /* end of the line or of the text */
	T_IDENT,
	T_NUM,	 /* decimal, octal or 0x hex, with u/l suffixes */
	T_STR,	 /* "..." */
	T_CHR,	 /* '...' */
	T_OPEN,	 /* ( [ { */
	T_CLOSE, /* ) ] } */
	T_COMMA,
	T_QUEST,
	T_COLON,
	T_ARROW, /* -> */
	T_DOT,
	T_BINOP, /* + - * & | ^ < > << >> <= >= == != && || */
	T_UNOP,	 /* ! ~ */
	T_BAD,
};

struct token {
	enum tok type;
	const char *start;
	size_t len;
};

static bool is_ident(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A quoted string or character from *p (the quote); T_BAD when not closed on its line. */
static enum tok quoted(const char *p, const char **end)
{
	char quote = *p;

	for (p++; *p != quote; p++) {
		if (*p == '\0' || *p == '\n')
			return T_BAD;
		if (*p == '\\' && (p[1] == '\0' || p[1] == '\n'))
			return T_BAD;
		if (*p == '\\')
			p++;
	}
	*end = p + 1;
	return quote == '"' ? T_STR : T_CHR;
}

static enum tok number(const char *p, const char **end)
{
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; is_hex(*p); p++)
			n++;
		if (!n)
			return T_BAD;
	} else {
		while (is_digit(*p))
			p++;
	}
	for (n = 0; n < 3 && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L'); n++)
		p++;
	if (is_ident(*p))
		return T_BAD;
	*end = p;
	return T_NUM;
}

/* The token at p (blanks skipped), up to the end of the line. Return: where it ends. */
static const char *next_token(const char *p, struct token *t)
{
	static const char *const two[] = { "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||" };
	const char *end = NULL;

	p = skip_blank(p);
	t->start = p;
	t->type = T_BAD;
	if (*p == '\0' || *p == '\n') {
		t->type = T_END;
		end = p;
	} else if (*p == '"' || *p == '\'') {
		t->type = quoted(p, &end);
	} else if (is_digit(*p)) {
		t->type = number(p, &end);
	} else if (is_ident(*p)) {
		for (end = p; is_ident(*end); end++)
			;
		t->type = T_IDENT;
	} else {
		for (size_t i = 0; i < sizeof(two) / sizeof(two[0]) && !end; i++)
			if (!strncmp(p, two[i], 2)) {
				t->type = i ? T_BINOP : T_ARROW;
				end = p + 2;
			}
		if (!end) {
			end = p + 1;
			if (strchr("([{", *p))
				t->type = T_OPEN;
			else if (strchr(")]}", *p))
				t->type = T_CLOSE;
			else if (strchr("+-*&|^<>", *p)) /* no / or %: libtraceevent divides by 0 */
				t->type = T_BINOP;
			else if (*p == '!' || *p == '~')
				t->type = T_UNOP;
			else if (*p == ',')
				t->type = T_COMMA;
			else if (*p == '?')
				t->type = T_QUEST;
			else if (*p == ':')
				t->type = T_COLON;
			else if (*p == '.')
				t->type = T_DOT;
		}
	}
	t->len = end ? (size_t)(end - p) : 0;
	return end ? end : p;
}

static bool is_char(const struct token *t, char c)
{
	return t->len == 1 && t->start[0] == c;
}

static bool starts_operand(const struct token *t)
{
	switch (t->type) {
	case T_IDENT:
	case T_NUM:
	case T_STR:
	case T_CHR:
	case T_UNOP:
		return true;
	case T_OPEN:
		return !is_char(t, '[');
	case T_BINOP: /* unary minus, plus, dereference, address */
		return is_char(t, '-') || is_char(t, '+') || is_char(t, '*') || is_char(t, '&');
	default:
		return false;
	}
}

/* May t follow prev (itself after prev2)?  C expressions as print fmts write them. */
static bool may_follow(const struct token *prev2, const struct token *prev, const struct token *t)
{
	switch (prev->type) {
	case T_IDENT:
		if (prev->len == 3 && !strncmp(prev->start, "REC", 3))
			return t->type == T_ARROW;
		/* type words of a cast, inside its parentheses: "(unsigned long" and on; never
		 * before REC (libtraceevent 1.7.1 dereferences NULL on "1 ? 2 : char REC->x") */
		if (t->type == T_IDENT)
			return (is_char(prev2, '(') || prev2->type == T_IDENT) &&
			       !(t->len == 3 && !strncmp(t->start, "REC", 3));
		return t->type == T_CLOSE || t->type == T_COMMA || t->type == T_QUEST ||
		       t->type == T_COLON || t->type == T_BINOP || t->type == T_DOT ||
		       t->type == T_END || (t->type == T_OPEN && !is_char(t, '{'));
	case T_ARROW:
	case T_DOT:
		return t->type == T_IDENT;
	case T_NUM:
	case T_CHR:
		return t->type == T_CLOSE || t->type == T_COMMA || t->type == T_QUEST ||
		       t->type == T_COLON || t->type == T_BINOP || t->type == T_END;
	case T_STR:
		return t->type == T_STR || t->type == T_CLOSE || t->type == T_COMMA ||
		       t->type == T_COLON || t->type == T_END;
	case T_CLOSE: /* also a cast: "(u64)REC->x" */
		return t->type != T_STR && t->type != T_CHR && t->type != T_ARROW &&
		       !(t->type == T_OPEN && is_char(t, '{'));
	case T_OPEN:
		return starts_operand(t) || (is_char(prev, '(') && is_char(t, ')'));
	case T_BINOP: /* "char *)" and "char **" in casts */
		return starts_operand(t) ||
		       (is_char(prev, '*') && (is_char(t, ')') || is_char(t, '*')));
	default: /* T_COMMA, T_QUEST, T_COLON, T_UNOP, and the start */
		return starts_operand(t);
	}
}

/* The print fmt from its first string to the end of its line. */
static const char *lint_print(const char *p)
{
	struct token prev2 = { .type = T_COMMA }, prev = { .type = T_COMMA }, t;
	char close[DEPTH_MAX];
	int quest[DEPTH_MAX + 1] = { 0 };
	int depth = 0;

	if (*skip_blank(p) != '"')
		return "the print fmt does not start with a string";
	for (;;) {
		p = next_token(p, &t);
		if (t.type == T_BAD)
			return "the print fmt holds a token C does not have, or an unclosed string";
		if (!may_follow(&prev2, &prev, &t))
			return "the print fmt arguments are not a C expression list";
		if (t.type == T_IDENT && t.len == 6 && !strncmp(t.start, "sizeof", 6))
			return "the print fmt uses sizeof, which libtraceevent 1.7 mis-parses";
		switch (t.type) {
		case T_END:
			if (depth)
				return "the print fmt ends inside brackets";
			if (quest[0])
				return "the print fmt has a '?' without ':'";
			p = skip_blank(p);
			while (*p == '\n' || *p == ' ' || *p == '\t')
				p++;
			return *p ? "text follows the print fmt" : NULL;
		case T_OPEN:
			if (depth == DEPTH_MAX)
				return "the print fmt nests too deep";
			close[depth++] = *t.start == '(' ? ')' : *t.start == '[' ? ']' : '}';
			quest[depth] = 0;
			break;
		case T_CLOSE:
			if (!depth || close[depth - 1] != *t.start || quest[depth])
				return "the brackets of the print fmt do not match";
			depth--;
			break;
		case T_QUEST:
			quest[depth]++;
			break;
		case T_COLON:
			if (!quest[depth]--)
				return "the print fmt has a ':' without '?'";
			break;
		case T_COMMA:
			if (quest[depth])
				return "the print fmt has a '?' without ':'";
			break;
		default:
			break;
		}
		prev2 = prev;
		prev = t;
	}
}

static bool take(const char **pp, const char *literal)
{
	const char *p = skip_blank(*pp);
	size_t n = strlen(literal);

	if (strncmp(p, literal, n))
		return false;
	*pp = p + n;
	return true;
}

static bool take_uint(const char **pp)
{
	const char *p = skip_blank(*pp);
	int n = 0;

	while (is_digit(*p) && n < 10)
		p++, n++;
	if (!n || is_digit(*p))
		return false;
	*pp = p;
	return true;
}

/*
 * "TYPE NAME" or "TYPE NAME[LEN]" up to its ';': words of identifiers, each maybe followed
 * by one [LEN] group ("char[]" in "__data_loc char[] comm"), or of '*' only; NAME is an
 * identifier, and a [LEN] after it is not empty.
 */
static bool take_decl(const char **pp)
{
	const char *p = *pp;
	int words = 0;
	bool last_ident = false, last_empty = false;

	for (;;) {
		p = skip_blank(p);
		if (*p == ';')
			break;
		words++;
		if (*p == '*') {
			while (*p == '*')
				p++;
			last_ident = false;
			continue;
		}
		if (!is_ident(*p) || is_digit(*p))
			return false;
		while (is_ident(*p))
			p++;
		last_ident = true;
		last_empty = false;
		if (*p == '[') {
			const char *open = p;

			for (p++; is_ident(*p) || *p == ' '; p++)
				;
			if (*p++ != ']')
				return false;
			last_empty = p == open + 2;
		}
		if (*p != ' ' && *p != '\t' && *p != ';')
			return false;
	}
	if (words < 2 || !last_ident || last_empty)
		return false;
	*pp = p + 1;
	return true;
}

const char *wc_tplint_format(const char *text)
{
	const char *p = text;

	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if ((*c < 0x20 && *c != '\t' && *c != '\n') || *c >= 0x7f)
			return "it holds bytes that are not printable ASCII";
	if (!take(&p, "name:"))
		return "it does not start with \"name:\"";
	p = skip_blank(p);
	if (!is_ident(*p))
		return "the event has no name";
	while (is_ident(*p))
		p++;
	if (!take(&p, "\n") || !take(&p, "ID:") || !take_uint(&p) || !take(&p, "\n"))
		return "no \"ID: NUMBER\" line after the name";
	if (!take(&p, "format:") || !take(&p, "\n"))
		return "no \"format:\" line after the ID";
	for (;;) {
		if (take(&p, "\n"))
			continue;
		if (take(&p, "print fmt:"))
			return lint_print(p);
		if (!take(&p, "field:"))
			return "a line is neither a field nor the print fmt";
		if (!take_decl(&p) || !take(&p, "offset:") || !take_uint(&p) || !take(&p, ";") ||
		    !take(&p, "size:") || !take_uint(&p) || !take(&p, ";"))
			return "a field line is malformed";
		if (take(&p, "signed:") && (!take_uint(&p) || !take(&p, ";")))
			return "a field line is malformed";
		if (!take(&p, "\n"))
			return "a field line is malformed";
	}
}

const char *wc_tplint_next_ref(const char *text, const char **cursor, size_t *len)
{
	const char *p = *cursor;
	struct token a, b, c;

	if (!p) {
		p = strstr(text, "\nprint fmt:");
		if (!p)
			return NULL;
		p += strlen("\nprint fmt:");
	}
	for (p = next_token(p, &a); a.type != T_END && a.type != T_BAD; p = next_token(p, &a)) {
		const char *q;

		if (a.type != T_IDENT || a.len != 3 || strncmp(a.start, "REC", 3))
			continue;
		q = next_token(p, &b);
		if (b.type != T_ARROW)
			continue;
		q = next_token(q, &c);
		if (c.type != T_IDENT)
			continue;
		*cursor = q;
		*len = c.len;
		return c.start;
	}
	*cursor = p;
	return NULL;
}
