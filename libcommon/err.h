/* err.h: the one error and exit-code API of every vx program.
 *
 * Messages go to stderr as "prog: message" (lowercase, no full stop, the
 * subject quoted), prog being the name set once by err_init(argv[0]).
 * Exit codes are the table below, the same in every program and man page:
 * 0 success, 1 failure (a task, a write, a system call), 2 usage or config.
 * vx-sandbox exits with its task's status, so its own failure takes 125, as
 * env(1) and timeout(1) do; a child that could not be executed 127; a child
 * killed by signal N counts 128+N, as the shell says it (err_wait_status).
 */
#ifndef VX_ERR_H
#define VX_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum {
	VX_EXIT_OK = 0,
	VX_EXIT_FAIL = 1,
	VX_EXIT_USAGE = 2,
	VX_EXIT_SANDBOX = 125, /* vx-sandbox could not make the boundary: task not run */
	VX_EXIT_NOEXEC = 127,  /* a child's exec failed */
	VX_EXIT_SIGNAL = 128,  /* + N: killed by signal N */
	VX_EXIT_SIGINT = 130,
	VX_EXIT_SIGTERM = 143,
};

void err_init(const char *argv0);
/* A waited child's status (waitpid's) as an exit code: its own, or
 * VX_EXIT_SIGNAL + N when signal N killed it. */
int err_wait_status(int wstatus);
const char *err_prog(void);

/* Print "prog: msg\n" to stderr. */
void err_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with ": strerror(errno)" appended. */
void err_warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What err_die runs before it exits: jsonl_out_init() sets the records'
 * flush here, so a dying stage's records so far are out and checked. */
void err_at_die(void (*hook)(void));
/* Print and exit with code (after the err_at_die hook). */
void err_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void err_die_errno(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Allocation that never returns NULL: dies with "out of memory". */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one way an array grows (git's ALLOC_GROW). XGROW(v, nr, alloc) makes
 * room for nr elements in the array v, of which alloc (a size_t) are
 * allocated: nothing when nr <= alloc, else v is reallocated to 64
 * elements, or twice alloc, doubled again until nr fit, and alloc says the
 * new count. So n appends cost O(n) copies. Like xrealloc it never returns
 * without the room: a count or byte size past SIZE_MAX dies with "out of
 * memory". v, nr and alloc are evaluated more than once: plain lvalues and
 * side-effect-free counts only. Bytes that grow are a strbuf (strbuf.h). */
#define XGROW(v, nr, alloc)                                                    \
	do {                                                                       \
		if ((nr) > (alloc))                                                    \
			(v) = xgrow((v), (nr), &(alloc), sizeof(*(v)));                    \
	} while (0)
/* XGROW's slow half: p reallocated for at least nr elements of size bytes,
 * *alloc updated. */
void *xgrow(void *p, size_t nr, size_t *alloc, size_t size);

#endif
