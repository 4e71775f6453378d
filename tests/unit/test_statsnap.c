#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statsnap.h"
#include "unit.h"

int main(void)
{
	char dir[] = "/tmp/vx-unit-statsnap.XXXXXX", f[1024];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(f, sizeof(f), "%s/f", dir);
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3);
	close(fd);
	struct stat st;
	CHECK(stat(f, &st) == 0);
	struct statsnap s;
	statsnap_take(&s, &st);
	CHECK(statsnap_matches(&s, &st));
	CHECK(s.size == 3 && s.mtime == statsnap_ns(st.st_mtim));

	/* each field alone breaks the match */
	struct statsnap t = s;
	t.size++;
	CHECK(!statsnap_same(&s, &t));
	t = s, t.mtime++;
	CHECK(!statsnap_same(&s, &t));
	t = s, t.ctime++;
	CHECK(!statsnap_same(&s, &t));
	t = s, t.ino++;
	CHECK(!statsnap_same(&s, &t));
	t = s, t.dev++;
	CHECK(!statsnap_same(&s, &t));
	t = s, t.mode ^= 0100;
	CHECK(!statsnap_same(&s, &t));

	/* touch -d back to the old mtime: the ctime moved */
	struct timespec ts[2] = {st.st_atim, st.st_mtim};
	usleep(20000);
	CHECK(chmod(f, 0600) == 0 && chmod(f, 0644) == 0);
	CHECK(utimensat(AT_FDCWD, f, ts, 0) == 0);
	struct stat st2;
	CHECK(stat(f, &st2) == 0);
	CHECK(st2.st_mtim.tv_sec == st.st_mtim.tv_sec && st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec);
	CHECK(!statsnap_matches(&s, &st2));

	/* the racy rule: trusted only when written strictly after the mtime */
	CHECK(!statsnap_trusted(&s, s.mtime));
	CHECK(!statsnap_trusted(&s, s.mtime - 1));
	CHECK(statsnap_trusted(&s, s.mtime + 1));

	/* ns split back into a stat's seconds and nanoseconds, before 1970 too */
	CHECK(statsnap_sec(1500000000LL) == 1 && statsnap_nsec(1500000000LL) == 500000000);
	CHECK(statsnap_sec(-1) == -1 && statsnap_nsec(-1) == 999999999);
	CHECK(statsnap_sec(-1000000000LL) == -1 && statsnap_nsec(-1000000000LL) == 0);
	CHECK(statsnap_ns((struct timespec){.tv_sec = -2, .tv_nsec = 999999999}) == -1000000001LL);
	CHECK(statsnap_sec(0) == 0 && statsnap_nsec(0) == 0);
	/* the ends of the range (a memo file's bytes can say anything): each
	 * split comes back whole, with no overflow (UBSan watches) */
	const int64_t ends[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, -9223372036854732319LL};
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		int64_t sec = statsnap_sec(ends[i]);
		long nsec = statsnap_nsec(ends[i]);
		CHECK(nsec >= 0 && nsec <= 999999999);
		CHECK(statsnap_ns((struct timespec){.tv_sec = sec, .tv_nsec = nsec}) == ends[i]);
	}

	/* the text form: printed and read back whole, the ends of the range
	 * too; what is malformed is refused and leaves the cursor */
	struct statsnap odd = {.size = -5, .mtime = INT64_MIN, .ctime = INT64_MAX,
		.ino = UINT64_MAX, .dev = 7, .mode = 0100644};
	const struct statsnap *both[] = {&s, &odd};
	for (size_t i = 0; i < 2; i++) {
		char text[256] = {0};
		FILE *mf = fmemopen(text, sizeof(text) - 1, "w");
		statsnap_print(mf, both[i]);
		fputs(" rest", mf);
		fclose(mf);
		char *p = text;
		struct statsnap back;
		CHECK(statsnap_parse(&p, &back));
		CHECK(statsnap_same(&back, both[i]));
		CHECK_STR(p, "rest");
	}
	const char *bad[] = {"1 2 3 4 5 6 7", "1 2 3 4 5 6 7 644", "1 2 1000000000 4 5 6 7 644 x",
		"1 2 3 4 -1 6 7 644 x", "1 2 3 4 5 6 7 9 x", "1 2 x 4 5 6 7 644 x", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		char *p = buf;
		struct statsnap back;
		CHECK(!statsnap_parse(&p, &back));
		CHECK(p == buf);
	}

	unlink(f);
	rmdir(dir);
	return UNIT_END("statsnap");
}
