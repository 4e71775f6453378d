#include "slots.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"

static bool slot_name(const char *name, const char *prefix, size_t plen)
{
	return strncmp(name, prefix, plen) == 0 && strlen(name) == plen + 16 &&
	       strspn(name + plen, "0123456789abcdef") == 16;
}

static int by_mtime(const void *a, const void *b)
{
	const struct timespec *x = a, *y = b;
	return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
	       : x->tv_nsec != y->tv_nsec ? (x->tv_nsec < y->tv_nsec ? -1 : 1) : 0;
}

void slots_prune(const char *dir, const char *prefix, size_t keep)
{
	size_t plen = strlen(prefix);
	if (plen > 32)
		return;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	struct slot {
		struct timespec at; /* first: by_mtime compares it */
		char name[32 + 16 + 1];
	} *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	while ((de = readdir(d))) {
		if (!slot_name(de->d_name, prefix, plen) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		XGROW(v, n + 1, cap);
		v[n].at = st.st_mtim;
		memcpy(v[n].name, de->d_name, plen + 16 + 1); /* slot_name: the length checked */
		n++;
	}
	if (n > keep) {
		qsort(v, n, sizeof(*v), by_mtime);
		for (size_t i = 0; i < n - keep; i++)
			unlinkat(dfd, v[i].name, 0);
	}
	free(v);
	closedir(d);
}
