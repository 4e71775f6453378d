#include "jsonc.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Past the string that opens at s[0] == '"': the byte after its closing
 * quote, or NULL when it never closes. */
static const char *string_end(const char *s)
{
	for (s++; *s && *s != '"'; s++)
		if (*s == '\\' && s[1])
			s++;
	return *s ? s + 1 : NULL;
}

/* The same, or the terminating NUL. */
static char *skip_string(char *s)
{
	const char *e = string_end(s);
	return (char *)(e ? e : s + strlen(s));
}

static void blank(char *from, char *to)
{
	for (; from < to; from++)
		if (*from != '\n' && *from != '\r')
			*from = ' ';
}

bool jsonc_strip(char *text, size_t *off)
{
	char *s = text;
	while (*s) {
		if (*s == '"') {
			s = skip_string(s);
		} else if (s[0] == '/' && s[1] == '/') {
			char *e = s + strcspn(s, "\n");
			blank(s, e);
			s = e;
		} else if (s[0] == '/' && s[1] == '*') {
			char *e = strstr(s + 2, "*/");
			if (!e) {
				*off = (size_t)(s - text);
				return false;
			}
			blank(s, e + 2);
			s = e + 2;
		} else {
			s++;
		}
	}
	/* comments gone: a ',' after a value whose next non-blank is '}' or
	 * ']' goes too (a lone "[,]" stays for the parser to refuse); blanks
	 * are every byte up to the space, as cJSON skips them, so "{\b,}" keeps
	 * its comma for the parser to refuse, as the walk below does */
	char *comma = NULL, prev = 0;
	for (s = text; *s;) {
		if (*s == '"') {
			comma = NULL;
			prev = '"';
			s = skip_string(s);
			continue;
		}
		if ((*s == '}' || *s == ']') && comma)
			*comma = ' ';
		if ((unsigned char)*s > ' ') {
			comma = *s == ',' && prev && !strchr("{[,", prev) ? s : NULL;
			prev = *s;
		}
		s++;
	}
	return true;
}

/* Past blanks (every control byte and the space, as cJSON skips them) and
 * comments; an unclosed comment is left in place, where no token starts. */
static const char *blank_end(const char *s)
{
	for (;;) {
		while (*s && (unsigned char)*s <= ' ')
			s++;
		if (s[0] == '/' && s[1] == '/') {
			s += strcspn(s, "\n");
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			if (!e)
				return s;
			s = e + 2;
		} else {
			return s;
		}
	}
}

size_t jsonc_blank(const char *text, size_t off)
{
	return (size_t)(blank_end(text + off) - text);
}

/* cJSON's nesting limit: deeper text never parses, so is never walked */
enum { MAX_DEPTH = 1000 };

/* Past the value at s (no blanks before it), or NULL when it is not one. */
static const char *value_end(const char *s, int depth)
{
	if (*s == '"')
		return string_end(s);
	if (*s != '{' && *s != '[') {
		/* a number or a literal: its characters, for cJSON to judge */
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
		return n ? s + n : NULL;
	}
	if (depth >= MAX_DEPTH)
		return NULL;
	char close = *s == '{' ? '}' : ']';
	s = blank_end(s + 1);
	while (*s != close) {
		if (close == '}') {
			if (*s != '"' || !(s = string_end(s)))
				return NULL;
			s = blank_end(s);
			if (*s != ':')
				return NULL;
			s = blank_end(s + 1);
		}
		if (!(s = value_end(s, depth + 1)))
			return NULL;
		s = blank_end(s);
		if (*s == ',')
			s = blank_end(s + 1);
		else if (*s != close)
			return NULL;
	}
	return s + 1;
}

bool jsonc_root(const char *text, struct jsonc_span *v)
{
	const char *s = text;
	if (strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	s = blank_end(s);
	const char *e = value_end(s, 0);
	if (!e || *blank_end(e))
		return false;
	*v = (struct jsonc_span){(size_t)(s - text), (size_t)(e - text)};
	return true;
}

int jsonc_next(const char *text, struct jsonc_span obj, size_t *pos, struct jsonc_member *m)
{
	if (text[obj.start] != '{')
		return -1;
	const char *s = blank_end(text + (*pos ? *pos : obj.start + 1));
	if (*pos && *s == ',')
		s = blank_end(s + 1);
	else if (*pos && *s != '}')
		return -1;
	if (*s == '}')
		return 0;
	const char *k = s;
	if (*s != '"' || !(s = string_end(s)))
		return -1;
	s = blank_end(s);
	if (*s != ':')
		return -1;
	const char *v = blank_end(s + 1), *e = value_end(v, 1);
	if (!e)
		return -1;
	m->key = (size_t)(k - text);
	m->val = (struct jsonc_span){(size_t)(v - text), (size_t)(e - text)};
	*pos = m->val.end;
	return 1;
}

bool jsonc_key_is(const char *text, size_t key, const char *name)
{
	const char *s = text + key, *e = string_end(s);
	if (!e)
		return false;
	size_t n = (size_t)(e - s) - 2;
	if (!memchr(s + 1, '\\', n))
		return n == strlen(name) && memcmp(s + 1, name, n) == 0;
	/* escapes: cJSON's own decoding, so the name is the one vx-graph read */
	cJSON *j = cJSON_ParseWithLength(s, (size_t)(e - s));
	bool same = cJSON_IsString(j) && strcmp(j->valuestring, name) == 0;
	cJSON_Delete(j);
	return same;
}

int jsonc_find(const char *text, struct jsonc_span obj, const char *name, struct jsonc_member *m)
{
	struct jsonc_member e;
	size_t pos = 0;
	int found = 0, r;
	while ((r = jsonc_next(text, obj, &pos, &e)) == 1) {
		if (!jsonc_key_is(text, e.key, name))
			continue;
		*m = e;
		if (++found == 2)
			return 2;
	}
	return r < 0 ? -1 : found;
}
