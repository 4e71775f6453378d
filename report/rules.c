/* rules.c: report_judge as a table of rules (report.h, R-34).
 *
 * An access record goes down access_rules until one claims it: one that
 * went through, a socket refused, an ignore glob, an errno the host gives
 * too, a violation (its line written here, in the trace's order), or the
 * wall (kept for a failed task's hints). Then each row of rules writes its
 * lines in the table's order, the rows marked FAILED only on a failed task
 * (its exit status, a violation or an incomplete trace; the proxy's denies
 * come after that is settled and do not add the file hints), and last the
 * verdict. A new report line is one function and one row.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "facts.h"
#include "fixes.h"
#include "grantkind.h"
#include "jsonl.h"
#include "lookup.h"
#include "path.h"
#include "wsroot.h"

struct judge {
	struct report *r;
	int exit_code;
	const char *state;  /* "end", "off", "none" (refused before the task) or "incomplete" */
	size_t naccess, nviol, nhint;
	size_t nunix;       /* datagram socket(AF_UNIX) calls refused */
	bool cached, incomplete, failed;
	cJSON *hits;        /* withheld directories a violation reached */
	cJSON *walls;       /* accesses stopped at the wall, for a failed task's hints */
	cJSON *sockets;     /* connects refused, for a failed task's hints */
	cJSON *keyed;       /* hidden workspace reads a cached task's key must answer */
	cJSON *vset;        /* the violations said, one per path and access */
	cJSON *dirs;        /* the withheld directories hinted */
	cJSON *named;       /* what a failed task's hints named */
	struct fixes fx;
};

/* One access record as the access rules see it. */
struct access {
	const cJSON *rec;
	const char *access, *op, *en;
	bool widened, write, bin;
	char *res;          /* the resolved path's raw bytes */
};

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
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

/* The grant a refused unix socket's fix names, spelled as its row. */
static const struct grantkind *unix_grant(void)
{
	return grantkind_find("allow", "unixSockets");
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

/* A hint record (from: the access it is about, or NULL); takes line. */
static void hint(struct judge *j, const cJSON *from, char *line)
{
	if (!line)
		return;
	put("hint", from, line);
	j->nhint++;
	free(line);
}

/* The hidden-read hint (R-34, issue 18 item 2): the grant spelled from the
 * project, and on a cached task the workspaceFiles entry that keys it. */
static char *read_hint(const struct report *r, const cJSON *a, const char *res, bool bin,
	bool keyed, struct fixes *fx)
{
	struct stat st;
	char *sp = facts_spell(r, res), *shown = facts_show(sp, bin), *line, *rel, *key;
	bool dir = stat(res, &st) == 0 && S_ISDIR(st.st_mode);
	rel = path_under(r->root, res);
	key = facts_show(rel, bin);
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
		res = facts_raw_path(a, "resolved", &bin);
		key = xasprintf("unix %s", res);
		shown = facts_show(res, bin);
		if (!seen_before(said, key))
			line = xasprintf("vx: %s: the sandbox refused a connection to the unix socket "
				"'%s' (connect: %s), one the task did not make (a host socket such as "
				"docker's or a D-Bus bus; glibc's user lookups try nscd this way and go "
				"on); a socket the task binds itself, and socketpair, need no grant "
				"(R-32); fix: if the task needs that socket, %s: %s",
				r->id, shown, en, unix_grant()->path, unix_grant()->example);
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

/* ---- the access rules: each returns true when it claims the access ---- */

/* an access that went through: nothing to say */
static bool a_passed(struct judge *j, struct access *x)
{
	(void)j;
	return !x->en && !x->widened;
}

/* a datagram socket(AF_UNIX) or a connect to a unix socket the task
 * did not make, refused; or a dial out of the sandbox, which has no route
 * out. No violation: glibc tries nscd's socket on every user lookup and
 * goes on, and a tool may fall back on its own; named on a failed task */
static bool a_socket(struct judge *j, struct access *x)
{
	if (strcmp(x->access, "unix") && strcmp(x->access, "net"))
		return false;
	if (!strcmp(x->op, "socket"))
		j->nunix++;
	else
		cJSON_AddItemToArray(j->sockets, cJSON_Duplicate(x->rec, 1));
	return true;
}

static bool a_ignored(struct judge *j, struct access *x)
{
	return facts_ignored(j->r, x->write ? "write" : "read", x->res);
}

/* the host gives the same: the sandbox changed nothing (a PATH probe, an
 * optional config, mkdir -p of a directory that exists, readlink of a
 * directory) */
static bool a_host_same(struct judge *j, struct access *x)
{
	struct stat st;
	(void)j;
	return !x->widened && (!facts_sandbox_errno(x->en, x->write, x->res) ||
		(!x->write && lstat(x->res, &st) != 0));
}

static char *violation_line(const struct access *x, const char *shown)
{
	const cJSON *a = x->rec;
	if (x->widened && x->write)
		/* issue 35 item 5: beside a file grant, whose directory is bound
		 * any other change is not granted */
		return xasprintf("deny file-write %s (%s: outside the file grant '%s', "
			"whose directory is bound)", shown, x->op,
			str(a, "grant") ? str(a, "grant") : "?");
	if (x->widened)
		return xasprintf("deny file-read %s (%s: a file write grant bound its "
			"directory, and this was there before the task)", shown, x->op);
	return xasprintf("deny file-%s %s (%s: %s)", x->write ? "write" : "read", shown, x->op,
		x->en);
}

/* A denial inside the project, under a withheld package, beside a file
 * grant, or a hidden workspace read that could fork a cached task's output. */
static bool a_violation(struct judge *j, struct access *x)
{
	const struct report *r = j->r;
	const cJSON *w = facts_withheld_for(r, x->res);
	bool inside = path_is_within(r->project, x->res);
	if (!(inside || w || (x->widened && x->write) || (j->cached && !x->write &&
		!x->widened && path_is_within(r->root, x->res) && facts_forks_output(x->op, x->res))))
		return false;
	char *rel = path_relative(r->root, x->res), *shown = facts_show(rel, x->bin);
	char *line = violation_line(x, shown);
	/* one line per path refused (tsc stats, then opens; two processes
	 * probe the same file): the first call names it */
	char *once = xasprintf("%d %s", x->write, shown);
	if (!seen_before(j->vset, once)) {
		put("violation", x->rec, line);
		j->nviol++;
		if (x->write && !x->widened && inside) {
			char *in = path_relative(r->project, x->res), *sin = facts_show(in, x->bin);
			fixes_inside(&j->fx, x->rec, in, sin, x->bin);
			free(in);
			free(sin);
		}
	}
	free(once);
	if (w)
		seen_before(j->hits, str(w, "dir"));
	else if (!inside && !x->write)
		cJSON_AddItemToArray(j->keyed, cJSON_Duplicate(x->rec, 1));
	free(line);
	free(shown);
	free(rel);
	return true;
}

/* the wall: named only on a failed task */
static bool a_wall(struct judge *j, struct access *x)
{
	cJSON_AddItemToArray(j->walls, cJSON_Duplicate(x->rec, 1));
	return true;
}

static bool (*const access_rules[])(struct judge *, struct access *) = {
	a_passed, a_socket, a_ignored, a_host_same, a_violation, a_wall,
};

/* ---- the rules: each writes its records ---- */

static void r_incomplete(struct judge *j)
{
	if (!j->incomplete || !strcmp(j->state, "none"))
		return;
	hint(j, NULL, xasprintf("vx: %s: the access trace is incomplete (%zu records, %s); "
		"its accesses cannot be judged, so the task is not trusted", j->r->id, j->naccess,
		strcmp(j->state, "end") ? "no end record" : "a count that differs"));
}

/* the withheld-link hint, beside its violation */
static void r_withheld(struct judge *j)
{
	const struct report *r = j->r;
	const cJSON *a;
	cJSON_ArrayForEach(a, r->withheld) {
		const char *dir = str(a, "dir"), *link = str(a, "link");
		const char *pkg;
		const cJSON *h;
		bool hit = false;
		char *rd, *rl, *line;
		cJSON_ArrayForEach(h, j->hits)
			hit |= !strcmp(h->valuestring, dir);
		if (!hit || !link || seen_before(j->dirs, dir))
			continue;
		pkg = facts_package_of(r, dir);
		rd = path_relative(r->root, dir);
		rl = path_relative(r->root, link);
		if (!pkg) {
			/* no project: no task there, so no dependsOn edge can key it */
			char *sp = facts_spell(r, dir);
			line = xasprintf("vx: %s read %s through %s, which is no project of the "
				"workspace, so no task's key can answer for it; fix: grant and key the "
				"files yourself (allow.read: ['%s'] plus cache.inputs.workspaceFiles: "
				"['%s/**'])", r->id, rd, rl, sp, rd);
			char *entry = xasprintf("%s/**", rd);
			fixes_read(&j->fx, sp);
			fixes_key(&j->fx, entry);
			free(entry);
			free(sp);
		} else {
			line = xasprintf("vx: %s read %s through %s, and its key folds no cached task of "
				"%s, so an edit there would not re-run it; fix: add a dependsOn edge that "
				"reaches one (^build where %s#build keys its sources, or a source task), or "
				"grant and key the files yourself (allow.read plus cache.inputs.workspaceFiles)",
				r->id, rd, rl, pkg, pkg);
		}
		hint(j, NULL, line);
		free(rd);
		free(rl);
	}
}

/* a cached task's hidden workspace reads: the grant and the key entry */
static void r_keyed(struct judge *j)
{
	cJSON *named = cJSON_CreateArray();
	const cJSON *a;
	cJSON_ArrayForEach(a, j->keyed) {
		bool bin;
		char *res = facts_raw_path(a, "resolved", &bin);
		if (!seen_before(named, res))
			hint(j, a, read_hint(j->r, a, res, bin, true, &j->fx));
		free(res);
	}
	cJSON_Delete(named);
}

/* the writes denied inside the project, one hint per grant (fixes.h) */
static void r_inside(struct judge *j)
{
	j->nhint += fixes_put_inside(&j->fx, j->r->id, j->r->task);
}

/* A write past the wall: the directory to grant, the one the write landed
 * in or, when that one cannot be granted, the one a mkdir makes; never the
 * workspace root or above, nor one vx would refuse. */
static char *wall_write_line(struct judge *j, const cJSON *a, const char *res, bool bin)
{
	const struct report *r = j->r;
	const char *op = str(a, "op");
	char *dir = xstrdup(res), *s = strrchr(dir, '/'), *line = NULL;
	if (s)
		s[s == dir] = 0;
	if ((!strcmp(op, "mkdir") || !strcmp(op, "mkdirat")) && !facts_grantable(r, dir)) {
		free(dir);
		dir = xstrdup(res);
	}
	char *full = facts_show(res, bin), *sp = facts_spell(r, dir), *shown = facts_show(sp, bin);
	if (!seen_before(j->named, dir)) {
		fixes_wrote(&j->fx);
		if (facts_grantable(r, dir) && !bin) {
			char *g = xasprintf("%s%s", sp, strcmp(sp, "/") ? "/" : "");
			fixes_write(&j->fx, g);
			free(g);
		}
		if (facts_grantable(r, dir))
			line = xasprintf("vx: %s wrote past the sandbox wall (%s %s: %s); fix: "
				"allow.write: ['%s%s']", r->id, op, full, str(a, "errno"), shown,
				strcmp(shown, "/") ? "/" : "");
		else
			line = xasprintf("vx: %s wrote past the sandbox wall (%s %s: %s); no grant "
				"can open it (it holds the project, or .git, or is the workspace root); "
				"fix: write inside the project's own grants", r->id, op, full,
				str(a, "errno"));
	}
	free(full);
	free(dir);
	free(shown);
	free(sp);
	return line;
}

/* the wall on a failed task: each write's directory to grant, each hidden
 * read of a workspace path its grant */
static void r_walls(struct judge *j)
{
	const struct report *r = j->r;
	const cJSON *a;
	cJSON_ArrayForEach(a, j->walls) {
		bool bin, write = !strcmp(str(a, "access"), "write");
		char *res = facts_raw_path(a, "resolved", &bin), *line = NULL;
		struct stat st;
		if (write)
			line = wall_write_line(j, a, res, bin);
		else if (path_is_within(r->root, res) && lstat(res, &st) == 0 &&
			facts_grantable(r, res) && !seen_before(j->named, res))
			line = read_hint(r, a, res, bin, false, &j->fx);
		hint(j, a, line);
		free(res);
	}
}

static void r_unix(struct judge *j)
{
	if (!j->nunix)
		return;
	hint(j, NULL, xasprintf("vx: %s: the sandbox refused %zu datagram socket(AF_UNIX) "
		"call%s (socket: EPERM), since such a socket can send to one the task did not "
		"make (a host socket such as /dev/log); stream sockets and socketpair need no "
		"grant (R-32); fix: if the task needs it, %s: %s", j->r->id,
		j->nunix, j->nunix == 1 ? "" : "s", unix_grant()->path, unix_grant()->example));
}

static void r_sockets(struct judge *j)
{
	const cJSON *a;
	cJSON_ArrayForEach(a, j->sockets)
		hint(j, a, socket_hint(j->r, a, j->named));
}

static void r_dns(struct judge *j)
{
	hint(j, NULL, lookup_hint(j->r->id, j->r->lookups, j->r->task));
}

static void r_placeholders(struct judge *j)
{
	const cJSON *a;
	cJSON_ArrayForEach(a, j->r->placeholders) {
		const char *g = str(a, "grant");
		if (g)
			hint(j, NULL, xasprintf("vx: %s: write grant '%s' was made an empty file the "
				"task never wrote, now removed; fix: if it names a directory, spell it "
				"'%s/'", j->r->id, g, g));
	}
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

/* the proxy's refusals, in its order: each a violation */
static void r_network(struct judge *j)
{
	const cJSON *a;
	cJSON_ArrayForEach(a, j->r->denies) {
		const char *host = str(a, "host"), *why = str(a, "reason");
		unsigned port = (unsigned)cJSON_GetObjectItemCaseSensitive(a, "port")->valuedouble;
		if (facts_net_ignored(j->r, host, port))
			continue;
		char *line = xasprintf("deny network-outbound %s:%u (%s)", host, port,
			why ? why : "refused");
		put_net(a, line);
		j->nviol++;
		free(line);
	}
}

/* vx-sandbox's "done" record said vx-proxy did not confirm the task's
 * denies: its network cannot be judged, so the task is not trusted */
static void r_net_lost(struct judge *j)
{
	if (!j->r->net_lost)
		return;
	hint(j, NULL, xasprintf("vx: %s: vx-proxy did not confirm the task's last network "
		"decisions; its network cannot be judged, so the task is not trusted", j->r->id));
	j->incomplete = true;
}

/* last: the whole grant in one block, and the learner */
static void r_fixes(struct judge *j)
{
	j->nhint += fixes_put_end(&j->fx, j->r->id, j->r->task, j->exit_code,
		j->exit_code != 0 || j->nviol > 0 || j->incomplete);
}

#define FAILED 1 /* only on a failed task */

static const struct rule {
	void (*fn)(struct judge *);
	int when;
} rules[] = {
	{r_incomplete, 0},
	{r_withheld, 0},
	{r_keyed, 0},
	{r_inside, 0},
	{r_walls, FAILED},
	{r_unix, FAILED},
	{r_sockets, FAILED},
	{r_dns, FAILED},
	{r_placeholders, FAILED},
	{r_network, 0},
	{r_net_lost, 0},
	{r_fixes, 0},
};

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

static void judge_access(struct judge *j, const cJSON *a)
{
	struct access x = {.rec = a, .access = str(a, "access"), .op = str(a, "op"),
		.en = str(a, "errno")};
	x.widened = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "widened"));
	x.write = !strcmp(x.access, "write");
	x.res = facts_raw_path(a, "resolved", &x.bin);
	for (size_t i = 0; i < sizeof(access_rules) / sizeof(*access_rules); i++)
		if (access_rules[i](j, &x))
			break;
	free(x.res);
}

bool report_judge(struct report *r, int exit_code)
{
	struct judge j = {.r = r, .exit_code = exit_code, .state = r->state ? r->state : "incomplete",
		.naccess = (size_t)cJSON_GetArraySize(r->accesses),
		.cached = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r->task, "cache")),
		.hits = cJSON_CreateArray(), .walls = cJSON_CreateArray(),
		.sockets = cJSON_CreateArray(), .keyed = cJSON_CreateArray(),
		.vset = cJSON_CreateArray(), .dirs = cJSON_CreateArray(),
		.named = cJSON_CreateArray()};
	const cJSON *a;

	cJSON_ArrayForEach(a, r->accesses)
		judge_access(&j, a);
	j.incomplete = strcmp(j.state, "off") && (strcmp(j.state, "end") ||
		r->declared != (double)j.naccess);
	j.failed = exit_code != 0 || j.nviol > 0 || j.incomplete;
	/* vx-sandbox refused before the task started (its own line said why):
	 * nothing ran, so there is no trace to call incomplete */
	if (j.incomplete && !r->started && !j.naccess && exit_code == VX_EXIT_SANDBOX)
		j.state = "none";
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if (!(rules[i].when & FAILED) || j.failed)
			rules[i].fn(&j);
	fixes_free(&j.fx);
	put_verdict("id", r->id, j.nviol > 0 || j.incomplete, exit_code, j.nviol, j.nhint,
		j.incomplete && strcmp(j.state, "none") ? "incomplete" : j.state,
		!strcmp(j.state, "off") ? r->off_reason : NULL, j.naccess);
	cJSON_Delete(j.hits);
	cJSON_Delete(j.walls);
	cJSON_Delete(j.sockets);
	cJSON_Delete(j.keyed);
	cJSON_Delete(j.vset);
	cJSON_Delete(j.dirs);
	cJSON_Delete(j.named);
	return j.nviol > 0 || j.incomplete || exit_code != 0;
}
