/* fuzz_statcache: vx-key's stat cache loader on any bytes as
 * <root>/.vx/key-stat. Each loaded entry is looked up with the stat it
 * recorded (a file's hash, a directory's listing, which is then parsed as
 * the walk parses it), some are rewritten, and the cache is saved, loaded
 * again and freed: a wrong free or a read past the file is ASan's to see.
 * statcache.c is compiled in, to reach the loaded keys. */
#include "fileio.h"
#include "../../key/statcache.c"

#include <stdint.h>

static char root[] = "/tmp/vx-fuzz-statcache-XXXXXX";
static char *file;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(root))
		abort();
	file = xasprintf("%s/.vx/key-stat", root);
	char *dir = xasprintf("%s/.vx", root);
	if (mkdir(dir, 0700) != 0)
		abort();
	free(dir);
	return 0;
}

static struct stat stat_of(const struct sc_entry *e)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_size = (off_t)e->st.size;
	st.st_ino = (ino_t)e->st.ino;
	st.st_dev = (dev_t)e->st.dev;
	st.st_mode = (mode_t)e->st.mode;
	st.st_mtim.tv_sec = statsnap_sec(e->st.mtime);
	st.st_mtim.tv_nsec = statsnap_nsec(e->st.mtime);
	st.st_ctim.tv_sec = statsnap_sec(e->st.ctime);
	st.st_ctim.tv_nsec = statsnap_nsec(e->st.ctime);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || fileio_write_all(fd, data, size) != 0)
		abort();
	close(fd);
	struct statcache *sc = statcache_load(root);
	const uint8_t h[16] = {7};
	for (size_t i = 0; i < sc->nloaded; i++) {
		const struct sc_entry *e = &sc->loaded[i];
		struct stat st = stat_of(e);
		size_t len;
		const char *l = statcache_dir_get(sc, sc->keys[i], &st, &len);
		if (l) {
			/* the walk's reading of a listing (walk.c entries_from_blob) */
			for (size_t off = 0; off < len;) {
				off++;
				size_t n = strnlen(l + off, len - off);
				if (off + n >= len)
					break;
				off += n + 1;
			}
		}
		(void)statcache_lookup(sc, sc->keys[i], &st);
		const struct sc_entry *pe = NULL;
		(void)statcache_prestat(sc, sc->keys[i], false, &st, &pe);
		if (i % 3 == 1) {
			if (e->list)
				statcache_dir_put(sc, sc->keys[i], &st, "\4x", 3, e->st.mtime + 1);
			else
				statcache_store(sc, sc->keys[i], &st, h, e->st.mtime + 1);
		}
	}
	struct stat st = {.st_size = 1};
	statcache_store(sc, "new", &st, h, 1);
	statcache_dir_put(sc, "new/", &st, "", 0, 1);
	(void)statcache_save(sc);
	statcache_free(sc);
	sc = statcache_load(root);
	statcache_free(sc);
	return 0;
}
