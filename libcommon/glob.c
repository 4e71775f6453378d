#include "glob.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

/* End of the pattern segment starting at p: the next unescaped '/' or NUL. */
static const char *seg_end(const char *p)
{
	while (*p && *p != '/') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return p;
}

static bool is_globstar(const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p[2] == '/' || p[2] == '\0');
}

/* Match class at *pp (pointing at '[') against c. Sets *pp past the class.
 * Returns -1 when there is no closing ']' (then '[' is literal). */
static int match_class(const char **pp, const char *pend, char c)
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
static bool match_seg(const char *p, const char *pend, const char *s, const char *send)
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
				int r = match_class(&q, pend, *s);
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

/* Past the globstar segments starting at p (p itself when there is none);
 * a pattern ending in "** /" (no space) ends past its '/' too. */
static const char *skip_globstars(const char *p)
{
	while (is_globstar(p))
		p = p[2] ? p + 3 : p + 2;
	return p;
}

/* Is [p, e) a segment of plain bytes (no magic, no escape)? */
static bool plain_seg(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p == '*' || *p == '?' || *p == '[' || *p == '\\')
			return false;
	return true;
}

/* The pattern is matched a segment at a time against the set of path
 * segments it may stand at (an NFA over whole segments), so the cost is
 * (pattern segments) x (path segments) segment matches, whatever the number
 * of "**": the recursive matcher this replaced tried every split of the path
 * among them, exponential in their number (ten over a 40-deep path: minutes).
 * The rules, as that matcher had them:
 *   - a plain segment matches the path segment it stands at and moves on;
 *   - a run of "**" stands for zero or more whole segments before the next
 *     plain one, which may stand at any later segment but the empty one
 *     ending "a/"; a run that ends the pattern matches whatever is left;
 *   - when the path ends on a plain segment's match, the pattern must end
 *     there too, or with "**" segments only (the glob src then ** matches src). */
bool glob_match(const char *pat, const char *path)
{
	if (!*pat)
		return !*path;
	/* Leading plain segments compare as bytes before any set is built (a
	 * walk asks "src/" + "**" of every file under src): a plain segment
	 * stands at exactly one place, the path's segment there. One that
	 * ends the pattern must end the path; one that does not must match a
	 * segment that does not either, and both are stripped. A pattern left
	 * with "**" segments only matches whatever is left of the path. */
	for (;;) {
		const char *pe = seg_end(pat);
		if (pe == pat || !plain_seg(pat, pe))
			break;
		size_t n = (size_t)(pe - pat);
		if (!*pe)
			return strcmp(pat, path) == 0;
		if (strncmp(pat, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
			return false;
		if (!path[n] || !pe[1])
			break; /* the path ends here ("src" of "src/" + "**"), or "a/" */
		pat = pe + 1;
		path += n + 1;
	}
	if (is_globstar(pat) && !*skip_globstars(pat))
		return true;
	size_t m = 1;
	for (const char *c = path; *c; c++)
		m += *c == '/';
	/* seg[j]: where path segment j starts; it ends one before seg[j + 1] */
	const char *seg_buf[33];
	unsigned char on_buf[32];
	const char **seg = m < 33 ? seg_buf : xmalloc((m + 1) * sizeof(*seg));
	unsigned char *on = m < 33 ? on_buf : xmalloc(m);
	seg[0] = path;
	for (size_t j = 1; j <= m; j++) {
		const char *e = strchr(seg[j - 1], '/');
		seg[j] = (e ? e : seg[j - 1] + strlen(seg[j - 1])) + 1;
	}
	/* the last path segment, when empty ("" or "a/"), is no place for
	 * the segment after a "**" */
	size_t last_ok = seg[m] - seg[m - 1] > 1 ? m : m - 1;
	/* the start of the last pattern segment that is not "**" (NULL: none) */
	const char *last_plain = NULL;
	for (const char *p = pat;;) {
		if (!is_globstar(p))
			last_plain = p;
		const char *e = seg_end(p);
		if (!*e)
			break;
		p = e + 1;
	}
	memset(on, 0, m);
	on[0] = 1;
	bool result = false;
	for (const char *p = pat;;) {
		if (is_globstar(p)) {
			const char *rest = skip_globstars(p);
			if (!*rest) {
				result = true; /* some segment is on: a dead set ends the loop */
				break;
			}
			size_t lo = 0;
			while (!on[lo])
				lo++;
			for (size_t j = lo; j < m; j++)
				on[j] = j < last_ok;
			p = rest;
			continue;
		}
		const char *pend = seg_end(p);
		bool pat_ends = !*pend, tail_globs = last_plain <= p;
		bool any = false;
		/* downwards, so setting on[j + 1] never feeds this same step */
		for (size_t j = m; j-- > 0;) {
			if (!on[j])
				continue;
			on[j] = 0;
			if (!match_seg(p, pend, seg[j], seg[j + 1] - 1))
				continue;
			if (j == m - 1) {
				if (pat_ends || tail_globs)
					result = true;
			} else if (!pat_ends) {
				on[j + 1] = 1;
				any = true;
			}
		}
		if (result || !any)
			break;
		p = pend + 1;
	}
	if (seg != seg_buf) {
		free(seg);
		free(on);
	}
	return result;
}

bool glob_has_magic(const char *pat)
{
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*' || *p == '?' || *p == '[')
			return true;
	}
	return false;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

char *glob_collapse(const char *pat)
{
	size_t n = strlen(pat);
	for (;;) {
		size_t before = n;
		while (n > 1 && pat[n - 1] == '/' && !(n >= 2 && pat[n - 2] == '\\'))
			n--;
		if (n == 2 && memcmp(pat, "**", 2) == 0)
			return xstrdup(".");
		if (n == 4 && memcmp(pat, "**/*", 4) == 0)
			return xstrdup(".");
		if (ends_with(pat, n, "/**/*") && n > 5 && pat[n - 6] != '\\')
			n -= 5;
		else if (ends_with(pat, n, "/**") && n > 3)
			n -= 3;
		if (n == before)
			break;
	}
	return xstrndup(pat, n);
}

char *glob_unescape(const char *pat)
{
	char *out = xmalloc(strlen(pat) + 1), *o = out;
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

char *glob_static_prefix(const char *pat)
{
	const char *p = pat, *keep = pat;
	while (*p) {
		const char *e = seg_end(p);
		bool magic = false;
		for (const char *q = p; q < e; q++) {
			if (*q == '\\' && q + 1 < e)
				q++;
			else if (*q == '*' || *q == '?' || *q == '[')
				magic = true;
		}
		if (magic)
			break;
		keep = e;
		if (!*e)
			break;
		p = e + 1;
	}
	char *lit = xstrndup(pat, (size_t)(keep - pat));
	char *out = glob_unescape(lit);
	free(lit);
	return out;
}

bool glob_may_match_under(const char *pat, const char *dir)
{
	const char *p = pat, *s = dir;
	if (!*s || strcmp(s, ".") == 0)
		return true;
	for (;;) {
		if (is_globstar(p))
			return true;
		if (!*p)
			return false;
		const char *pend = seg_end(p);
		const char *send = strchr(s, '/');
		if (!send)
			send = s + strlen(s);
		if (!match_seg(p, pend, s, send))
			return false;
		if (!*send)
			return true;
		if (!*pend)
			return false;
		p = pend + 1;
		s = send + 1;
	}
}
