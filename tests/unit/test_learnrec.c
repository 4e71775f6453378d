/* test_learnrec.c: vx init --sandbox's proposal from one learning run's
 * trace (init/learnrec.c): reads and writes to the narrowest grants, a read
 * outside the project keyed, a sibling the key folds read without a second
 * key, outputs never reads, lists deduplicated, what is never granted
 * named. Paths are judged on the host, so the test lays a small tree. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "learnrec.h"
#include "unit.h"

static char root[64];

static void mk(const char *rel, bool dir)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir) {
		mkdir(p, 0755);
	} else {
		int fd = open(p, O_WRONLY | O_CREAT, 0644);
		close(fd);
	}
}

static char *joined(const cJSON *a)
{
	return cJSON_PrintUnformatted(a);
}

#define LIST(a, want)                    \
	do {                                 \
		char *s_ = joined(a);            \
		CHECK_STR(s_, want);             \
		free(s_);                        \
	} while (0)

int main(void)
{
	err_init("vx-init");
	snprintf(root, sizeof(root), "/tmp/vx-learnrec-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	const char *tree[] = {"packages", "packages/a", "packages/a/src", "packages/a/dist",
		"packages/util", "packages/util/dist", "conf", ".git", NULL};
	for (size_t i = 0; tree[i]; i++)
		mk(tree[i], true);
	mk("packages/a/src/in.ts", false);
	mk("packages/a/tsconfig.json", false);
	mk("packages/a/dist/old.js", false);
	mk("packages/util/dist/u.js", false);
	mk("shared.txt", false);
	mk("conf/base.json", false);
	mk(".git/HEAD", false);
	char trace[128], proj[128];
	snprintf(trace, sizeof(trace), "%s.trace", root);
	snprintf(proj, sizeof(proj), "%s/packages/a", root);
	FILE *f = fopen(trace, "w");
	fprintf(f, "{\"trace\":\"start\",\"withheld\":[]}\n");
#define REC(op, acc, rel, en) \
	fprintf(f, "{\"op\":\"%s\",\"access\":\"%s\",\"path\":\"x\",\"resolved\":\"%s/%s\",\"errno\":%s}\n", \
		op, acc, root, rel, en)
	REC("newfstatat", "read", "packages/a", "null");     /* the cwd */
	REC("newfstatat", "read", "packages", "null");       /* a walk up */
	REC("openat", "read", "packages/a/src/in.ts", "null");
	REC("openat", "read", "packages/a/src/in.ts", "null"); /* again */
	REC("openat", "read", "packages/a/tsconfig.json", "null");
	REC("openat", "read", "shared.txt", "null");
	REC("openat", "read", "shared.txt", "null");
	REC("openat", "read", "conf/base.json", "null");
	REC("newfstatat", "read", "conf", "null");           /* a stat of a dir */
	REC("openat", "read", "packages/util/dist/u.js", "null");
	REC("openat", "read", "packages/a/nope.json", "\"ENOENT\""); /* a probe */
	REC("openat", "read", ".git/HEAD", "\"ENOENT\"");    /* the wall */
	REC("openat", "read", "packages/a/dist/old.js", "null"); /* an output */
	REC("mkdir", "write", "packages/a/dist", "\"EEXIST\"");
	REC("openat", "write", "packages/a/dist/new.js", "null");
	REC("openat", "read", "packages/a/dist/new.js", "null"); /* made by it */
	REC("mkdir", "write", "packages/a/types", "null");
	REC("openat", "write", "packages/a/types/a.d.ts", "null");
	REC("mkdir", "write", "packages/a/node_modules", "null");
	REC("mkdir", "write", "packages/a/node_modules/.vite", "null");
	REC("openat", "write", "packages/a/node_modules/.vite/r.json", "null");
	REC("openat", "write", "packages/a/meta.json", "null");
	REC("openat", "write", "packages/util/dist/u.js", "null"); /* a sibling */
	REC("openat", "write", "packages/util/dist/v.js", "null");
	fprintf(f, "{\"op\":\"socket\",\"access\":\"unix\",\"path\":\"AF_UNIX\",\"resolved\":\"AF_UNIX\",\"errno\":\"EPERM\"}\n");
	fprintf(f, "{\"trace\":\"end\",\"events\":24}\n");
	fclose(f);
	cJSON *graph = cJSON_Parse("{\"type\":\"graph\",\"projects\":[{\"name\":\"root\",\"dir\":\".\"},"
				   "{\"name\":\"@x/a\",\"dir\":\"packages/a\"},{\"name\":\"@x/util\",\"dir\":\"packages/util\"}]}");
	cJSON *task = cJSON_Parse("{\"type\":\"task\",\"keyed\":[\"@x/util\"],\"cache\":{\"inputs\":"
				  "{\"workspaceFiles\":[\"conf/base.json\"]},\"outputs\":{\"files\":[\"dist/**\",\"types/**\"]}}}");
	struct proposal pr;
	CHECK(learnrec_read(trace, root, proj, graph, task, &pr));
	CHECK(pr.complete);
	LIST(pr.read, "[\"src\",\"tsconfig.json\",\"../../shared.txt\",\"../../conf/base.json\",\"../util/dist\"]");
	LIST(pr.write, "[\"dist/\",\"types/\",\"node_modules/.vite/\",\"meta.json\"]");
	/* conf/base.json keyed already; util through its build (K(T)) */
	LIST(pr.wfiles, "[\"shared.txt\"]");
	LIST(pr.undeclared, "[\"node_modules/.vite/\",\"meta.json\"]");
	char *o = xasprintf("[\"%s/packages/util/dist/u.js\",\"%s/packages/util/dist/v.js\"]", root, root);
	LIST(pr.outside, o);
	free(o);
	LIST(pr.walled, "[\".git/HEAD\"]");
	CHECK(pr.unix_sockets);
	CHECK(learnrec_declared(task, "dist/"));
	CHECK(!learnrec_declared(task, "src/"));
	CHECK(!learnrec_declared(task, "meta.json"));
	/* the block is the table's: each learner hook names a row, and only
	 * the path rows it learns are proposed; the verifying run's write
	 * grants are the declared outputs */
	size_t filled = 0;
	for (size_t i = 0; i < ngrantkinds; i++) {
		cJSON *v = learnrec_grant(&pr, &grantkinds[i], NULL);
		if (v) {
			filled++;
			CHECK(grantkinds[i].shape == GRANT_PATHS);
		}
		cJSON_Delete(v);
	}
	CHECK(filled == 2);
	cJSON *v = learnrec_grant(&pr, grantkind_at("allow.read"), NULL);
	LIST(v, "[\"src\",\"tsconfig.json\",\"../../shared.txt\",\"../../conf/base.json\",\"../util/dist\"]");
	cJSON_Delete(v);
	v = learnrec_grant(&pr, grantkind_at("allow.write"), task);
	LIST(v, "[\"dist/\",\"types/\"]");
	cJSON_Delete(v);
	v = learnrec_grant(&pr, grantkind_at("allow.unixSockets"), NULL);
	CHECK(!v);
	learnrec_free(&pr);
	/* the same without util keyed: its directory read and keyed as a whole */
	cJSON_ReplaceItemInObject(task, "keyed", cJSON_CreateArray());
	CHECK(learnrec_read(trace, root, proj, graph, task, &pr));
	LIST(pr.read, "[\"src\",\"tsconfig.json\",\"../../shared.txt\",\"../../conf/base.json\",\"../util/dist/u.js\"]");
	LIST(pr.wfiles, "[\"shared.txt\",\"packages/util/dist/u.js\"]");
	learnrec_free(&pr);
	cJSON_Delete(graph);
	cJSON_Delete(task);
	unlink(trace);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		return 1;
	return UNIT_END("test_learnrec");
}
