/* The tracer's records writer (sandbox/trace_records.c): how its records
 * meet the fd. A SOCK_SEQPACKET socket keeps each write() as one message,
 * so the test sees the writes themselves: a record's newline must go in
 * the record's write, and into a pipe-like fd no write may pass PIPE_BUF
 * bytes unless it is one line, or the bridge's relay, writing its dns
 * lines to the same fd, could land inside a record. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trace_int.h"
#include "unit.h"

static struct out o;
static struct tracer t;

static void emit_path(size_t len, char fill)
{
	struct ev e = {.op = "openat", .access = 'r'};
	e.path = malloc(len + 2);
	e.path[0] = '/';
	memset(e.path + 1, fill, len);
	e.path[len + 1] = 0;
	e.resolved = strdup(e.path);
	trace_emit(&t, 42, &e, ENOENT, false);
	trace_ev_clear(&e);
}

/* Every message on fd until it would block: their count, all of them in
 * *all; torn: those not ending a line; fat: those past PIPE_BUF holding
 * more than one line. */
static int drain(int fd, char **all, size_t *alen, size_t *biggest, int *torn, int *fat)
{
	static char m[1 << 20];
	int n = 0;
	*all = NULL, *alen = 0, *biggest = 0, *torn = 0, *fat = 0;
	for (;;) {
		ssize_t k = recv(fd, m, sizeof(m), MSG_DONTWAIT);
		if (k <= 0)
			break;
		n++;
		if (m[k - 1] != '\n')
			(*torn)++;
		if ((size_t)k > *biggest)
			*biggest = (size_t)k;
		if ((size_t)k > PIPE_BUF && memchr(m, '\n', (size_t)k) != m + k - 1)
			(*fat)++;
		*all = realloc(*all, *alen + (size_t)k + 1);
		memcpy(*all + *alen, m, (size_t)k);
		*alen += (size_t)k;
		(*all)[*alen] = 0;
	}
	return n;
}

static int lines(const char *s)
{
	int n = 0;
	for (; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

int main(void)
{
	int sv[2], sz = 1 << 20, torn, fat;
	char *all;
	size_t alen, biggest;
	FILE *f;

	t.o = &o;
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));

	/* a record larger than the buffer: one write, its newline in it */
	trace_out_init(&o, sv[0]);
	CHECK(o.piped);
	emit_path(40000, 'a');
	CHECK(drain(sv[1], &all, &alen, &biggest, &torn, &fat) == 1);
	CHECK(torn == 0);
	CHECK(alen > sizeof(o.buf) && all[alen - 1] == '\n' && lines(all) == 1);
	free(all);

	/* into a pipe-like fd: whole lines, no write past PIPE_BUF but a line
	 * that alone is longer */
	for (int i = 0; i < 100; i++)
		emit_path(100, 'b');
	emit_path(10000, 'c');
	for (int i = 0; i < 100; i++)
		emit_path(100, 'd');
	trace_end_record(&o, "end", NULL);
	CHECK(drain(sv[1], &all, &alen, &biggest, &torn, &fat) > 2);
	CHECK(torn == 0);
	CHECK(fat == 0 && biggest > 10000);
	CHECK(lines(all) == 202);
	CHECK(strstr(all, "{\"trace\":\"end\",\"events\":202}\n") != NULL);
	free(all);
	jsonw_free(&o.w);
	close(sv[0]);
	close(sv[1]);

	/* a regular file is no pipe: its buffer goes in one write */
	CHECK((f = tmpfile()) != NULL);
	memset(&o, 0, sizeof(o));
	trace_out_init(&o, fileno(f));
	CHECK(!o.piped);
	for (int i = 0; i < 100; i++)
		emit_path(100, 'e');
	trace_end_record(&o, "end", NULL);
	CHECK(!o.failed);
	fclose(f);
	jsonw_free(&o.w);
	return UNIT_END("sandbox_trace");
}
