#include "workspace.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gcache.h"
#include "fileio.h"
#include "glob.h"
#include "par.h"
#include "jsonc.h"
#include "jsonl.h"
#include "path.h"
#include "walk.h"

/* Parse text (read from shown, or NULL with err) as JSON; NULL when absent.
 * Malformed JSON and unreadable files are config errors. */
static cJSON *parse_json(struct workspace *ws, const char *text, int err, const char *shown)
{
	if (!text) {
		if (err != ENOENT && err != ENOTDIR)
			diag_config(ws, shown, "(file)", "make it readable", "unable to read: %s",
				strerror(err));
		return NULL;
	}
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
	if (!j) {
		size_t off = end ? (size_t)(end - text) : 0;
		diag_config(ws, shown, "(file)", "correct the JSON syntax",
			"invalid JSON at line %zu", jsonl_line_of(text, off));
	} else if (!cJSON_IsObject(j)) {
		diag_config(ws, shown, "(file)", "make the file one JSON object", "not a JSON object");
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

static cJSON *read_json(struct workspace *ws, int dirfd, const char *name, const char *shown)
{
	char *text = gcache_read(dirfd, name);
	cJSON *j = parse_json(ws, text, text ? 0 : errno, shown);
	free(text);
	return j;
}

struct reader {
	struct workspace *ws;
	int rootfd;
	size_t next;
	pthread_mutex_t lock;
};

/* Read every project's package.json and vx.json. Syscalls on paths dominate
 * vx-graph's time, so the reads are spread over a few threads; parsing stays
 * on the main thread, in project order, so errors come out deterministic. */
static void *read_files(void *arg)
{
	struct reader *rd = arg;
	char path[4096];
	for (;;) {
		pthread_mutex_lock(&rd->lock);
		size_t i = rd->next++;
		pthread_mutex_unlock(&rd->lock);
		if (i >= rd->ws->nprojects)
			return NULL;
		struct project *p = rd->ws->projects[i];
		const char *pre = strcmp(p->dir, ".") ? p->dir : "";
		const char *sep = *pre ? "/" : "";
		snprintf(path, sizeof(path), "%s%spackage.json", pre, sep);
		p->pkg_text = gcache_read(rd->rootfd, path);
		p->pkg_errno = p->pkg_text ? 0 : errno;
		snprintf(path, sizeof(path), "%s%svx.json", pre, sep);
		p->vx_text = gcache_read(rd->rootfd, path);
		p->vx_errno = p->vx_text ? 0 : errno;
	}
}

static void read_all(struct workspace *ws, int rootfd)
{
	struct reader rd = {.ws = ws, .rootfd = rootfd, .lock = PTHREAD_MUTEX_INITIALIZER};
	par_run(read_files, &rd, ws->nprojects / 64 + 1);
}

struct patterns {
	char **pos, **neg;
	size_t npos, nneg;
	size_t maxdepth; /* segments; SIZE_MAX with "**" */
};

static size_t segments(const char *p)
{
	size_t n = 1;
	for (; *p; p++)
		if (*p == '/')
			n++;
	return n;
}

static void add_pattern(struct patterns *ps, const char *raw)
{
	bool neg = raw[0] == '!';
	const char *p = neg ? raw + 1 : raw;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	char *norm = xstrdup(p);
	size_t n = strlen(norm);
	while (n > 1 && norm[n - 1] == '/')
		norm[--n] = '\0';
	if (neg) {
		ps->neg = xrealloc(ps->neg, (ps->nneg + 1) * sizeof(char *));
		ps->neg[ps->nneg++] = norm;
		return;
	}
	ps->pos = xrealloc(ps->pos, (ps->npos + 1) * sizeof(char *));
	ps->pos[ps->npos++] = norm;
	size_t d = strstr(norm, "**") ? (size_t)-1 : segments(norm);
	if (d > ps->maxdepth)
		ps->maxdepth = d;
}

static void add_pattern_array(struct workspace *ws, struct patterns *ps, const cJSON *arr,
	const char *file, const char *key)
{
	if (!cJSON_IsArray(arr)) {
		diag_config(ws, file, key, "make it an array of globs, like [\"packages/*\"]",
			"expected an array of strings");
		return;
	}
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e) || !*e->valuestring) {
			char *k = xasprintf("%s[%d]", key, i);
			diag_config(ws, file, k, "write a glob string like \"packages/*\"",
				"expected a non-empty string");
			free(k);
		} else if (e->valuestring[0] == '/' || strstr(e->valuestring, "..")) {
			char *k = xasprintf("%s[%d]", key, i);
			diag_config(ws, file, k, "use a glob relative to the workspace root",
				"'%s' leaves the workspace root", e->valuestring);
			free(k);
		} else {
			add_pattern(ps, e->valuestring);
		}
		i++;
	}
}

/* pnpm-workspace.yaml: only the "packages:" list matters, block or flow style. */
static void read_pnpm(struct workspace *ws, struct patterns *ps, int rootfd)
{
	char *text = gcache_read(rootfd, "pnpm-workspace.yaml");
	if (!text)
		return;
	bool in = false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *hash = strstr(line, " #");
		if (line[0] == '#')
			continue;
		if (hash)
			*hash = '\0';
		size_t n = strlen(line);
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\r' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (!n)
			continue;
		if (line[0] != ' ' && line[0] != '-' && line[0] != '\t') {
			in = strncmp(line, "packages:", 9) == 0;
			if (!in)
				continue;
			char *rest = line + 9;
			while (*rest == ' ')
				rest++;
			if (*rest == '[') {
				/* flow style: packages: ['a', "b", c] */
				in = false;
				char *close = strchr(rest, ']');
				if (!close) {
					diag_config(ws, "pnpm-workspace.yaml", "packages",
						"close the list with ']' on the same line", "unclosed flow list");
					continue;
				}
				*close = '\0';
				for (char *item = strtok_r(rest + 1, ",", &rest); item;
					item = strtok_r(NULL, ",", &rest)) {
					while (*item == ' ')
						item++;
					size_t k = strlen(item);
					while (k && item[k - 1] == ' ')
						item[--k] = '\0';
					if (k >= 2 && (item[0] == '\'' || item[0] == '"') && item[k - 1] == item[0]) {
						item[k - 1] = '\0';
						item++;
					}
					if (*item)
						add_pattern(ps, item);
				}
				break; /* strtok state was reused: the list is the last thing read */
			}
			continue;
		}
		if (!in)
			continue;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '-')
			continue;
		p++;
		while (*p == ' ')
			p++;
		size_t k = strlen(p);
		if (k >= 2 && (p[0] == '\'' || p[0] == '"') && p[k - 1] == p[0]) {
			p[k - 1] = '\0';
			p++;
		}
		if (*p)
			add_pattern(ps, p);
	}
	free(text);
}

static bool matches(const struct patterns *ps, const char *rel)
{
	bool hit = false;
	for (size_t i = 0; i < ps->npos && !hit; i++)
		hit = glob_match(ps->pos[i], rel);
	for (size_t i = 0; i < ps->nneg && hit; i++)
		if (glob_match(ps->neg[i], rel))
			hit = false;
	return hit;
}

static bool may_match_under(const struct patterns *ps, const char *rel)
{
	for (size_t i = 0; i < ps->npos; i++)
		if (glob_may_match_under(ps->pos[i], rel))
			return true;
	return false;
}

static struct project *add_project(struct workspace *ws, const char *rel)
{
	struct project *p = xcalloc(1, sizeof(*p));
	p->dir = xstrdup(rel);
	p->abs = strcmp(rel, ".") == 0 ? xstrdup(ws->root) : path_join(ws->root, rel);
	ws->projects = xrealloc(ws->projects, (ws->nprojects + 1) * sizeof(*ws->projects));
	ws->projects[ws->nprojects++] = p;
	return p;
}

static void walk(struct workspace *ws, const struct patterns *ps, int dirfd, const char *rel,
	size_t depth)
{
	struct stat dst;
	if (fstat(dirfd, &dst) != 0) {
		close(dirfd);
		return;
	}
	gcache_note_dir(rel, &dst);
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (walk_walled(n))
			continue;
		unsigned char type = de->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if (type != DT_DIR)
			continue;
		char *child = strcmp(rel, ".") == 0 ? xstrdup(n) : xasprintf("%s/%s", rel, n);
		if (!may_match_under(ps, child)) {
			free(child);
			continue;
		}
		bool deeper = depth + 1 < ps->maxdepth;
		if (matches(ps, child))
			add_project(ws, child); /* a candidate until its files are read */
		if (deeper) {
			int fd = openat(dirfd, n, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0)
				walk(ws, ps, fd, child, depth + 1);
		}
		free(child);
	}
	closedir(d);
}

static int cmp_project_dir(const void *a, const void *b)
{
	const struct project *x = *(struct project *const *)a, *y = *(struct project *const *)b;
	return strcmp(x->dir, y->dir);
}

static const char *const dep_fields[] = {
	"dependencies", "devDependencies", "optionalDependencies", "peerDependencies",
};

static void read_manifest(struct workspace *ws, struct project *p, cJSON *pkg, const char *file)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(pkg, "name");
	if (name && (!cJSON_IsString(name) || !*name->valuestring))
		diag_config(ws, file, "name", "make it a non-empty string", "expected a string");
	else if (name && strchr(name->valuestring, '#'))
		diag_config(ws, file, "name", "drop the '#' from the package name",
			"'%s' holds '#', which separates project and task in a task id",
			name->valuestring);
	else if (name)
		p->name = xstrdup(name->valuestring);
	for (size_t f = 0; f < sizeof(dep_fields) / sizeof(*dep_fields); f++) {
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(pkg, dep_fields[f]);
		const cJSON *e;
		if (!deps)
			continue;
		if (!cJSON_IsObject(deps)) {
			diag_config(ws, file, dep_fields[f], "make it an object of name: version",
				"expected an object");
			continue;
		}
		cJSON_ArrayForEach(e, deps) {
			p->dep_names = xrealloc(p->dep_names, (p->ndep_names + 1) * sizeof(char *));
			p->dep_names[p->ndep_names++] = xstrdup(e->string);
		}
	}
}

void workspace_load(struct workspace *ws)
{
	struct patterns ps = {0};
	int rootfd = open(ws->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		err_die_errno(VX_EXIT_USAGE, "unable to open '%s'", ws->root);

	cJSON *rootpkg = read_json(ws, rootfd, "package.json", "package.json");
	if (rootpkg) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(rootpkg, "workspaces");
		if (cJSON_IsObject(w))
			add_pattern_array(ws, &ps, cJSON_GetObjectItemCaseSensitive(w, "packages"),
				"package.json", "workspaces.packages");
		else if (w)
			add_pattern_array(ws, &ps, w, "package.json", "workspaces");
	}
	read_pnpm(ws, &ps, rootfd);
	/* vx.json may hold comments (jsonc.h); config_load says where one is unclosed */
	char *vxtext = gcache_read(rootfd, "vx.json");
	int vxerr = vxtext ? 0 : errno;
	size_t bad;
	cJSON *rootvx = vxtext && !jsonc_strip(vxtext, &bad) ? NULL
		: parse_json(ws, vxtext, vxerr, "vx.json");
	free(vxtext);
	if (rootvx) {
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(rootvx, "projects");
		if (pr)
			add_pattern_array(ws, &ps, pr, "vx.json", "projects");
	}
	cJSON_Delete(rootvx);

	struct project *root = add_project(ws, ".");
	if (ps.npos)
		walk(ws, &ps, dup(rootfd), ".", 0);
	qsort(ws->projects, ws->nprojects, sizeof(*ws->projects), cmp_project_dir);
	read_all(ws, rootfd);

	/* a matched directory is a project when it has a package.json or a vx.json */
	size_t kept = 0;
	for (size_t i = 0; i < ws->nprojects; i++) {
		struct project *p = ws->projects[i];
		if (p != root && !p->pkg_text && !p->vx_text && p->pkg_errno == ENOENT &&
			p->vx_errno == ENOENT) {
			free(p->dir);
			free(p->abs);
			free(p);
			continue;
		}
		ws->projects[kept++] = p;
	}
	ws->nprojects = kept;

	for (size_t i = 0; i < ws->nprojects; i++) {
		struct project *p = ws->projects[i];
		p->index = i;
		char *file = p == root ? xstrdup("package.json") : xasprintf("%s/package.json", p->dir);
		cJSON *pkg = p == root ? rootpkg : parse_json(ws, p->pkg_text, p->pkg_errno, file);
		if (pkg)
			read_manifest(ws, p, pkg, file);
		if (pkg != rootpkg)
			cJSON_Delete(pkg);
		free(file);
		free(p->pkg_text);
		p->pkg_text = NULL;
		if (!p->name)
			p->name = xstrdup(p->dir);
		struct project *prev = strmap_put(&ws->by_name, p->name, p);
		if (prev)
			diag_config(ws, strcmp(p->dir, ".") ? p->dir : ".", "name",
				"give each project a distinct package.json name",
				"'%s' is also the name of the project in '%s'", p->name, prev->dir);
	}
	cJSON_Delete(rootpkg);

	for (size_t i = 0; i < ws->nprojects; i++) {
		struct project *p = ws->projects[i];
		p->deps = xcalloc(p->ndep_names, sizeof(*p->deps));
		for (size_t k = 0; k < p->ndep_names; k++) {
			struct project *d = strmap_get(&ws->by_name, p->dep_names[k]);
			bool dup = false;
			for (size_t m = 0; d && m < p->ndeps; m++)
				dup |= p->deps[m] == d;
			if (d && d != p && !dup)
				p->deps[p->ndeps++] = d;
		}
	}
	for (size_t i = 0; i < ps.npos; i++)
		free(ps.pos[i]);
	for (size_t i = 0; i < ps.nneg; i++)
		free(ps.neg[i]);
	free(ps.pos);
	free(ps.neg);
	close(rootfd);
}
