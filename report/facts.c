/* facts.c: what the judging rules ask of an access and the host (facts.h). */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "glob.h"
#include "netpat.h"
#include "path.h"
#include "sberrno.h"

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The raw bytes of a path member: its _hex twin when it has one. */
char *facts_raw_path(const cJSON *rec, const char *key, bool *bin)
{
	char hk[32];
	const char *hex;
	snprintf(hk, sizeof(hk), "%s_hex", key);
	hex = str(rec, hk);
	*bin = hex != NULL;
	if (hex) {
		size_t n = strlen(hex) / 2;
		char *o = xmalloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			unsigned v = 0;
			sscanf(hex + 2 * i, "%2x", &v);
			o[i] = (char)v;
		}
		o[n] = 0;
		return o;
	}
	return xstrdup(str(rec, key) ? str(rec, key) : "");
}

/* A path for a text line: control bytes (and, in a path that is not UTF-8,
 * every byte above 0x7f) as C escapes, so one violation stays one line. */
char *facts_show(const char *s, bool bin)
{
	size_t n = strlen(s), j = 0;
	char *o = xmalloc(4 * n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			j += (size_t)sprintf(o + j, "\\n");
		else if (c == '\t')
			j += (size_t)sprintf(o + j, "\\t");
		else if (c == '\\')
			j += (size_t)sprintf(o + j, "\\\\");
		else if (c < 0x20 || c == 0x7f || (bin && c >= 0x80))
			j += (size_t)sprintf(o + j, "\\x%02x", c);
		else
			o[j++] = (char)c;
	}
	o[j] = 0;
	return o;
}

/* Does an ignore.read/ignore.write glob silence this path? Patterns are
 * project-relative like grants; absolute and ~/ ones match the whole path. */
bool facts_ignored(const struct report *r, const char *access, const char *res)
{
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(r->task, "sandbox");
	const cJSON *ig = cJSON_GetObjectItemCaseSensitive(sb, "ignore");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(ig, access), *e;
	char *rel = path_relative(r->project, res);
	bool hit = false;
	cJSON_ArrayForEach(e, list) {
		char *pat, *col;
		if (!cJSON_IsString(e) || hit)
			continue;
		pat = path_expand_home(e->valuestring);
		col = glob_collapse(pat);
		if (col[0] == '/')
			hit = glob_match(col + 1, res + 1) ||
				(!glob_has_magic(col) && path_is_within(col, res));
		else
			hit = glob_match(col, rel) ||
				(!glob_has_magic(col) && strcmp(col, ".") && path_is_within(col, rel)) ||
				!strcmp(col, ".");
		free(col);
		free(pat);
	}
	free(rel);
	return hit;
}

/* The withheld link whose target holds res, or NULL. */
const cJSON *facts_withheld_for(const struct report *r, const char *res)
{
	const cJSON *w;
	cJSON_ArrayForEach(w, r->withheld) {
		const char *d = str(w, "dir");
		if (d && path_is_within(d, res))
			return w;
	}
	return NULL;
}

/* Does an ignore.network entry (host, host:port, *:port) silence it? */
bool facts_net_ignored(const struct report *r, const char *host, unsigned port)
{
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(r->task, "sandbox");
	const cJSON *ig = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sb, "ignore"), "network"), *e;
	cJSON_ArrayForEach(e, ig)
		if (cJSON_IsString(e) && netpat_match(e->valuestring, host, port))
			return true;
	return false;
}

/* Spelled from the project when in the workspace, ~/ under $HOME. */
char *facts_spell(const struct report *r, const char *p)
{
	const char *home = getenv("HOME");
	if (path_is_within(r->root, p))
		return path_relative(r->project, p);
	if (home && *home && strcmp(home, "/") && path_is_within(home, p)) {
		char *u = path_under(home, p), *o = strcmp(u, ".") ? xasprintf("~/%s", u) : xstrdup("~");
		free(u);
		return o;
	}
	return xstrdup(p);
}

/* The project a withheld directory is (for the hint's package name). */
const char *facts_package_of(const struct report *r, const char *dir)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, r->projects) {
		const char *d = str(p, "dir"), *n = str(p, "name");
		char *abs, *canon;
		bool same;
		if (!d || !n)
			continue;
		abs = path_join(r->root, d);
		canon = path_canonical(abs);
		same = !strcmp(canon ? canon : abs, dir);
		free(abs);
		free(canon);
		if (same)
			return n;
	}
	return NULL;
}

/* Could the sandbox have caused this errno (issue 18 item 4)? Only with
 * one of sberrno.h's: any other the host gives as well (EINVAL from
 * readlink of a directory, ENXIO from /dev/tty with no terminal, EISDIR,
 * ELOOP, ...). A write's EEXIST is the sandbox's only when the name does
 * not exist on the host; a write's ENOENT only when its directory does. */
static bool errno_in(const char *en, const int *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(en, strerrorname_np(set[i])))
			return true;
	return false;
}

bool facts_sandbox_errno(const char *en, bool write, const char *res)
{
	static const int rd[] = {SB_ERRNO_READ}, wr[] = {SB_ERRNO_WRITE};
	struct stat st;
	if (!write)
		return errno_in(en, rd, sizeof(rd) / sizeof(*rd));
	if (errno_in(en, wr, sizeof(wr) / sizeof(*wr)))
		return true;
	if (!strcmp(en, "EEXIST"))
		return lstat(res, &st) != 0;
	if (!strcmp(en, "ENOENT")) {
		char *dir = xstrdup(res), *sl = strrchr(dir, '/');
		bool there;
		if (sl)
			sl[sl == dir] = 0;
		there = stat(dir, &st) == 0;
		free(dir);
		return there;
	}
	return false;
}

/* Could this hidden read of res, an existing workspace path, change a
 * cached task's output (issue 18 item 2)? An open or exec: it read nothing
 * where the host has bytes. A stat, access or readlink of a regular file:
 * tools probe a config file before they read it (browserslist checks
 * package.json with existsSync, and never opens a hidden one), so the probe
 * is where the output forks. Not a probe of a directory, nor of .git (a
 * file in a worktree): tools walk upward testing every level for them, and
 * their existence alone selects no bytes. */
bool facts_forks_output(const char *op, const char *res)
{
	struct stat st;
	const char *base = strrchr(res, '/');
	if (!strcmp(op, "openat") || !strcmp(op, "open") || !strcmp(op, "openat2") ||
		!strcmp(op, "execve") || !strcmp(op, "execveat"))
		return true;
	return stat(res, &st) == 0 && S_ISREG(st.st_mode) && strcmp(base ? base + 1 : res, ".git");
}

/* May a hint propose granting dir (absolute)? Not the workspace root or an
 * ancestor of the project (that opens every sibling, and vx refuses a bind
 * holding .git or a nested project), nothing in .git or .vx, not /,
 * nor the sandbox's own /dev, /proc, /sys. */
bool facts_grantable(const struct report *r, const char *dir)
{
	char *rel;
	bool ok = true;
	if (!strcmp(dir, "/") || path_is_within(dir, r->project) || path_is_within(dir, r->root) ||
		path_is_within("/dev", dir) || path_is_within("/proc", dir) || path_is_within("/sys", dir))
		return false;
	if (!path_is_within(r->root, dir))
		return true;
	rel = path_under(r->root, dir);
	for (char *c = strtok(rel, "/"); c && ok; c = strtok(NULL, "/"))
		ok = strcmp(c, ".git") && strcmp(c, ".vx");
	free(rel);
	return ok;
}
