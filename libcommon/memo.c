/* memo.c: see memo.h. */
#include "memo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "atomicw.h"
#include "err.h"
#include "fileio.h"
#include "statsnap.h"

#define MEMO_MAGIC "vx-memo "

/* The header line for these, NUL-terminated, into buf: its length */
static size_t header(char *buf, size_t cap, const char *kind, unsigned version, const void *body,
	size_t len)
{
	int n = snprintf(buf, cap, MEMO_MAGIC "%s %u %zu %016" PRIx64 "\n", kind, version, len,
		(uint64_t)XXH3_64bits(body, len));
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

static enum memo_status damaged(const char *path, const char *why)
{
	err_warn("%s: a damaged memo (%s), ignored: the work it saved is redone and the file "
		 "rewritten", path, why);
	return MEMO_DAMAGED;
}

enum memo_status memo_load(struct memo *m, const char *path, const char *kind, unsigned version)
{
	memset(m, 0, sizeof(*m));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? MEMO_ABSENT : MEMO_STALE;
	struct stat st;
	size_t n = 0;
	char *data = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fileio_read_fd(fd, &n) : NULL;
	close(fd);
	if (!data)
		return MEMO_STALE;
	/* "vx-memo <kind> <version> ": anything else is no memo of ours */
	char want[96];
	int wn = snprintf(want, sizeof(want), MEMO_MAGIC "%s %u ", kind, version);
	if (wn <= 0 || (size_t)wn >= sizeof(want) || n < (size_t)wn ||
		memcmp(data, want, (size_t)wn) != 0) {
		free(data);
		return MEMO_STALE;
	}
	char *nl = memchr(data, '\n', n);
	char *end;
	errno = 0;
	unsigned long long len = nl ? strtoull(data + wn, &end, 10) : 0;
	if (!nl || errno || end == data + wn || *end != ' ' || nl - end != 17) {
		free(data);
		return damaged(path, "its header is cut short");
	}
	size_t head = (size_t)(nl + 1 - data);
	if (len != n - head) {
		free(data);
		return damaged(path, len > n - head ? "shorter than its header says"
						    : "longer than its header says");
	}
	char sum[17];
	snprintf(sum, sizeof(sum), "%016" PRIx64, (uint64_t)XXH3_64bits(nl + 1, (size_t)len));
	if (memcmp(end + 1, sum, 16) != 0) {
		free(data);
		return damaged(path, "its checksum does not match");
	}
	m->data = data;
	m->body = nl + 1;
	m->len = (size_t)len;
	m->mtime = statsnap_ns(st.st_mtim);
	return MEMO_OK;
}

void memo_free(struct memo *m)
{
	free(m->data);
	memset(m, 0, sizeof(*m));
}

int memo_save(const char *path, const char *kind, unsigned version, const void *body, size_t len,
	mode_t mode)
{
	char head[128];
	size_t hl = header(head, sizeof(head), kind, version, body, len);
	if (!hl) {
		errno = EINVAL;
		return -1;
	}
	struct atomicw w;
	if (atomicw_open(&w, path, mode) != 0)
		return -1;
	if (atomicw_write(&w, head, hl) != 0 || atomicw_write(&w, body, len) != 0) {
		int e = errno;
		atomicw_abort(&w);
		errno = e;
		return -1;
	}
	return atomicw_commit(&w);
}
