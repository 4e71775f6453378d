/* The sandbox planner on a scratch tree: path order, glob expansion and the
 * mount list a request yields (masks, binds, redundancy, refusals). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "path.h"
#include "plan.h"
#include "request.h"
#include "unit.h"

static char base[] = "/tmp/vx-unit-plan.XXXXXX";

static void mk(const char *rel, bool dir)
{
	char *p = path_join(base, rel), *s;
	for (s = strchr(p + strlen(base) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (dir)
		mkdir(p, 0755);
	else
		close(open(p, O_WRONLY | O_CREAT, 0644));
	free(p);
}

/* The op at path under base, or NULL. */
static const struct op *find(const struct plan *p, const char *rel)
{
	char *want = path_join(base, rel);
	const struct op *o = NULL;
	for (size_t i = 0; i < p->nops && !o; i++)
		if (!strcmp(p->ops[i].path, want))
			o = &p->ops[i];
	free(want);
	return o;
}

static struct sb_request *request(void)
{
	char *root = path_join(base, "ws");
	char *proj = path_join(base, "ws/packages/app");
	struct sb_request *r = request_from_flags(root, proj);
	free(root);
	free(proj);
	CHECK(request_resolve(r) == 0);
	return r;
}

int main(void)
{
	struct strlist m = {0};
	struct plan p;
	struct sb_request *r;
	const struct op *o;
	char *pat;

	err_init("test_sandbox_plan");
	CHECK(mkdtemp(base) != NULL);
	setenv("HOME", base, 1);

	/* '/' sorts before every other byte: a directory's ops follow it */
	CHECK(plan_path_cmp("/a/b", "/a-b") < 0);
	CHECK(plan_path_cmp("/a", "/a/b") < 0);
	CHECK(plan_path_cmp("/a", "/a") == 0);

	mk("ws/.git", true);
	mk("ws/secret.txt", false);
	mk("ws/packages/app/src/x/a.js", false);
	mk("ws/packages/app/src/b.ts", false);
	mk("ws/packages/app/[id].tsx", false);
	mk("ws/packages/app/i.tsx", false);
	mk(".npmrc", false);
	mk(".ssh/id", false);

	pat = path_join(base, "ws/packages/app/src/**/*.js");
	plan_expand(pat, &m);
	CHECK(m.n == 1 && strstr(m.v[0], "src/x/a.js"));
	strlist_free(&m);
	free(pat);
	pat = path_join(base, "ws/packages/app/\\[id\\].tsx");
	plan_expand(pat, &m);
	CHECK(m.n == 1 && strstr(m.v[0], "[id].tsx"));
	strlist_free(&m);
	free(pat);
	pat = path_join(base, "ws/packages/app/[id].tsx");
	plan_expand(pat, &m);
	CHECK(m.n == 1 && strstr(m.v[0], "/i.tsx"));
	strlist_free(&m);
	free(pat);

	/* baseline: the root masked, the project a bare mount point, the
	 * credential stores masked, .git left to the root's mask */
	r = request();
	CHECK(plan_build(r, &p) == 0);
	CHECK((o = find(&p, "ws")) && o->kind == OP_MASK);
	CHECK((o = find(&p, "ws/packages/app")) && o->kind == OP_DIR);
	CHECK((o = find(&p, ".npmrc")) && o->kind == OP_MASK_FILE);
	CHECK((o = find(&p, ".ssh")) && o->kind == OP_MASK);
	CHECK(find(&p, "ws/.git") == NULL);
	for (size_t i = 1; i < p.nops; i++)
		CHECK(plan_path_cmp(p.ops[i - 1].path, p.ops[i].path) < 0);
	plan_free(&p);

	/* read '.', write 'dist/': the write punched into the read; a read
	 * inside a read is redundant; a store named by a grant is not masked */
	strlist_push(&r->read, ".");
	strlist_push(&r->read, "src/**");
	strlist_push(&r->read, "~/.npmrc");
	strlist_push(&r->write, "dist/");
	CHECK(plan_build(r, &p) == 0);
	CHECK((o = find(&p, "ws/packages/app")) && o->kind == OP_RO);
	CHECK((o = find(&p, "ws/packages/app/dist")) && o->kind == OP_RW);
	CHECK(o && o->parent >= 0 && p.ops[o->parent].kind == OP_RO);
	CHECK(find(&p, "ws/packages/app/src") == NULL);
	CHECK(!(o = find(&p, ".npmrc")) || o->kind == OP_RO);
	plan_free(&p);

	/* a project-wide write grant holds the absent configs (one
	 * guard each, the missing parent for .git/hooks), dist/ gets
	 * none, and plan_sweep takes the guards back */
	strlist_free(&r->read);
	strlist_free(&r->write);
	strlist_push(&r->write, "./");
	CHECK(plan_build(r, &p) == 0);
	CHECK((o = find(&p, "ws/packages/app/.bashrc")) && o->kind == OP_RO && o->protect);
	CHECK((o = find(&p, "ws/packages/app/.git")) && o->kind == OP_RO && o->isdir);
	CHECK(find(&p, "ws/packages/app/.git/hooks") == NULL);
	CHECK(find(&p, "ws/packages/app/src/.bashrc") == NULL);
	{
		struct stat st;
		char *g = path_join(base, "ws/packages/app/.vscode");
		CHECK(lstat(g, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0555);
		plan_sweep(&p, false);
		CHECK(lstat(g, &st) == -1);
		free(g);
	}
	plan_free(&p);
	strlist_free(&r->write);
	strlist_push(&r->write, "dist/");
	CHECK(plan_build(r, &p) == 0);
	CHECK(find(&p, "ws/packages/app/dist/.bashrc") == NULL);
	CHECK(p.ng == 0);
	plan_free(&p);

	/* a submodule's gitfile inside a write grant is refused */
	mk("ws/packages/app/lib/.git", false);
	strlist_free(&r->write);
	strlist_push(&r->write, "./");
	CHECK(plan_build(r, &p) == -1);
	plan_sweep(&p, false);
	plan_free(&p);
	{
		char *g = path_join(base, "ws/packages/app/lib/.git"), *b = path_join(base, "ws/packages/app/.bashrc");
		struct stat st;
		CHECK(unlink(g) == 0);
		CHECK(lstat(b, &st) == -1); /* the refused plan's guards went too */
		free(g);
		free(b);
	}

	/* refused: a symlink out of the project, a write over the root */
	mk("outside", true);
	{
		char *l = path_join(base, "ws/packages/app/out"), *t = path_join(base, "outside");
		CHECK(symlink(t, l) == 0);
		free(l);
		free(t);
	}
	strlist_free(&r->read);
	strlist_free(&r->write);
	strlist_push(&r->write, "out/");
	CHECK(plan_build(r, &p) == -1);
	plan_free(&p);
	strlist_free(&r->write);
	strlist_push(&r->write, "../../");
	CHECK(plan_build(r, &p) == -1);
	plan_free(&p);
	request_free(r);

	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	return UNIT_END("test_sandbox_plan");
}
