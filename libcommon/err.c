#include "err.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


static const char *prog = "vx";

/* what err_die runs before exit (jsonl.h's flush of the records written so
 * far): set by the writer itself, so err.c depends on nothing above it */
static void (*die_hook)(void);

void err_at_die(void (*hook)(void))
{
	die_hook = hook;
}

void err_init(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	if (argv0 && *argv0)
		prog = slash ? slash + 1 : argv0;
}

const char *err_prog(void)
{
	return prog;
}

static void vwarn(const char *fmt, va_list ap, int errnum)
{
	char msg[4096], line[4096 + 512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	int n = errnum ? snprintf(line, sizeof(line), "%s: %s: %s\n", prog, msg, strerror(errnum))
		       : snprintf(line, sizeof(line), "%s: %s\n", prog, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* one write: a whole line, never split by another process's output
	 * on the same file (vx run's tasks, 2>&1) */
	fflush(stderr);
	ssize_t w = write(STDERR_FILENO, line, (size_t)n);
	(void)w;
}

void err_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap, 0);
	va_end(ap);
}

void err_warn_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap, e);
	va_end(ap);
}

void err_die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap, 0);
	va_end(ap);
	if (die_hook)
		die_hook();
	exit(code);
}

void err_die_errno(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap, e);
	va_end(ap);
	if (die_hook)
		die_hook();
	exit(code);
}

static void *oom(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(VX_EXIT_FAIL);
	}
	return p;
}

void *xmalloc(size_t n)
{
	return oom(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return oom(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n)
{
	return oom(realloc(p, n ? n : 1));
}

void *xgrow(void *p, size_t nr, size_t *alloc, size_t size)
{
	size_t a = *alloc ? *alloc : 64;
	while (a < nr) {
		if (a > SIZE_MAX / 2)
			oom(NULL);
		a *= 2;
	}
	if (size && a > SIZE_MAX / size)
		oom(NULL);
	p = xrealloc(p, a * size);
	*alloc = a;
	return p;
}

char *xstrdup(const char *s)
{
	return oom(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return oom(strndup(s, n));
}

char *xasprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom(NULL);
	return s;
}

int err_wait_status(int wstatus)
{
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : VX_EXIT_SIGNAL + WTERMSIG(wstatus);
}
