/* glob_ref.h: the recursive glob matcher vx used until issue 20.14, kept
 * as the slow reference fuzz_glob.c checks glob_match against: the same
 * answers, exponential in the number of "**" (so the harness gives it
 * bounded inputs only). Its one-segment matcher is glob.c's own, unchanged
 * by that issue: include this after libcommon/glob.c. Not part of any
 * program. */
#ifndef VX_FUZZ_GLOB_REF_H
#define VX_FUZZ_GLOB_REF_H

#include <stdbool.h>
#include <string.h>

static bool ref_match_from(const char *p, const char *s)
{
	for (;;) {
		if (is_globstar(p)) {
			const char *rest = p[2] ? p + 3 : p + 2;
			while (is_globstar(rest))
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
		const char *pend = seg_end(p);
		const char *send = strchr(s, '/');
		if (!send)
			send = s + strlen(s);
		if (!match_seg(p, pend, s, send))
			return false;
		if (!*pend && !*send)
			return true;
		if (!*send) {
			// the path ended: only trailing "/**" segments may remain
			p = pend + 1;
			while (is_globstar(p))
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
