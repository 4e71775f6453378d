#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canonmemo.h"
#include "err.h"
#include "path.h"
#include "unit.h"

static void owned(char *got, const char *want, const char *what)
{
	if ((!got && !want) || (got && want && strcmp(got, want) == 0)) {
		unit_passed++;
	} else {
		unit_failed++;
		fprintf(stderr, "%s: got '%s', want '%s'\n", what, got ? got : "(null)",
			want ? want : "(null)");
	}
	free(got);
}

int main(void)
{
	owned(path_normalize("a/./b//c/"), "a/b/c", "normalize dots");
	owned(path_normalize("a/../b"), "b", "normalize up");
	owned(path_normalize("../a/../../b"), "../../b", "normalize leading up");
	owned(path_normalize("/../a"), "/a", "normalize above root");
	owned(path_normalize(""), ".", "normalize empty");
	owned(path_normalize("./"), ".", "normalize dot");
	owned(path_normalize("/"), "/", "normalize root");
	owned(path_normalize("a/.."), ".", "normalize to dot");

	owned(path_join("/ws", "packages/app"), "/ws/packages/app", "join");
	owned(path_join("/ws", "/abs"), "/abs", "join absolute");
	owned(path_join("/ws/a", "../b"), "/ws/b", "join up");

	owned(path_under("/ws", "/ws"), ".", "under self");
	owned(path_under("/ws", "/ws/a/b"), "a/b", "under child");
	owned(path_under("/ws", "/wsx/a"), NULL, "under sibling prefix");
	owned(path_under("/", "/a"), "a", "under root");
	CHECK(path_is_within("/ws", "/ws/a"));
	CHECK(!path_is_within("/ws", "/ws2"));

	owned(path_relative("/ws/packages/app", "/ws/tsconfig.base.json"),
		"../../tsconfig.base.json", "relative up");
	owned(path_relative("/ws", "/ws/a/b"), "a/b", "relative down");
	owned(path_relative("/ws/a", "/ws/a"), ".", "relative same");
	owned(path_relative("/ws/a/b", "/ws/c/d"), "../../c/d", "relative across");
	owned(path_relative("/ws/ab", "/ws/a"), "../a", "relative prefix name");
	owned(path_relative("/", "/x/y"), "x/y", "relative from root");

	setenv("HOME", "/home/u", 1);
	owned(path_expand_home("~"), "/home/u", "home alone");
	owned(path_expand_home("~/.npmrc"), "/home/u/.npmrc", "home file");
	owned(path_expand_home("~x/y"), "~x/y", "not home");
	owned(path_expand_home("a/~"), "a/~", "tilde inside");

	char *c = path_canonical("/");
	owned(c, "/", "canonical root");
	CHECK(path_canonical("/no/such/path/here") == NULL);

	/* path_dirname: lexical, "/" at the top */
	{
		char *d = path_dirname("/a/b/c.json");
		CHECK_STR(d, "/a/b");
		free(d);
		d = path_dirname("/x");
		CHECK_STR(d, "/");
		free(d);
		d = path_dirname("/");
		CHECK_STR(d, "/");
		free(d);
	}
	/* path_mkdirs: every missing parent made, an existing one fine, a file
	 * in the way an error */
	{
		char tmpl[] = "/tmp/vx-unit-path.XXXXXX";
		CHECK(mkdtemp(tmpl) != NULL);
		char *deep = xasprintf("%s/a/b/c", tmpl);
		CHECK(path_mkdirs(deep) == 0);
		struct stat st;
		CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
		CHECK(path_mkdirs(deep) == 0);
		char *file = xasprintf("%s/f", tmpl), *under = xasprintf("%s/f/g", tmpl);
		FILE *f = fopen(file, "w");
		CHECK(f != NULL);
		fclose(f);
		CHECK(path_mkdirs(under) == -1 && errno == ENOTDIR);
		char *rm = xasprintf("rm -rf '%s'", tmpl);
		CHECK(system(rm) == 0);
		free(rm);
		free(under);
		free(file);
		free(deep);
	}

	/* canonmemo: path_canonical_would_be's answers, memoised: a link in
	 * the middle (absolute and relative targets), a missing leaf and a
	 * missing middle, asked twice (the second from the memo) */
	{
		char tmpl[] = "/tmp/vx-unit-canon-XXXXXX", *top = mkdtemp(tmpl), *base;
		CHECK(top != NULL);
		base = path_canonical(top);
		char *real = path_join(base, "real"), *sub = path_join(base, "real/sub");
		char *abs = path_join(base, "abs"), *rel = path_join(base, "rel");
		CHECK(mkdir(real, 0700) == 0 && mkdir(sub, 0700) == 0);
		CHECK(symlink(real, abs) == 0 && symlink("real/sub", rel) == 0);
		const char *asks[][2] = {{"abs/sub", "real/sub"}, {"rel", "real/sub"},
			{"rel/x", "real/sub/x"}, {"abs/none/y", "real/none/y"},
			{"real/sub", "real/sub"}, {"none", "none"}};
		struct canonmemo m;
		canonmemo_init(&m);
		for (int round = 0; round < 2; round++)
			for (size_t i = 0; i < sizeof(asks) / sizeof(*asks); i++) {
				char *q = path_join(base, asks[i][0]), *w = path_join(base, asks[i][1]);
				char *plain = path_canonical_would_be(q);
				CHECK_STR(plain, w);
				owned(canonmemo_get(&m, q), w, asks[i][0]);
				free(plain);
				free(q);
				free(w);
			}
		canonmemo_free(&m);
		unlink(abs);
		unlink(rel);
		rmdir(sub);
		rmdir(real);
		rmdir(base);
		free(real);
		free(sub);
		free(abs);
		free(rel);
		free(base);
	}
	/* canonmemo reads a directory whose children are asked about often:
	 * forty sibling directories, a link and a file among them, cost a
	 * handful of lstats, not one each, with the same answers (the link
	 * still followed, asked after the directory was read) */
	{
		char tmpl[] = "/tmp/vx-unit-canonls-XXXXXX", *top = mkdtemp(tmpl), *base;
		CHECK(top != NULL);
		base = path_canonical(top);
		char name[64];
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "%s/p%d", base, i);
			CHECK(mkdir(name, 0700) == 0);
		}
		snprintf(name, sizeof(name), "%s/link", base);
		CHECK(symlink("p3", name) == 0);
		snprintf(name, sizeof(name), "%s/file", base);
		int fd = open(name, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0);
		close(fd);
		struct canonmemo m;
		canonmemo_init(&m);
		size_t before = 0;
		for (int i = 0; i < 44; i++) {
			if (i < 40)
				snprintf(name, sizeof(name), "%s/p%d", base, i);
			else
				snprintf(name, sizeof(name), "%s/%s", base,
					(const char *[]){"link", "link/x", "file", "none"}[i - 40]);
			if (i == 0)
				before = m.lstats;
			char *plain = path_canonical_would_be(name);
			owned(canonmemo_get(&m, name), plain, name);
			free(plain);
		}
		size_t used = m.lstats - before;
		CHECK(used < 2 * CANONMEMO_LIST_AFTER + 8);
		if (used >= 2 * CANONMEMO_LIST_AFTER + 8)
			fprintf(stderr, "canonmemo: %zu lstats for 40 siblings\n", used);
		canonmemo_free(&m);
		snprintf(name, sizeof(name), "rm -rf '%s'", base);
		CHECK(system(name) == 0);
		free(base);
	}
	return UNIT_END("path");
}
