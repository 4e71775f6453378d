#include "path.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

char *path_normalize(const char *p)
{
	size_t n = strlen(p);
	bool abs = p[0] == '/';
	char *out = xmalloc(n + 2);
	size_t o = 0;
	size_t floor = 0; /* leading ".." segments of a relative path stay */

	if (abs)
		out[o++] = '/';
	const char *s = p;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, '/');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		if (k == 1 && s[0] == '.') {
			/* skip */
		} else if (k == 2 && s[0] == '.' && s[1] == '.') {
			if (o > (abs ? 1u : 0u) + floor) {
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > (abs ? 1u : 0u))
					o--;
			} else if (!abs) {
				if (o)
					out[o++] = '/';
				out[o++] = '.';
				out[o++] = '.';
				floor = o;
			}
		} else {
			if (o && out[o - 1] != '/')
				out[o++] = '/';
			memcpy(out + o, s, k);
			o += k;
		}
		s += k;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

char *path_join(const char *a, const char *b)
{
	if (b[0] == '/' || !*a)
		return path_normalize(b);
	/* joined by hand, not by xasprintf: vx-sandbox joins every project
	 * of the graph a task (1,000 at 1,000 projects) */
	size_t na = strlen(a), nb = strlen(b);
	char *t = xmalloc(na + nb + 2);
	memcpy(t, a, na);
	t[na] = '/';
	memcpy(t + na + 1, b, nb + 1);
	char *r = path_normalize(t);
	free(t);
	return r;
}

char *path_canonical(const char *p)
{
	return realpath(p, NULL);
}

bool path_is_within(const char *base, const char *p)
{
	size_t n = strlen(base);
	if (n == 1 && base[0] == '/')
		return p[0] == '/';
	if (strncmp(base, p, n) != 0)
		return false;
	return p[n] == '\0' || p[n] == '/';
}

char *path_under(const char *root, const char *p)
{
	if (!path_is_within(root, p))
		return NULL;
	size_t n = strlen(root);
	if (p[n] == '\0')
		return xstrdup(".");
	if (n == 1)
		return xstrdup(p + 1);
	return xstrdup(p + n + 1);
}

static const char *next_seg(const char *s, size_t *len)
{
	while (*s == '/')
		s++;
	const char *e = strchr(s, '/');
	*len = e ? (size_t)(e - s) : strlen(s);
	return s;
}

char *path_relative(const char *from, const char *to)
{
	const char *f = from, *t = to;
	for (;;) {
		size_t fl, tl;
		const char *fs = next_seg(f, &fl), *ts = next_seg(t, &tl);
		if (!fl || fl != tl || memcmp(fs, ts, fl) != 0)
			break;
		f = fs + fl;
		t = ts + tl;
	}
	size_t ups = 0, l;
	for (const char *s = f; *(s = next_seg(s, &l)); s += l)
		ups++;
	while (*t == '/')
		t++;
	char *out = xmalloc(ups * 3 + strlen(t) + 2), *o = out;
	for (size_t u = 0; u < ups; u++, o += 3)
		memcpy(o, "../", 3);
	strcpy(o, t);
	size_t n = strlen(out);
	if (n && out[n - 1] == '/')
		out[n - 1] = '\0';
	if (!*out)
		strcpy(out, ".");
	return out;
}

char *path_canonical_would_be(const char *p)
{
	char *c = path_canonical(p), *dir, *rest, *out;
	const char *base;
	if (c || strcmp(p, "/") == 0 || !strchr(p, '/'))
		return c ? c : xstrdup(strchr(p, '/') ? "/" : p);
	dir = path_dirname(p);
	base = strrchr(p, '/') + 1;
	rest = path_canonical_would_be(dir);
	out = path_join(rest, base);
	free(dir);
	free(rest);
	return out;
}

char *path_expand_home(const char *p)
{
	if (p[0] != '~' || (p[1] != '\0' && p[1] != '/'))
		return xstrdup(p);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	return path_join(home, p[1] ? p + 2 : ".");
}

char *path_dirname(const char *p)
{
	const char *s = strrchr(p, '/');
	if (!s || s == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(s - p));
}

int path_mkdirs(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	char *parent = path_dirname(dir);
	int rc = strcmp(parent, dir) ? path_mkdirs(parent) : -1;
	free(parent);
	return rc ? rc : mkdir(dir, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

char *path_beside_self(const char *name)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	*strrchr(buf, '/') = '\0'; /* the kernel's path is absolute */
	return xasprintf("%s/%s", buf, name);
}
