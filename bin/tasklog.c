#include "tasklog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "termsafe.h"

#define DEFAULT_MAX (4LL << 20)
#define CHUNK 65536

long long tasklog_max(void)
{
	const char *v = getenv("VX_LOG_MAX");
	if (!v || !*v)
		return DEFAULT_MAX;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
	if (shift)
		end++;
	if (errno || end == v || *end || n < 0 || n > (1LL << 40) >> shift || n << shift < 1024) {
		err_warn("VX_LOG_MAX '%s': expected a size of 1K or more, such as 4M; fix: "
			"set it so, or unset it (4M)", v);
		return -1;
	}
	return n << shift;
}

void tasklog_init(struct tasklog *l)
{
	l->spool = -1;
	l->total = 0;
}

void tasklog_no_spool(struct tasklog *l)
{
	l->spool = -2; /* as when spooling failed: never tried again */
}

/* An unnamed file of this user's in TMPDIR (absolute, proc.h), else /tmp:
 * nothing another user can name, link or open. */
static int spool_open(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *dir = tmp && *tmp ? tmp : "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	char *path = xasprintf("%s/vx-log-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static bool write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

void tasklog_add(struct tasklog *l, struct strbuf *kept, size_t max, const char *s, size_t n)
{
	size_t room = kept->len < max ? max - kept->len : 0;
	if (l->total == kept->len && n > room && l->spool == -1) {
		/* outgrown: from here on the whole output is on disk */
		l->spool = spool_open();
		if (l->spool < 0 || !write_all(l->spool, kept->buf ? kept->buf : "", kept->len)) {
			err_warn_errno("unable to keep a task's output in TMPDIR; "
				       "only its first %zu bytes are shown", max);
			if (l->spool >= 0)
				close(l->spool);
			l->spool = -2; /* tried */
		}
	}
	if (l->spool >= 0 && !write_all(l->spool, s, n)) {
		err_warn_errno("unable to keep a task's output in TMPDIR");
		close(l->spool);
		l->spool = -2;
	}
	strbuf_add(kept, s, n < room ? n : room);
	l->total += n;
}

void tasklog_end(struct tasklog *l, struct strbuf *kept, size_t max)
{
	if (l->total <= max)
		return;
	char *m = xasprintf("%svx: output cut at %zu bytes of %zu (VX_LOG_MAX)\n",
		kept->len && kept->buf[kept->len - 1] != '\n' ? "\n" : "", kept->len, l->total);
	strbuf_add(kept, m, strlen(m));
	free(m);
}

bool tasklog_print(const struct tasklog *l, FILE *f, const char *prefix)
{
	if (l->spool < 0)
		return false;
	/* whole lines per write; a line longer than a chunk is shown in pieces */
	char *buf = xmalloc(2 * CHUNK);
	size_t have = 0;
	off_t at = 0;
	for (;;) {
		ssize_t n = pread(l->spool, buf + have, 2 * CHUNK - have, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at += n;
		have += (size_t)n;
		char *nl = memrchr(buf, '\n', have);
		size_t upto = nl ? (size_t)(nl - buf) + 1 : have >= CHUNK ? have : 0;
		termsafe_lines(f, prefix, buf, upto);
		memmove(buf, buf + upto, have - upto);
		have -= upto;
	}
	termsafe_lines(f, prefix, buf, have);
	free(buf);
	return true;
}

void tasklog_free(struct tasklog *l)
{
	if (l->spool >= 0)
		close(l->spool);
	l->spool = -1;
}
