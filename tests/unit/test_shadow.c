#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shadow.h"
#include "unit.h"

/* a file in dir, linked into root's shadow under projrel/rel by hand */
static void shadowed(int rootfd, const char *dir, const char *projrel, const char *rel,
	const char *file)
{
	char d[SHADOW_NAME_LEN + 1], n[SHADOW_NAME_LEN + 1], path[1024];
	shadow_names(projrel, rel, d, n);
	int pfd = shadow_proj_open(rootfd, projrel, true);
	CHECK(pfd >= 0);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "x\n", 2) == 2);
	close(fd);
	CHECK(linkat(AT_FDCWD, path, pfd, n, 0) == 0);
	close(pfd);
}

int main(void)
{
	/* one name per project and per output path; the same each time */
	char d1[SHADOW_NAME_LEN + 1], n1[SHADOW_NAME_LEN + 1], d2[SHADOW_NAME_LEN + 1],
		n2[SHADOW_NAME_LEN + 1];
	shadow_names("packages/a", "dist/x.js", d1, n1);
	shadow_names("packages/a", "dist/x.js", d2, n2);
	CHECK_STR(d1, d2);
	CHECK_STR(n1, n2);
	CHECK(strlen(d1) == SHADOW_NAME_LEN && strlen(n1) == SHADOW_NAME_LEN);
	shadow_names("packages/b", "dist/y.js", d2, n2);
	CHECK(strcmp(d1, d2) != 0 && strcmp(n1, n2) != 0);

	char base[] = "/tmp/vx-unit-shadow.XXXXXX";
	CHECK(mkdtemp(base) != NULL);
	char state[256], dir[256], path[512];
	snprintf(state, sizeof(state), "%s/.vx", base);
	snprintf(dir, sizeof(dir), "%s/p", base);
	CHECK(mkdir(dir, 0755) == 0);
	CHECK(shadow_root_open(state, false) < 0); /* not made unless asked */
	int rootfd = shadow_root_open(state, true);
	CHECK(rootfd >= 0);
	struct stat st;
	snprintf(path, sizeof(path), "%s/shadow", state);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700);

	shadowed(rootfd, dir, "p", "a.js", "a.js");
	shadowed(rootfd, dir, "p", "b.js", "b.js");
	snprintf(path, sizeof(path), "%s/a.js", dir);
	CHECK(lstat(path, &st) == 0 && st.st_nlink == 2);
	CHECK(shadow_holds(state, "p", "a.js", &st));
	CHECK(!shadow_holds(state, "p", "b.js", &st)); /* another output's name */
	CHECK(!shadow_holds(state, "q", "a.js", &st)); /* another project's */
	/* a third name elsewhere: not the shadow's alone */
	char third[512];
	snprintf(third, sizeof(third), "%s/third", base);
	CHECK(link(path, third) == 0);
	CHECK(lstat(path, &st) == 0 && st.st_nlink == 3);
	CHECK(!shadow_holds(state, "p", "a.js", &st));
	CHECK(unlink(third) == 0);

	/* a drop leaves each output with one link, and no directory behind */
	CHECK(shadow_drop(rootfd, "p") == 0);
	CHECK(lstat(path, &st) == 0 && st.st_nlink == 1);
	CHECK(!shadow_holds(state, "p", "a.js", &st));
	shadow_names("p", "a.js", d1, n1);
	CHECK(faccessat(rootfd, d1, F_OK, 0) != 0);
	CHECK(shadow_drop(rootfd, "p") == 0); /* nothing there: no error */
	close(rootfd);

	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
	return UNIT_END("shadow");
}
