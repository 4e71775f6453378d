/* glob_ref.h: the recursive glob matcher vx used until issue 20.14, kept
 * as the slow reference fuzz_glob.c checks glob_match against: the same
 * answers, exponential in the number of "**" (so the harness gives it
 * bounded inputs only). Not part of any program. */
#ifndef VX_FUZZ_GLOB_REF_H
#define VX_FUZZ_GLOB_REF_H

#include <stdbool.h>
#include <string.h>

/* End of the pattern segment starting at p: the next unescaped '/' or NUL. */
static const char *ref_seg_end(const char *p)
{
	while (*p && *p != '/') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return p;
}

static bool ref_is_globstar(const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p[2] == '/' || p[2] == '\0');
}

/* Match class at *pp (pointing at '[') against c. Sets *pp past the class.
 * Returns -1 when there is no closing ']' (then '[' is literal). */
static int ref_match_class(const char **pp, const char *pend, char c)
{
	const char *p = *pp + 1;
	bool neg = false, hit = false;
	if (p < pend && (*p == '!' || *p == '^')) {
		neg = true;
		p++;
	}
	const char *first = p;
	while (p < pend && (*p != ']' || p == first)) {
		char lo = *p;
		if (lo == '\\' && p + 1 < pend)
			lo = *++p;
		p++;
		char hi = lo;
		if (p + 1 < pend && *p == '-' && p[1] != ']') {
			p++;
			if (*p == '\\' && p + 1 < pend)
				p++;
			hi = *p++;
		}
		if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
			hit = true;
	}
	if (p >= pend)
		return -1;
	*pp = p + 1;
	return hit != neg;
}

/* Match one pattern segment [p, pend) against one path segment [s, send). */
static bool ref_match_seg(const char *p, const char *pend, const char *s, const char *send)
{
	const char *star_p = NULL, *star_s = NULL;
	while (s < send) {
		if (p < pend && *p == '*') {
			while (p < pend && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (p < pend) {
			if (*p == '?') {
				p++;
				s++;
				continue;
			}
			if (*p == '[') {
				const char *q = p;
				int r = ref_match_class(&q, pend, *s);
				if (r == 1) {
					p = q;
					s++;
					continue;
				}
				if (r == -1 && *s == '[') {
					p++;
					s++;
					continue;
				}
			} else {
				const char *q = p;
				if (*q == '\\' && q + 1 < pend)
					q++;
				if (*q == *s) {
					p = q + 1;
					s++;
					continue;
				}
			}
		}
		if (!star_p)
			return false;
		p = star_p;
		s = ++star_s;
	}
	while (p < pend && *p == '*')
		p++;
	return p == pend;
}

static bool ref_match_from(const char *p, const char *s)
{
	for (;;) {
		if (ref_is_globstar(p)) {
			const char *rest = p[2] ? p + 3 : p + 2;
			while (ref_is_globstar(rest))
				rest = rest[2] ? rest + 3 : rest + 2;
			if (!*rest)
				return true;
			for (const char *t = s;;) {
				if (*t && ref_match_from(rest, t))
					return true;
				t = strchr(t, '/');
				if (!t)
					return false;
				t++;
			}
		}
		const char *pend = ref_seg_end(p);
		const char *send = strchr(s, '/');
		if (!send)
			send = s + strlen(s);
		if (!ref_match_seg(p, pend, s, send))
			return false;
		if (!*pend && !*send)
			return true;
		if (!*send) {
			// the path ended: only trailing "/**" segments may remain
			p = pend + 1;
			while (ref_is_globstar(p))
				p = p[2] ? p + 3 : p + 2;
			return *p == '\0' && *(p - 1) != '/';
		}
		if (!*pend)
			return false;
		p = pend + 1;
		s = send + 1;
	}
}

static bool ref_glob_match(const char *pat, const char *path)
{
	if (!*pat)
		return !*path;
	return ref_match_from(pat, path);
}

#endif
