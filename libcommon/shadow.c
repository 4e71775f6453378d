#include "shadow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"

static void name_of(const char *s, char out[SHADOW_NAME_LEN + 1])
{
	snprintf(out, SHADOW_NAME_LEN + 1, "%016llx", (unsigned long long)XXH3_64bits(s, strlen(s)));
}

void shadow_names(const char *projrel, const char *rel, char dir[SHADOW_NAME_LEN + 1],
	char name[SHADOW_NAME_LEN + 1])
{
	name_of(projrel, dir);
	name_of(rel, name);
}

void shadow_name(const char *rel, char name[SHADOW_NAME_LEN + 1])
{
	name_of(rel, name);
}

void shadow_put(int pfd, const char *name, int dfd, const char *file)
{
	if (unlinkat(pfd, name, 0) == 0 || errno == ENOENT)
		linkat(dfd, file, pfd, name, 0);
}

/* dirfd/name as a directory, made when missing and create. */
static int subdir(int dirfd, const char *name, bool create)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int shadow_root_open(const char *statedir, bool create)
{
	if (create && mkdir(statedir, 0777) != 0 && errno != EEXIST)
		return -1;
	int sfd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	int fd = subdir(sfd, "shadow", create);
	int saved = errno;
	close(sfd);
	errno = saved;
	return fd;
}

int shadow_proj_open(int rootfd, const char *projrel, bool create)
{
	char dir[SHADOW_NAME_LEN + 1];
	name_of(projrel, dir);
	return subdir(rootfd, dir, create);
}

bool shadow_holds(const char *statedir, const char *projrel, const char *rel,
	const struct stat *st)
{
	char dir[SHADOW_NAME_LEN + 1], name[SHADOW_NAME_LEN + 1];
	shadow_names(projrel, rel, dir, name);
	char *p = xasprintf("%s/shadow/%s/%s", statedir, dir, name);
	struct stat sst;
	bool yes = st->st_nlink == 2 && S_ISREG(st->st_mode) &&
		fstatat(AT_FDCWD, p, &sst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sst.st_mode) &&
		sst.st_ino == st->st_ino && sst.st_dev == st->st_dev;
	free(p);
	return yes;
}

int shadow_drop(int rootfd, const char *projrel)
{
	char dir[SHADOW_NAME_LEN + 1];
	name_of(projrel, dir);
	int fd = openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
			unlinkat(fd, de->d_name, 0) != 0 && errno != ENOENT)
			r = -1;
	int saved = errno;
	closedir(d);
	if (unlinkat(rootfd, dir, AT_REMOVEDIR) != 0 && errno != ENOENT && r == 0) {
		saved = errno;
		r = -1;
	}
	errno = saved;
	return r;
}
