#include "jsonc.h"

#include <string.h>

/* Past the string that opens at s[0] == '"': the byte after its closing
 * quote, or the terminating NUL. */
static char *skip_string(char *s)
{
	for (s++; *s && *s != '"'; s++)
		if (*s == '\\' && s[1])
			s++;
	return *s ? s + 1 : s;
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
	/* comments gone: a ',' after a value whose next non-space is '}' or
	 * ']' goes too (a lone "[,]" stays for the parser to refuse) */
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
		if (!strchr(" \t\r\n", *s)) {
			comma = *s == ',' && prev && !strchr("{[,", prev) ? s : NULL;
			prev = *s;
		}
		s++;
	}
	return true;
}
