/* report.c: R-34 over the saved access records (see report.h). */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "fixes.h"
#include "glob.h"
#include "jsonl.h"
#include "lookup.h"
#include "netpat.h"
#include "path.h"
#include "sberrno.h"
#include "taskreq.h"
#include "wsroot.h"


static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int bad(const char *file, size_t line, const char *what, const char *fix)
{
	if (line)
		err_warn("%s:%zu: %s; fix: %s", file, line, what, fix);
	else
		err_warn("%s: %s; fix: %s", file, what, fix);
	return -1;
}

static FILE *open_in(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f)
		err_warn_errno("unable to open '%s'", file);
	return f;
}

/* The request's two records, read from file at line (the graph record's):
 * 0 and kept, or -1 after one line. The records are the caller's to free. */
static int take_request(struct report *r, cJSON *graph, cJSON **task, const char *file,
	size_t line)
{
	const char *id;
	if (taskreq_check(graph, *task, file, line))
		return -1;
	r->root = path_canonical(str(graph, "root"));
	if (!r->root)
		r->root = xstrdup(str(graph, "root"));
	r->id = xstrdup((id = str(*task, "id")) ? id : "(unnamed task)");
	if (!r->project)
		r->project = path_join(r->root, str(*task, "dir"));
	r->projects = cJSON_DetachItemFromObjectCaseSensitive(graph, "projects");
	r->task = *task;
	*task = NULL;
	return 0;
}

int report_read_request(struct report *r, const char *file)
{
	cJSON *graph, *task;
	int rc = taskreq_read_file(file, &graph, &task);
	if (!rc)
		rc = take_request(r, graph, &task, file, 1);
	cJSON_Delete(graph);
	cJSON_Delete(task);
	return rc;
}

/* One deny record of vx-proxy's, kept (rec is then the report's): 0, or
 * -1 after one line (rec freed). */
static int take_deny(struct report *r, cJSON *rec, const char *file, size_t line)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(rec, "port");
	if (!str(rec, "host") || !cJSON_IsNumber(port) || !(port->valuedouble >= 0 &&
		port->valuedouble <= 65535)) {
		cJSON_Delete(rec);
		return bad(file, line, "a deny record needs a host and a port (0 to 65535)",
			"pass the records vx-proxy wrote");
	}
	if (!r->denies)
		r->denies = cJSON_CreateArray();
	cJSON_AddItemToArray(r->denies, rec);
	return 0;
}

int report_read_trace(struct report *r, const char *file)
{
	FILE *f = open_in(file);
	if (!f)
		return -1;
	int rc = report_read_stream(r, f, file);
	if (f != stdin)
		fclose(f);
	return rc;
}

int report_read_stream(struct report *r, FILE *f, const char *file)
{
	struct jsonl_reader rd;
	cJSON *rec, *graph = NULL;
	int got;
	jsonl_reader_init(&rd, f, file);
	r->accesses = cJSON_CreateArray();
	r->placeholders = cJSON_CreateArray();
	while ((got = jsonl_read(&rd, &rec)) == 1) {
		const char *kind = str(rec, "trace"), *type = str(rec, "type");
		if (!kind && type && (!strcmp(type, "graph") || !strcmp(type, "task"))) {
			/* vx-sandbox --request - --trace - starts with the request;
			 * one read from --request already wins */
			if (r->task) {
				cJSON_Delete(rec);
			} else if (!strcmp(type, "graph")) {
				cJSON_Delete(graph);
				graph = rec;
			} else if (graph) {
				got = take_request(r, graph, &rec, file, rd.line - 1);
				cJSON_Delete(rec);
				if (got < 0)
					break;
			} else {
				cJSON_Delete(rec);
				got = bad(file, rd.line, "a task record before any graph record",
					"the request is a graph record, then the task's record");
				break;
			}
			continue;
		}
		if (!kind && type && !strcmp(type, "deny")) {
			/* vx-sandbox's: the task's denies, taken from vx-proxy */
			if ((got = take_deny(r, rec, file, rd.line)) < 0)
				break;
			continue;
		}
		if (!kind && type && !strcmp(type, "done")) {
			/* their end: false when vx-proxy did not confirm them */
			r->net_lost |= !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "confirmed"));
			cJSON_Delete(rec);
			continue;
		}
		if (!kind) {
			bool net = str(rec, "access") && !strcmp(str(rec, "access"), "net");
			if (!str(rec, "op") || !str(rec, "access") || (net ? !str(rec, "addr") ||
				!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "port"))
				: !str(rec, "resolved"))) {
				bad(file, rd.line, "an access record needs op, access and resolved "
					"(a net one addr and port)",
					"pass the file vx-sandbox --trace wrote");
				cJSON_Delete(rec);
				got = -1;
				break;
			}
			cJSON_AddItemToArray(r->accesses, rec);
			continue;
		}
		if (!strcmp(kind, "start")) {
			const char *p = str(rec, "project");
			r->started = true;
			if (p) {
				free(r->project);
				r->project = xstrdup(p);
			}
			cJSON_Delete(r->withheld);
			r->withheld = cJSON_DetachItemFromObjectCaseSensitive(rec, "withheld");
		} else if (!strcmp(kind, "end") || !strcmp(kind, "off")) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "events");
			r->state = !strcmp(kind, "end") ? "end" : "off";
			if (!strcmp(kind, "off") && str(rec, "reason")) {
				free(r->off_reason);
				r->off_reason = xstrdup(str(rec, "reason"));
			}
			r->declared = cJSON_IsNumber(n) ? n->valuedouble : -1;
		} else if (!strcmp(kind, "placeholder")) {
			cJSON_AddItemToArray(r->placeholders, rec);
			continue;
		} else if (!strcmp(kind, "exit")) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "status");
			r->has_exit = cJSON_IsNumber(n);
			r->exit_status = r->has_exit ? n->valueint : 0;
		} else if (!strcmp(kind, "dns") || !strcmp(kind, "proxied")) {
			lookup_add(&r->lookups, rec);
		}
		cJSON_Delete(rec);
	}
	cJSON_Delete(graph);
	jsonl_reader_free(&rd);
	return got < 0 ? -1 : 0;
}

int report_read_network(struct report *r, const char *file)
{
	struct jsonl_reader rd;
	cJSON *rec;
	FILE *f = open_in(file);
	int got;
	if (!f)
		return -1;
	jsonl_reader_init(&rd, f, strcmp(file, "-") ? file : "<stdin>");
	if (!r->denies)
		r->denies = cJSON_CreateArray();
	while ((got = jsonl_read(&rd, &rec)) == 1) {
		const char *type = str(rec, "type"), *task = str(rec, "task");
		if (!type || strcmp(type, "deny") || !task || strcmp(task, r->id)) {
			cJSON_Delete(rec); /* listening, done, another task's */
			continue;
		}
		if ((got = take_deny(r, rec, rd.name, rd.line)) < 0)
			break;
	}
	jsonl_reader_free(&rd);
	if (f != stdin)
		fclose(f);
	return got < 0 ? -1 : 0;
}

/* The verdict record, last of a task's: who is "id" (the task's) or
 * "request" (its request's path, when nothing could be read). violated:
 * the boundary's judgement (a violation, or a trace that did not end);
 * fail: that or the task's own exit status (exit_code; -1 unknown), so a
 * pipe that ends in vx-report fails with the task (issue 37). */
static void put_verdict(const char *who_key, const char *who, bool violated, int exit_code,
	size_t nviol, size_t nhint, const char *trace, const char *reason, size_t events)
{
	cJSON *verdict = cJSON_CreateObject();
	cJSON_AddStringToObject(verdict, "type", "verdict");
	cJSON_AddNumberToObject(verdict, "v", 1);
	cJSON_AddStringToObject(verdict, who_key, who);
	cJSON_AddBoolToObject(verdict, "fail", violated || exit_code != 0);
	cJSON_AddBoolToObject(verdict, "violated", violated);
	if (exit_code >= 0)
		cJSON_AddNumberToObject(verdict, "exit", exit_code);
	cJSON_AddNumberToObject(verdict, "violations", (double)nviol);
	cJSON_AddNumberToObject(verdict, "hints", (double)nhint);
	cJSON_AddStringToObject(verdict, "trace", trace);
	if (reason)
		cJSON_AddStringToObject(verdict, "reason", reason);
	cJSON_AddNumberToObject(verdict, "events", (double)events);
	jsonl_write(verdict);
	cJSON_Delete(verdict);
}

void report_unreadable(const char *request)
{
	put_verdict("request", request, true, -1, 0, 0, "unreadable", NULL, 0);
}

void report_unjudged(const char *id)
{
	put_verdict("id", id, true, -1, 0, 0, "unreadable", NULL, 0);
}

void report_free(struct report *r)
{
	free(r->id);
	free(r->root);
	free(r->project);
	free(r->off_reason);
	cJSON_Delete(r->task);
	cJSON_Delete(r->projects);
	cJSON_Delete(r->accesses);
	cJSON_Delete(r->withheld);
	cJSON_Delete(r->placeholders);
	cJSON_Delete(r->lookups);
	cJSON_Delete(r->denies);
	memset(r, 0, sizeof(*r));
}

/* ---- judging ---- */

/* The raw bytes of a path member: its _hex twin when it has one. */
static char *raw_path(const cJSON *rec, const char *key, bool *bin)
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
static char *show(const char *s, bool bin)
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
static bool ignored(const struct report *r, const char *access, const char *res)
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
static const cJSON *withheld_for(const struct report *r, const char *res)
{
	const cJSON *w;
	cJSON_ArrayForEach(w, r->withheld) {
		const char *d = str(w, "dir");
		if (d && path_is_within(d, res))
			return w;
	}
	return NULL;
}

static void put(const char *type, const cJSON *from, const char *line)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", type);
	if (from) {
		static const char *const keep[] = {"op", "access", "path", "path_hex", "resolved",
			"resolved_hex", "errno", "widened", "grant"};
		for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, keep[i]);
			if (v)
				cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
		}
	}
	cJSON_AddStringToObject(o, "line", line);
	jsonl_write(o);
	cJSON_Delete(o);
}

/* A deny of vx-proxy as a violation record: its members beside the line. */
static void put_net(const cJSON *deny, const char *line)
{
	static const char *const keep[] = {"host", "port", "reason", "via"};
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "violation");
	cJSON_AddStringToObject(o, "access", "network-outbound");
	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(deny, keep[i]);
		if (v)
			cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
	}
	cJSON_AddStringToObject(o, "line", line);
	jsonl_write(o);
	cJSON_Delete(o);
}

/* Does an ignore.network entry (host, host:port, *:port) silence it? */
static bool net_ignored(const struct report *r, const char *host, unsigned port)
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
static char *spell(const struct report *r, const char *p)
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

static bool seen_before(cJSON *set, const char *s)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, set)
		if (!strcmp(e->valuestring, s))
			return true;
	cJSON_AddItemToArray(set, cJSON_CreateString(s));
	return false;
}

/* The project a withheld directory is (for the hint's package name). */
static const char *package_of(const struct report *r, const char *dir)
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

static bool sandbox_errno(const char *en, bool write, const char *res)
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
static bool forks_output(const char *op, const char *res)
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
static bool grantable(const struct report *r, const char *dir)
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

/* The hidden-read hint (R-34, issue 18 item 2): the grant spelled from the
 * project, and on a cached task the workspaceFiles entry that keys it. */
static char *read_hint(const struct report *r, const cJSON *a, const char *res, bool bin,
	bool keyed, struct fixes *fx)
{
	struct stat st;
	char *sp = spell(r, res), *shown = show(sp, bin), *line, *rel, *key;
	bool dir = stat(res, &st) == 0 && S_ISDIR(st.st_mode);
	rel = path_under(r->root, res);
	key = show(rel, bin);
	/* a root file every key folds already needs the grant alone */
	bool folded = keyed && wsroot_is_fingerprint(rel);
	if (!bin) {
		fixes_read(fx, sp);
		if (keyed && !folded) {
			char *entry = xasprintf("%s%s", rel, dir ? "/**" : "");
			fixes_key(fx, entry);
			free(entry);
		}
	}
	if (keyed && !folded)
		line = xasprintf("vx: %s read '%s', which the sandbox wall hides, so its output may "
			"depend on what it did not see (%s: %s); fix: allow.read: ['%s'] and "
			"cache.inputs.workspaceFiles: ['%s%s']", r->id, shown, str(a, "op"),
			str(a, "errno"), shown, key, dir ? "/**" : "");
	else
		line = xasprintf("vx: %s read '%s', which the sandbox wall hides (%s: %s); fix: "
			"allow.read: ['%s']%s", r->id, shown, str(a, "op"), str(a, "errno"), shown,
			folded ? " (every key folds it already)" : "");
	free(rel);
	free(key);
	free(sp);
	free(shown);
	return line;
}

/* The line for a refused unix connect (by the socket's path) or a dial out
 * of the sandbox (by address and port), or NULL when one was said for the
 * same socket or address already (in the set said). */
static char *socket_hint(const struct report *r, const cJSON *a, cJSON *said)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(a, "port");
	const char *addr = str(a, "addr"), *en = str(a, "errno");
	char *line = NULL, *key, *shown, *res;
	bool bin;
	if (!strcmp(str(a, "access"), "unix")) {
		res = raw_path(a, "resolved", &bin);
		key = xasprintf("unix %s", res);
		shown = show(res, bin);
		if (!seen_before(said, key))
			line = xasprintf("vx: %s: the sandbox refused a connection to the unix socket "
				"'%s' (connect: %s), one the task did not make (a host socket such as "
				"docker's or a D-Bus bus; glibc's user lookups try nscd this way and go "
				"on); a socket the task binds itself, and socketpair, need no grant "
				"(R-32); fix: if the task needs that socket, allow.unixSockets: true",
				r->id, shown, en);
		free(res);
		free(shown);
		free(key);
		return line;
	}
	if (!addr || !cJSON_IsNumber(port))
		return NULL;
	key = xasprintf("net %s %d", addr, port->valueint);
	if (!seen_before(said, key))
		line = xasprintf("vx: %s: the task dialled %s%s%s:%d (%s) directly (connect: %s), "
			"and the sandbox has no route out: a task reaches the network only through "
			"vx-proxy, by the proxy variables (HTTPS_PROXY, HTTP_PROXY) for the hosts "
			"allow.network names; fix: make the tool use the proxy variables",
			r->id, strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "",
			port->valueint, str(a, "proto") ? str(a, "proto") : "tcp", en);
	free(key);
	return line;
}

bool report_judge(struct report *r, int exit_code)
{
	cJSON *hits = cJSON_CreateArray(), *walls = cJSON_CreateArray(), *dirs = cJSON_CreateArray();
	const cJSON *a;
	size_t nviol = 0, nhint = 0, naccess = (size_t)cJSON_GetArraySize(r->accesses);
	const char *state = r->state ? r->state : "incomplete";
	bool failed, incomplete;
	size_t nunix = 0;
	cJSON *sockets = cJSON_CreateArray();
	bool cached = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r->task, "cache"));
	cJSON *keyed = cJSON_CreateArray(), *vset = cJSON_CreateArray();
	struct fixes fx = {0};

	cJSON_ArrayForEach(a, r->accesses) {
		const char *access = str(a, "access"), *op = str(a, "op"), *en = str(a, "errno");
		const cJSON *w;
		bool wid = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "widened")), bin;
		bool write = !strcmp(access, "write");
		char *res = raw_path(a, "resolved", &bin), *rel, *shown, *line;
		struct stat st;
		if (!en && !wid) {
			free(res);
			continue; /* an access that went through: nothing to say */
		}
		if (!strcmp(access, "unix") || !strcmp(access, "net")) {
			/* a datagram socket(AF_UNIX) or a connect to a unix
			 * socket the task did not make, refused; or a dial out of
			 * the sandbox, which has no route out. No violation: glibc
			 * tries nscd's socket on every user lookup and goes on, and
			 * a tool may fall back on its own; named on a failed task
			 * (below) */
			if (!strcmp(op, "socket"))
				nunix++;
			else
				cJSON_AddItemToArray(sockets, cJSON_Duplicate(a, 1));
			free(res);
			continue;
		}
		if (ignored(r, write ? "write" : "read", res)) {
			free(res);
			continue;
		}
		w = withheld_for(r, res);
		if (!wid && (!sandbox_errno(en, write, res) || (!write && lstat(res, &st) != 0))) {
			/* the host gives the same: the sandbox changed nothing (a
			 * PATH probe, an optional config, mkdir -p of a directory
			 * that exists, readlink of a directory) */
			free(res);
			continue;
		}
		if (path_is_within(r->project, res) || w || (wid && write) || (cached && !write && !wid &&
			path_is_within(r->root, res) && forks_output(op, res))) {
			rel = path_relative(r->root, res);
			shown = show(rel, bin);
			if (wid && write)
				/* issue 35 item 5: beside a file grant, whose directory
				 * is bound, any other change is not granted */
				line = xasprintf("deny file-write %s (%s: outside the file grant '%s', "
					"whose directory is bound)", shown, op,
					str(a, "grant") ? str(a, "grant") : "?");
			else if (wid)
				line = xasprintf("deny file-read %s (%s: a file write grant bound its "
					"directory, and this was there before the task)", shown, op);
			else
				line = xasprintf("deny file-%s %s (%s: %s)", write ? "write" : "read",
					shown, op, en);
			/* one line per path refused (tsc stats, then opens; two
			 * processes probe the same file): the first call names it */
			char *once = xasprintf("%d %s", write, shown);
			if (!seen_before(vset, once)) {
				put("violation", a, line);
				nviol++;
				if (write && !wid && path_is_within(r->project, res)) {
					char *in = path_relative(r->project, res), *sin = show(in, bin);
					fixes_inside(&fx, a, in, sin, bin);
					free(in);
					free(sin);
				}
			}
			free(once);
			if (w)
				seen_before(hits, str(w, "dir"));
			else if (!path_is_within(r->project, res) && !write)
				cJSON_AddItemToArray(keyed, cJSON_Duplicate(a, 1));
			free(line);
			free(shown);
			free(rel);
		} else {
			/* the wall: named only on a failed task (below) */
			cJSON_AddItemToArray(walls, cJSON_Duplicate(a, 1));
		}
		free(res);
	}
	incomplete = strcmp(state, "off") && (strcmp(state, "end") || r->declared != (double)naccess);
	failed = exit_code != 0 || nviol > 0 || incomplete;
	/* vx-sandbox refused before the task started (its own line said why):
	 * nothing ran, so there is no trace to call incomplete */
	if (incomplete && !r->started && !naccess && exit_code == VX_EXIT_SANDBOX) {
		state = "none";
	} else if (incomplete) {
		char *line = xasprintf("vx: %s: the access trace is incomplete (%zu records, %s); "
			"its accesses cannot be judged, so the task is not trusted", r->id, naccess,
			strcmp(state, "end") ? "no end record" : "a count that differs");
		put("hint", NULL, line);
		nhint++;
		free(line);
	}
	/* the withheld-link hint, beside its violation */
	cJSON_ArrayForEach(a, r->withheld) {
		const char *dir = str(a, "dir"), *link = str(a, "link");
		const char *pkg;
		const cJSON *h;
		bool hit = false;
		char *rd, *rl, *line;
		cJSON_ArrayForEach(h, hits)
			hit |= !strcmp(h->valuestring, dir);
		if (!hit || !link || seen_before(dirs, dir))
			continue;
		pkg = package_of(r, dir);
		rd = path_relative(r->root, dir);
		rl = path_relative(r->root, link);
		if (!pkg) {
			/* no project: no task there, so no dependsOn edge can key it */
			char *sp = spell(r, dir);
			line = xasprintf("vx: %s read %s through %s, which is no project of the "
				"workspace, so no task's key can answer for it; fix: grant and key the "
				"files yourself (allow.read: ['%s'] plus cache.inputs.workspaceFiles: "
				"['%s/**'])", r->id, rd, rl, sp, rd);
			char *entry = xasprintf("%s/**", rd);
			fixes_read(&fx, sp);
			fixes_key(&fx, entry);
			free(entry);
			free(sp);
		} else {
			line = xasprintf("vx: %s read %s through %s, and its key folds no cached task of "
				"%s, so an edit there would not re-run it; fix: add a dependsOn edge that "
				"reaches one (^build where %s#build keys its sources, or a source task), or "
				"grant and key the files yourself (allow.read plus cache.inputs.workspaceFiles)",
				r->id, rd, rl, pkg, pkg);
		}
		put("hint", NULL, line);
		nhint++;
		free(line);
		free(rd);
		free(rl);
	}
	{
		cJSON *named = cJSON_CreateArray();
		cJSON_ArrayForEach(a, keyed) {
			bool bin;
			char *res = raw_path(a, "resolved", &bin), *line;
			if (!seen_before(named, res)) {
				line = read_hint(r, a, res, bin, true, &fx);
				put("hint", a, line);
				nhint++;
				free(line);
			}
			free(res);
		}
		cJSON_Delete(named);
	}
	nhint += fixes_put_inside(&fx, r->id, r->task);
	if (failed) {
		cJSON *named = cJSON_CreateArray();
		cJSON_ArrayForEach(a, walls) {
			bool bin, write = !strcmp(str(a, "access"), "write");
			char *res = raw_path(a, "resolved", &bin), *line = NULL, *sp, *shown;
			struct stat st;
			if (write) {
				/* the directory to grant: the one the write landed in,
				 * or, when that one cannot be granted, the one a mkdir
				 * makes; never the workspace root or above, nor one vx
				 * would refuse */
				const char *op = str(a, "op");
				char *dir = xstrdup(res), *s = strrchr(dir, '/');
				if (s)
					s[s == dir] = 0;
				if ((!strcmp(op, "mkdir") || !strcmp(op, "mkdirat")) && !grantable(r, dir)) {
					free(dir);
					dir = xstrdup(res);
				}
				char *full = show(res, bin);
				sp = spell(r, dir);
				shown = show(sp, bin);
				if (!seen_before(named, dir)) {
					fixes_wrote(&fx);
					if (grantable(r, dir) && !bin) {
						char *g = xasprintf("%s%s", sp, strcmp(sp, "/") ? "/" : "");
						fixes_write(&fx, g);
						free(g);
					}
					if (grantable(r, dir))
						line = xasprintf("vx: %s wrote past the sandbox wall (%s %s: "
							"%s); fix: allow.write: ['%s%s']", r->id, op, full,
							str(a, "errno"), shown, strcmp(shown, "/") ? "/" : "");
					else
						line = xasprintf("vx: %s wrote past the sandbox wall (%s %s: "
							"%s); no grant can open it (it holds the project, or "
							".git, or is the workspace root); fix: write inside the "
							"project's own grants", r->id, op, full, str(a, "errno"));
				}
				free(full);
				free(dir);
			} else if (path_is_within(r->root, res) && lstat(res, &st) == 0 &&
				grantable(r, res)) {
				sp = NULL;
				shown = NULL;
				if (!seen_before(named, res))
					line = read_hint(r, a, res, bin, false, &fx);
			} else {
				free(res);
				continue;
			}
			if (line) {
				put("hint", a, line);
				nhint++;
			}
			free(line);
			free(shown);
			free(sp);
			free(res);
		}
		if (nunix) {
			char *line = xasprintf("vx: %s: the sandbox refused %zu datagram "
				"socket(AF_UNIX) call%s (socket: EPERM), since such a socket can send "
				"to one the task did not make (a host socket such as /dev/log); stream "
				"sockets and socketpair need no grant (R-32); fix: if the task needs "
				"it, allow.unixSockets: true", r->id, nunix, nunix == 1 ? "" : "s");
			put("hint", NULL, line);
			nhint++;
			free(line);
		}
		cJSON_ArrayForEach(a, sockets) {
			char *line = socket_hint(r, a, named);
			if (line) {
				put("hint", a, line);
				nhint++;
			}
			free(line);
		}
		char *dns = lookup_hint(r->id, r->lookups, r->task);
		if (dns) {
			put("hint", NULL, dns);
			nhint++;
			free(dns);
		}
		cJSON_ArrayForEach(a, r->placeholders) {
			const char *g = str(a, "grant");
			char *line;
			if (!g)
				continue;
			line = xasprintf("vx: %s: write grant '%s' was made an empty file the task "
				"never wrote, now removed; fix: if it names a directory, spell it '%s/'",
				r->id, g, g);
			put("hint", NULL, line);
			nhint++;
			free(line);
		}
		cJSON_Delete(named);
	}
	/* the proxy's refusals last, in its order: each is a violation,
	 * but none adds the hints of a failed task, which are about files */
	cJSON_ArrayForEach(a, r->denies) {
		const char *host = str(a, "host"), *why = str(a, "reason");
		unsigned port = (unsigned)cJSON_GetObjectItemCaseSensitive(a, "port")->valuedouble;
		char *line;
		if (net_ignored(r, host, port))
			continue;
		line = xasprintf("deny network-outbound %s:%u (%s)", host, port, why ? why : "refused");
		put_net(a, line);
		nviol++;
		free(line);
	}
	if (r->net_lost) {
		char *line = xasprintf("vx: %s: vx-proxy did not confirm the task's last network "
			"decisions; its network cannot be judged, so the task is not trusted", r->id);
		put("hint", NULL, line);
		nhint++;
		free(line);
		incomplete = true;
	}
	/* last: the whole grant in one block, and the learner */
	nhint += fixes_put_end(&fx, r->id, r->task, exit_code, exit_code != 0 || nviol > 0 ||
		incomplete);
	fixes_free(&fx);
	put_verdict("id", r->id, nviol > 0 || incomplete, exit_code, nviol, nhint,
		incomplete && strcmp(state, "none") ? "incomplete" : state,
		!strcmp(state, "off") ? r->off_reason : NULL, naccess);
	cJSON_Delete(hits);
	cJSON_Delete(sockets);
	cJSON_Delete(keyed);
	cJSON_Delete(vset);
	cJSON_Delete(walls);
	cJSON_Delete(dirs);
	return nviol > 0 || incomplete || exit_code != 0;
}
