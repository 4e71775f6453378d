#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "err.h"
#include "glob.h"
#include "strbuf.h"


struct selector {
	const char *raw;
	bool exclude;       /* leading '!' */
	bool with_deps;     /* trailing "..." */
	bool with_rdeps;    /* leading "..." */
	bool not_self;      /* '^' beside the dots */
	bool match_deps;    /* NAME...[REF] */
	char *name;         /* name glob, NULL for none */
	char *dir;          /* root-relative dir glob, NULL for none */
	char *from, *to;    /* [FROM] or [FROM...TO], NULL for none */
};

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);
	return len >= n && memcmp(s + len - n, p, n) == 0;
}

/* "./a/b/" -> "a/b", "." -> "."; NULL for a path leaving the workspace. */
static char *norm_dir(const char *in)
{
	while (has_prefix(in, "./"))
		in += 2;
	char *d = xstrdup(*in ? in : ".");
	size_t len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	if (strcmp(d, "..") == 0 || has_prefix(d, "../") || strstr(d, "/../") ||
	    has_suffix(d, len, "/..") || d[0] == '/') {
		free(d);
		return NULL;
	}
	return d;
}

static int bad(const char *raw, const char *why, const char *fix)
{
	err_warn("--filter '%s': %s; fix: %s", raw, why, fix);
	return -1;
}

/* The grammar of turbo's target_selector.rs, for the forms it documents. */
static int parse(const char *raw, struct selector *s)
{
	memset(s, 0, sizeof(*s));
	s->raw = raw;
	const char *b = raw;
	if (*b == '!') {
		s->exclude = true;
		b++;
	}
	size_t len = strlen(b);
	if (has_suffix(b, len, "...")) {
		s->with_deps = true;
		len -= 3;
		if (len && b[len - 1] == '^') {
			s->not_self = true;
			len--;
		}
	}
	if (has_prefix(b, "...") && len >= 3) {
		s->with_rdeps = true;
		b += 3;
		len -= 3;
		if (len && *b == '^') {
			s->not_self = true;
			b++;
			len--;
		}
	}
	char *body = xstrndup(b, len);
	char *brace = strchr(body, '{'), *bracket = strchr(body, '[');
	char *rest = NULL;
	int rc = 0;
	if (!brace && !bracket) {
		if (strcmp(body, ".") == 0 || strcmp(body, "..") == 0 || has_prefix(body, "./") ||
		    has_prefix(body, "../"))
			s->dir = xstrdup(body);
		else if (*body)
			s->name = xstrdup(body);
	} else {
		char *cut = brace && (!bracket || brace < bracket) ? brace : bracket;
		rest = cut;
		/* NAME...[REF]: the dots belong to the ref */
		if (cut == bracket && cut - body >= 3 && has_prefix(cut - 3, "...")) {
			s->match_deps = true;
			cut -= 3;
		}
		if (cut > body)
			s->name = xstrndup(body, (size_t)(cut - body));
		if (*rest == '{') {
			char *close = strchr(rest, '}');
			if (!close || close == rest + 1) {
				rc = bad(raw, close ? "an empty {directory}" : "a '{' with no '}'",
					"write {./dir} with a directory inside");
				goto out;
			}
			s->dir = xstrndup(rest + 1, (size_t)(close - rest - 1));
			rest = close + 1;
		}
		if (has_prefix(rest, "...[")) {
			s->match_deps = true;
			rest += 3;
		}
		if (*rest == '[') {
			size_t rl = strlen(rest);
			if (rl < 3 || rest[rl - 1] != ']' || memchr(rest + 1, ']', rl - 2)) {
				rc = bad(raw, "a git ref must be written [REF] at the end",
					"write [main], [HEAD^1] or [FROM...TO]");
				goto out;
			}
			char *in = xstrndup(rest + 1, rl - 2);
			char *dots = strstr(in, "...");
			if (dots) {
				*dots = '\0';
				s->to = xstrdup(dots + 3);
			}
			s->from = in;
		} else if (*rest) {
			rc = bad(raw, "unexpected text after the name or {directory}",
				"write NAME, {./dir}, [REF] or a combination in that order");
			goto out;
		}
	}
	if (s->dir) {
		char *d = norm_dir(s->dir);
		if (!d) {
			rc = bad(raw, "the directory is outside the workspace",
				"name a directory under the workspace root, as ./apps/web");
			goto out;
		}
		free(s->dir);
		s->dir = d;
	}
	for (const char *r = s->from; r; r = r == s->from ? s->to : NULL) {
		/* a ref reaches git as an argument: one starting with '-' would
		 * be read as an option */
		if (!*r || *r == '-') {
			rc = bad(raw, *r ? "a git ref may not start with '-'" : "an empty git ref",
				"name a commit, branch or tag: [main], [HEAD~2]");
			goto out;
		}
	}
	if (s->match_deps && !s->name && !s->dir)
		rc = bad(raw, "'...[REF]' needs a name or {directory} before it",
			"write NAME...[REF], or ...[REF] for the dependents of what changed");
	else if (!s->name && !s->dir && !s->from)
		rc = bad(raw, "no name, directory or [git ref]",
			"write a package name (web), a directory (./apps/web) or [main]");
out:
	free(body);
	return rc;
}

/* turbo's SimpleGlob: '*' any run of characters ('/' too), all else literal. */
static bool name_match(const char *p, const char *s)
{
	while (*p && *p != '*') {
		if (*p != *s)
			return false;
		p++, s++;
	}
	if (!*p)
		return !*s;
	while (*p == '*')
		p++;
	if (!*p)
		return true;
	for (; *s; s++)
		if (name_match(p, s))
			return true;
	return false;
}

/* Run "git -C root ARGS", its stdout in *out (NUL-separated paths with -z).
 * On failure, the first line of git's stderr in *why. */
static int git_capture(const char *root, const char *const *args, char **out, size_t *outlen,
	char **why)
{
	const char *argv[16];
	size_t a = 0;
	argv[a++] = "git";
	argv[a++] = "-C";
	argv[a++] = root;
	for (size_t i = 0; args[i] && a < 15; i++)
		argv[a++] = args[i];
	argv[a] = NULL;

	int gout, pe[2];
	if (pipe2(pe, O_CLOEXEC) < 0) {
		*why = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	struct spawn_opts o = {.null_stdin = true, .err_fd = pe[1], .search_path = true};
	pid_t pid = child_start((char *const *)argv, &o, NULL, &gout);
	int e = errno;
	close(pe[1]);
	if (pid < 0) {
		close(pe[0]);
		*why = xasprintf("unable to run git: %s", strerror(e));
		return -1;
	}
	struct strbuf sout = STRBUF_INIT;
	strbuf_read(&sout, gout, 4096);
	ssize_t r;
	/* git's error is a line or two: read after stdout closes, it fits the
	 * pipe's buffer meanwhile */
	char ebuf[1024];
	size_t en = 0;
	while (en < sizeof(ebuf) - 1 && (r = read(pe[0], ebuf + en, sizeof(ebuf) - 1 - en)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		en += (size_t)r;
	}
	ebuf[en] = '\0';
	close(gout);
	close(pe[0]);
	if (child_wait(pid) != 0) {
		ebuf[strcspn(ebuf, "\n")] = '\0';
		*why = xstrdup(*ebuf ? ebuf : "git failed");
		strbuf_release(&sout);
		return -1;
	}
	*out = strbuf_detach(&sout, outlen);
	return 0;
}

/* The project owning a root-relative path: the deepest whose dir holds it
 * (the root project owns what no other does). */
static struct project *owner(struct workspace *ws, const char *path)
{
	struct project *best = NULL;
	size_t bestlen = 0;
	for (size_t i = 0; i < ws->nprojects; i++) {
		struct project *p = ws->projects[i];
		size_t dl = strlen(p->dir);
		if (strcmp(p->dir, ".") == 0) {
			if (!best)
				best = p;
			continue;
		}
		if (strncmp(path, p->dir, dl) == 0 && path[dl] == '/' && dl > bestlen) {
			best = p;
			bestlen = dl;
		}
	}
	return best;
}

static void mark_paths(struct workspace *ws, const char *buf, size_t len, bool *changed)
{
	for (const char *p = buf; p < buf + len; p += strlen(p) + 1) {
		struct project *o = *p ? owner(ws, p) : NULL;
		if (o)
			changed[o->index] = true;
	}
}

/* changed[i]: project i owns a file that differs between the selector's
 * refs (without TO: from FROM's merge base with HEAD to the working tree,
 * untracked files too). */
static int changed_projects(struct workspace *ws, const struct selector *s, bool *changed)
{
	char *out = NULL, *why = NULL, *base = NULL, *cmd = NULL;
	size_t len;
	int rc = -1;
	if (s->to) {
		char *range = xasprintf("%s...%s", s->from, s->to);
		const char *a[] = {"diff", "--name-only", "--no-renames", "--relative", "-z", range, NULL};
		cmd = xasprintf("git diff %s", range);
		rc = git_capture(ws->root, a, &out, &len, &why);
		if (rc == 0)
			mark_paths(ws, out, len, changed);
		free(range);
		goto out;
	}
	const char *mb[] = {"merge-base", s->from, "HEAD", NULL};
	cmd = xasprintf("git merge-base %s HEAD", s->from);
	if (git_capture(ws->root, mb, &base, &len, &why) != 0)
		goto out;
	base[strcspn(base, "\n")] = '\0';
	const char *d[] = {"diff", "--name-only", "--no-renames", "--relative", "-z", base, "--", NULL};
	free(cmd);
	cmd = xasprintf("git diff %s", base);
	if (git_capture(ws->root, d, &out, &len, &why) != 0)
		goto out;
	mark_paths(ws, out, len, changed);
	free(out);
	out = NULL;
	const char *u[] = {"ls-files", "-z", "--others", "--exclude-standard", NULL};
	free(cmd);
	cmd = xstrdup("git ls-files --others");
	if (git_capture(ws->root, u, &out, &len, &why) != 0)
		goto out;
	mark_paths(ws, out, len, changed);
	rc = 0;
out:
	if (rc)
		err_warn("--filter '%s': %s: %s; fix: name a commit, branch or tag git knows here "
			 "(git log --oneline), in a git checkout",
			s->raw, cmd, why);
	free(cmd);
	free(why);
	free(out);
	free(base);
	return rc;
}

/* out[i]: project i is reached from a project set in from by one or more
 * package dependency edges, down (what they depend on) or up (what depends
 * on them). A start is in out only when another start leads to it. */
static void reach(struct workspace *ws, const bool *from, bool *out, bool down)
{
	size_t n = ws->nprojects;
	size_t *stack = xmalloc((n + 1) * sizeof(*stack)), top = 0;
	for (size_t i = 0; i < n; i++)
		if (from[i])
			stack[top++] = i;
	while (top) {
		struct project *p = ws->projects[stack[--top]];
		for (size_t i = 0; i < n; i++) {
			struct project *q = ws->projects[i];
			bool linked = false;
			if (down) {
				for (size_t k = 0; k < p->ndeps && !linked; k++)
					linked = p->deps[k] == q;
			} else {
				for (size_t k = 0; k < q->ndeps && !linked; k++)
					linked = q->deps[k] == p;
			}
			if (linked && !out[i]) {
				out[i] = true;
				stack[top++] = i;
			}
		}
	}
	free(stack);
}

/* The projects the selector names before its dots are applied. */
static int entries(struct workspace *ws, const struct selector *s, bool *out)
{
	size_t n = ws->nprojects;
	bool *changed = NULL;
	if (s->from) {
		changed = xcalloc(n, sizeof(bool));
		if (changed_projects(ws, s, changed) != 0) {
			free(changed);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct project *p = ws->projects[i];
		out[i] = (!s->dir || glob_match(s->dir, p->dir)) &&
			 (!s->name || name_match(s->name, p->name));
	}
	/* turbo: a bare name matching nothing may be the unscoped half of
	 * exactly one scoped package ("web" for "@acme/web") */
	if (s->name && s->name[0] != '@') {
		size_t hits = 0, one = 0;
		for (size_t i = 0; i < n; i++)
			hits += out[i];
		if (!hits) {
			char *scoped = xasprintf("@*/%s", s->name);
			for (size_t i = 0; i < n; i++)
				if ((!s->dir || glob_match(s->dir, ws->projects[i]->dir)) &&
				    name_match(scoped, ws->projects[i]->name))
					hits++, one = i;
			if (hits == 1)
				out[one] = true;
			free(scoped);
		}
	}
	if (changed && s->match_deps) {
		/* NAME...[REF]: NAME when it or anything it depends on changed */
		for (size_t i = 0; i < n; i++) {
			if (!out[i])
				continue;
			bool *one = xcalloc(n, sizeof(bool)), *down = xcalloc(n, sizeof(bool));
			one[i] = true;
			reach(ws, one, down, true);
			bool hit = changed[i];
			for (size_t k = 0; k < n && !hit; k++)
				hit = down[k] && changed[k];
			out[i] = hit;
			free(one);
			free(down);
		}
	} else if (changed) {
		for (size_t i = 0; i < n; i++)
			out[i] = out[i] && changed[i];
	}
	free(changed);
	return 0;
}

static int apply(struct workspace *ws, const struct selector *s, bool *result)
{
	size_t n = ws->nprojects;
	bool *e = xcalloc(n, sizeof(bool));
	if (entries(ws, s, e) != 0) {
		free(e);
		return -1;
	}
	size_t hits = 0;
	for (size_t i = 0; i < n; i++)
		hits += e[i];
	if (!hits) {
		free(e);
		if (s->from) {
			err_warn("--filter '%s': nothing it names changed since %s", s->raw, s->from);
			return 0;
		}
		return bad(s->raw, "matches no project",
			"name a project by its package.json name or glob (@acme/*), or a directory "
			"holding one (./apps/web)");
	}
	/* turbo's filter.rs: the matched projects (unless '^'), what they
	 * depend on ("NAME..."), what depends on them ("...NAME"), and with
	 * both, what those dependents depend on too */
	bool *down = xcalloc(n, sizeof(bool)), *up = xcalloc(n, sizeof(bool));
	bool walked = s->with_deps || s->with_rdeps;
	if (s->with_rdeps)
		reach(ws, e, up, false);
	if (s->with_deps) {
		reach(ws, e, down, true);
		if (s->with_rdeps)
			reach(ws, up, down, true);
	}
	for (size_t i = 0; i < n; i++)
		if ((e[i] && !(walked && s->not_self)) || up[i] || down[i])
			result[i] = true;
	free(up);
	free(down);
	free(e);
	return 0;
}

bool filter_uses_git(char *const *filters, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(filters[i], '['))
			return true;
	return false;
}

int filter_select(struct workspace *ws, char *const *filters, size_t n, bool *picked)
{
	size_t np = ws->nprojects;
	struct selector *s = xcalloc(n ? n : 1, sizeof(*s));
	bool any_positive = false;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (parse(filters[i], &s[i]) != 0)
			rc = -1;
		any_positive |= !s[i].exclude;
	}
	bool *plus = xcalloc(np, sizeof(bool)), *minus = xcalloc(np, sizeof(bool));
	for (size_t i = 0; i < n && rc == 0; i++)
		if (apply(ws, &s[i], s[i].exclude ? minus : plus) != 0)
			rc = -1;
	for (size_t i = 0; i < np; i++)
		picked[i] = (any_positive ? plus[i] : true) && !minus[i];
	for (size_t i = 0; i < n; i++) {
		free(s[i].name);
		free(s[i].dir);
		free(s[i].from);
		free(s[i].to);
	}
	free(s);
	free(plus);
	free(minus);
	return rc;
}
