#include "termsafe.h"

#include <stdbool.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* The length of a valid UTF-8 sequence at s that is no C1 control, or 0. */
static size_t utf8_ok(const unsigned char *s, size_t n)
{
	size_t k;
	unsigned cp;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0;
	return k;
}

/* An SGR sequence at s (ESC [ params m): its length, or 0. */
static size_t sgr(const char *s, size_t n)
{
	if (n < 3 || s[0] != '\033' || s[1] != '[')
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (s[i] == 'm')
			return i + 1;
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == ';' || s[i] == ':'))
			return 0;
	}
	return 0;
}

/* One line, no line end in it: its bytes rendered; true when it kept an SGR. */
static bool put_line(FILE *f, const char *s, size_t n)
{
	bool coloured = false;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k;
		if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
			for (k = i + 1; k < n && ((unsigned char)s[k] == '\t' ||
				((unsigned char)s[k] >= 0x20 && (unsigned char)s[k] < 0x7f)); k++)
				;
			fwrite(s + i, 1, k - i, f);
			i = k;
		} else if ((k = sgr(s + i, n - i))) {
			fwrite(s + i, 1, k, f);
			coloured = true;
			i += k;
		} else if (c < 0x20 || c == 0x7f) {
			fputc('^', f);
			fputc(c == 0x7f ? '?' : c + 0x40, f);
			i++;
		} else if ((k = utf8_ok((const unsigned char *)s + i, n - i))) {
			fwrite(s + i, 1, k, f);
			i += k;
		} else {
			fprintf(f, "\\x%02x", c);
			i++;
		}
	}
	return coloured;
}

void termsafe_lines(FILE *f, const char *prefix, const char *s, size_t n)
{
	size_t plen = strlen(prefix);
	while (n) {
		size_t k = 0;
		while (k < n && s[k] != '\n' && s[k] != '\r')
			k++;
		/* a line never straddles a flush (termsafe.h) */
		size_t pending = __fpending(f);
		if (pending && pending + plen + k + 8 > TERMSAFE_WHOLE)
			fflush(f);
		bool coloured = put_line(f, prefix, plen);
		coloured |= put_line(f, s, k);
		fputs(coloured ? "\033[0m\n" : "\n", f);
		if (k < n && s[k] == '\r' && k + 1 < n && s[k + 1] == '\n')
			k++;
		if (k < n)
			k++;
		s += k;
		n -= k;
	}
}

char *termsafe_str(const char *s)
{
	const char *p = s;
	while ((*p >= 0x20 && *p < 0x7f) || *p == '\t')
		p++;
	if (!*p) /* plain text, as nearly every id is: no stream to set up */
		return xstrdup(s);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	if (!m)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	if (put_line(m, s, strlen(s)))
		fputs("\033[0m", m);
	if (fclose(m) != 0)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	return out;
}
