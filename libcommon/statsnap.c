#include "statsnap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000LL

/* In unsigned arithmetic, which wraps where int64_t would overflow: no file
 * system dates a file near the ends of the range, but a memo file's bytes
 * can say anything, and every time read from one must come back as it went. */
int64_t statsnap_ns(struct timespec t)
{
	return (int64_t)((uint64_t)t.tv_sec * (uint64_t)NS + (uint64_t)t.tv_nsec);
}

int64_t statsnap_sec(int64_t ns)
{
	return ns / NS - (ns % NS < 0);
}

long statsnap_nsec(int64_t ns)
{
	long r = (long)(ns % NS);
	return r < 0 ? r + NS : r;
}

void statsnap_take(struct statsnap *s, const struct stat *st)
{
	memset(s, 0, sizeof(*s)); /* the padding too: a snapshot may be hashed */
	s->size = st->st_size;
	s->mtime = statsnap_ns(st->st_mtim);
	s->ctime = statsnap_ns(st->st_ctim);
	s->ino = st->st_ino;
	s->dev = st->st_dev;
	s->mode = st->st_mode;
}

bool statsnap_same(const struct statsnap *a, const struct statsnap *b)
{
	return a->size == b->size && a->mtime == b->mtime && a->ctime == b->ctime &&
	       a->ino == b->ino && a->dev == b->dev && a->mode == b->mode;
}

bool statsnap_matches(const struct statsnap *s, const struct stat *st)
{
	struct statsnap now;
	statsnap_take(&now, st);
	return statsnap_same(s, &now);
}

bool statsnap_trusted(const struct statsnap *s, int64_t written)
{
	return s->mtime < written;
}

void statsnap_print(FILE *f, const struct statsnap *s)
{
	fprintf(f, "%lld %lld %ld %lld %ld %llu %llu %o", (long long)s->size,
		(long long)statsnap_sec(s->mtime), statsnap_nsec(s->mtime),
		(long long)statsnap_sec(s->ctime), statsnap_nsec(s->ctime),
		(unsigned long long)s->ino, (unsigned long long)s->dev, (unsigned)s->mode);
}

/* By hand, as sscanf showed in the profile of an all-hit rerun (the stamp). */
bool statsnap_parse(char **p, struct statsnap *s)
{
	long long v[8];
	char *at = *p;
	for (int i = 0; i < 8; i++) {
		char *end;
		errno = 0;
		v[i] = i == 7	? (long long)strtoul(at, &end, 8)
		       : i >= 5 ? (long long)strtoull(at, &end, 10)
				: strtoll(at, &end, 10);
		if (errno || end == at || *end != ' ')
			return false;
		at = end + 1;
	}
	if (v[2] < 0 || v[2] > 999999999 || v[4] < 0 || v[4] > 999999999)
		return false;
	memset(s, 0, sizeof(*s));
	s->size = v[0];
	s->mtime = statsnap_ns((struct timespec){.tv_sec = v[1], .tv_nsec = v[2]});
	s->ctime = statsnap_ns((struct timespec){.tv_sec = v[3], .tv_nsec = v[4]});
	s->ino = (uint64_t)v[5];
	s->dev = (uint64_t)v[6];
	s->mode = (uint32_t)v[7];
	*p = at;
	return true;
}
