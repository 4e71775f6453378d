/* vx-key's stat cache as a memo (memo.h): a saved .vx/key-stat with every
 * single byte flipped in turn, and cut at every length, never answers a
 * lookup with a hash other than the one stored: damage is a miss (the file
 * rehashed), never a wrong key. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "statcache.h"
#include "unit.h"

#define SEC 1000000000LL
#define N 3

static struct stat fake(int64_t t, int i)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_size = 10 + i;
	st.st_ino = 42 + (ino_t)i;
	st.st_dev = 7;
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = t / SEC;
	return st;
}

/* Lookups of the N entries after the file was replaced by data[0..n):
 * how many answered a hash other than the one stored (each is a miss or
 * right), and how many answered at all */
static int wrong, answered;
static void check(const char *dir, const char *file, const char *data, size_t n, int64_t t)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || fileio_write_all(fd, data, n) != 0 || close(fd) != 0)
		abort();
	struct statcache *sc = statcache_load(dir);
	for (int i = 0; i < N; i++) {
		char path[16];
		snprintf(path, sizeof(path), "f%d", i);
		struct stat st = fake(t, i);
		const uint8_t *h = statcache_lookup(sc, path, &st);
		uint8_t want[16] = {(uint8_t)(0xa0 + i), 1, 2, 3};
		answered += h != NULL;
		wrong += h && memcmp(h, want, 16) != 0;
	}
	statcache_free(sc);
}

int main(void)
{
	err_init("test_memo_statcache");
	char dir[] = "/tmp/test_memo_statcache.XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char vx[64], file[80];
	snprintf(vx, sizeof(vx), "%s/.vx", dir);
	snprintf(file, sizeof(file), "%s/key-stat", vx);
	mkdir(vx, 0777);
	const int64_t t = 1700000000 * SEC;
	struct statcache *sc = statcache_load(dir);
	for (int i = 0; i < N; i++) {
		char path[16];
		snprintf(path, sizeof(path), "f%d", i);
		struct stat st = fake(t, i);
		uint8_t h[16] = {(uint8_t)(0xa0 + i), 1, 2, 3};
		statcache_store(sc, path, &st, h, t + SEC);
	}
	CHECK(statcache_save(sc) == 0);
	statcache_free(sc);
	size_t n;
	char *saved = fileio_read_at(AT_FDCWD, file, &n);
	CHECK(saved != NULL);

	/* as saved: all three answer, rightly */
	check(dir, file, saved, n, t);
	CHECK(answered == N && wrong == 0);

	char *bad = malloc(n);
	wrong = answered = 0;
	for (size_t k = 0; k < n; k++) {
		memcpy(bad, saved, n);
		bad[k] ^= 0x01;
		check(dir, file, bad, n, t);
	}
	CHECK(wrong == 0);
	wrong = 0;
	for (size_t k = 0; k < n; k++)
		check(dir, file, saved, k, t);
	CHECK(wrong == 0);
	free(bad);
	free(saved);
	unlink(file);
	rmdir(vx);
	rmdir(dir);
	return UNIT_END("memo_statcache");
}
