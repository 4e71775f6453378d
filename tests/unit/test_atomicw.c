#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicw.h"
#include "fileio.h"
#include "unit.h"

/* names in dir: the caller's count must see no temporary left behind */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	size_t len;
	return fileio_read_at(AT_FDCWD, path, &len);
}

int main(void)
{
	char base[] = "/tmp/vx-unit-atomicw.XXXXXX", path[1024], victim[1024];
	CHECK(mkdtemp(base) != NULL);
	snprintf(path, sizeof(path), "%s/memo", base);
	snprintf(victim, sizeof(victim), "%s/victim", base);

	/* commit: the target holds exactly what was written, nothing else is left */
	struct atomicw w;
	CHECK(atomicw_open(&w, path, 0644) == 0);
	CHECK(atomicw_write(&w, "one\n", 4) == 0);
	FILE *f = atomicw_stdio(&w);
	CHECK(f != NULL);
	fprintf(f, "two\n");
	CHECK(atomicw_commit(&w) == 0);
	char *text = slurp(path);
	CHECK_STR(text, "one\ntwo\n");
	free(text);
	CHECK(entries(base) == 1);

	/* abort: the old content stays, the temporary goes */
	CHECK(atomicw_open(&w, path, 0644) == 0);
	CHECK(atomicw_write(&w, "half", 4) == 0);
	atomicw_abort(&w);
	text = slurp(path);
	CHECK_STR(text, "one\ntwo\n");
	free(text);
	CHECK(entries(base) == 1);

	/* a symlink at the target is replaced, never written through */
	int fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "keep\n", 5) == 5);
	close(fd);
	CHECK(unlink(path) == 0 && symlink(victim, path) == 0);
	CHECK(atomicw_open(&w, path, 0644) == 0);
	CHECK(atomicw_write(&w, "new\n", 4) == 0);
	CHECK(atomicw_commit(&w) == 0);
	text = slurp(victim);
	CHECK_STR(text, "keep\n");
	free(text);
	struct stat st;
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(entries(base) == 2);

	/* the mode asked for, under the umask */
	mode_t old = umask(022);
	CHECK(atomicw_open(&w, path, 0666) == 0 && atomicw_commit(&w) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	umask(old);

	/* a missing directory: -1 with ENOENT, nothing made */
	char missing[1100];
	snprintf(missing, sizeof(missing), "%s/no/memo", base);
	errno = 0;
	CHECK(atomicw_open(&w, missing, 0644) == -1 && errno == ENOENT);

	/* a rename that cannot happen (the target is a directory holding a file):
	 * -1, the temporary removed */
	char dir[1100], inner[1200];
	snprintf(dir, sizeof(dir), "%s/adir", base);
	snprintf(inner, sizeof(inner), "%s/x", dir);
	CHECK(mkdir(dir, 0755) == 0);
	fd = open(inner, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(atomicw_open(&w, dir, 0644) == 0);
	CHECK(atomicw_commit(&w) == -1);
	CHECK(entries(base) == 3);

	/* relative to an open directory: a path swapped above it after it was
	 * opened (the directory moved away, a symlink to elsewhere in its
	 * place) changes nothing: the file lands in the directory opened */
	char held[1024], moved[1024], other[1024], there[1024], elsewhere[1024];
	snprintf(held, sizeof(held), "%s/held", base);
	snprintf(moved, sizeof(moved), "%s/moved", base);
	snprintf(other, sizeof(other), "%s/other", base);
	snprintf(there, sizeof(there), "%s/moved/out", base);
	snprintf(elsewhere, sizeof(elsewhere), "%s/other/out", base);
	CHECK(mkdir(held, 0755) == 0 && mkdir(other, 0755) == 0);
	int dfd = open(held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0);
	CHECK(atomicw_openat(&w, dfd, "out", 0644) == 0);
	CHECK(w.sync == 0);
	w.sync = 1;
	CHECK(rename(held, moved) == 0 && symlink("other", held) == 0);
	CHECK(atomicw_write(&w, "in\n", 3) == 0);
	CHECK(atomicw_commit(&w) == 0);
	text = slurp(there);
	CHECK_STR(text, "in\n");
	free(text);
	CHECK(access(elsewhere, F_OK) != 0);
	CHECK(entries(moved) == 1 && entries(other) == 0);
	/* abort relative to it: the temporary goes from that directory */
	CHECK(atomicw_openat(&w, dfd, "out2", 0644) == 0);
	atomicw_abort(&w);
	CHECK(entries(moved) == 1);
	close(dfd);
	unlink(there);
	unlink(held);
	rmdir(moved);
	rmdir(other);

	unlink(inner);
	rmdir(dir);
	unlink(path);
	unlink(victim);
	rmdir(base);
	return UNIT_END("atomicw");
}
