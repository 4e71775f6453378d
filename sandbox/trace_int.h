/* trace_int.h: what the tracer's files share; not for callers outside the
 * tracer (trace.h is). One struct tracer per traced task, made by
 * trace_tracer_init() and read by every file; its out buffer is written only
 * by trace_records.c. Who owns what:
 *   trace.c          the ptrace loop: seize, wait, dispatch each stop by its
 *                    seccomp data value; the processes and their pending
 *                    accesses (struct proc, struct ev); the tracer's state
 *   trace_calls.c    the table of traced calls and the decoders: the paths a
 *                    stopped call names, read or written, judged against
 *                    the plan; the widened directories' first listing
 *   trace_resolve.c  a path resolved with the symlink cache (struct dcache)
 *   trace_connect.c  the network stops: connect made by pid 1 on the task's
 *                    socket (unix, inet), a unix socket refused; the
 *                    sock_diag socket and pid 1's own filter
 *   trace_arm.c      the task's side: the trace filter, the fast path's
 *                    preload (vx-trace.so, VX_TRACE_ROOT), the exec check
 *   trace_records.c  the records: the trace file, the out buffer, the access,
 *                    connect, start, end, off and placeholder records
 *   trace_notify.c   the seccomp user-notification prototype (bench only)
 */
#ifndef VX_SANDBOX_TRACE_INT_H
#define VX_SANDBOX_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jsonw.h"
#include "path.h"
#include "strmap.h"
#include "trace.h"

/* <linux/ptrace.h> clashes with <sys/ptrace.h>; this is its ABI struct. */
struct sc_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t ip, sp;
	union {
		struct { uint64_t nr, args[6]; } entry;
		struct { int64_t rval; uint8_t is_error; } exit;
		struct { uint64_t nr, args[6]; uint32_t ret_data; } seccomp;
	};
};
#define SC_OP_EXIT 2
#define SC_OP_SECCOMP 3

/* How a call names its paths: argument indexes (-1: none; dfd -1 means
 * AT_FDCWD), and whether each path is read ('r'), written ('w') or either by
 * the open flags ('o'). flags: the AT_* flags argument, or -1. */
struct sc {
	int nr;
	const char *name;
	signed char dfd, path, dfd2, path2, flags;
	char cls, cls2;
	bool nofollow; /* the last component is never followed */
};

struct out {
	int fd;
	bool piped;   /* fd is no regular file: flushed in runs of whole lines
	               * of at most PIPE_BUF bytes (trace_records.c out_flush) */
	char buf[1 << 16];
	size_t len;
	bool failed;
	unsigned long events;
	struct jsonw w;
};

struct dlink {
	char *name, *target; /* target NULL until first followed */
	bool none;           /* a large directory's name found no link */
};

struct dent {
	char *path;
	unsigned gen;     /* valid while equal to the tracer's generation */
	bool opaque;      /* unreadable: lstat each name */
	bool large;       /* not listed: each name lstat'd once, the answer kept */
	struct strmap links;
};

struct dcache {
	struct strmap dirs;
	unsigned gen;
};

struct ev {
	const char *op;
	char access;   /* 'r', 'w', or 'u' (a unix socket refused, R-32) */
	bool widened;  /* a granted read R-26 reports, or a granted write
	                * beside a file grant (issue 35 item 5) */
	bool existed;  /* such a write: its path was there at the call */
	const char *grant; /* such a write: the file grant, as written */
	bool fast;     /* made from the fast path's page: a failure comes again */
	char *path, *resolved;
};

struct proc {
	pid_t pid;
	bool seen;
	bool inval;    /* its call changes names: invalidate again at its exit */
	char *inval_dir; /* only this directory's entry (an unlinked symlink) */
	int nev;
	struct ev ev[2];
	char *cwd;     /* /proc/<pid>/cwd as last read; NULL: read it again */
};

struct tracer {
	const struct sb_request *r;
	const struct plan *p;
	struct out *o;
	struct proc *procs;
	size_t nprocs, cap;
	/* the directories a file grant widened, and what each held at start */
	struct strlist wdirs;
	struct strlist *wnames;
	const struct sc *bynr[1024];
	struct dcache dc;
	/* issue 35 item 5: the names a task made beside a file grant (each
	 * write event there, held until the end: a name still there then is
	 * reported, an atomic writer's temporary renamed away is not) */
	struct ev *made;
	pid_t *madepid;
	size_t nmade, capmade;
	struct strmap madeidx;
	/* FAST_ENV_SEEN and FAST_ENV_FDIRS as trace_arm_prepare set them for
	 * the task (NULL: unset) */
	char *seen, *fdirs;
	/* VX_TRACE_STATS: stops by call (entry), exit stops, signal-delivery
	 * stops and the rest (fork, clone, exec events, a new process's or
	 * thread's first stop, group stops), said at the end */
	bool stats;
	unsigned long stops[1024], exits, sigs, others;
};

/* trace.c */
/* Frees an event's strings and zeroes it. */
void trace_ev_clear(struct ev *e);
/* The tracer's state for one task on o (r->trace_fd), and the trace's start
 * record: shared by the ptrace loop and the notification prototype. */
void trace_tracer_init(struct tracer *t, struct out *o, const struct sb_request *r,
	const struct plan *p);
void trace_tracer_free(struct tracer *t, struct out *o);

/* trace_calls.c */
extern const struct sc trace_calls[];
extern const size_t trace_ncalls;
/* The target of /proc/<pid>/<what> when it is a path, else NULL; malloc'ed. */
char *trace_proc_link(pid_t pid, const char *what);
/* One path argument of a stopped call (a: its arguments): 1 with e filled
 * when it is an event, 0 when not. */
int trace_judge(struct tracer *t, struct proc *pr, const struct sc *c, const uint64_t *a,
	int dfd_i, int path_i, char cls, bool last_nofollow, struct ev *e);
/* 'n', 'u', 'c' or 0: how call nr changes what the caches hold. */
char trace_changes(int nr);
void trace_cwds_forget(struct tracer *t);
/* What each widened directory held when the task started. */
void trace_snapshot(struct tracer *t);
/* Issue 35 item 5, at the exit of a write beside a file grant that went
 * through (e->widened, access 'w'): said now when it changed a name that
 * was there at the call and the task did not make; held when it made one
 * (trace_made_end says the ones still there at the end). Takes e's
 * strings. */
void trace_made(struct tracer *t, pid_t pid, struct ev *e);
void trace_made_end(struct tracer *t);

/* trace_resolve.c */
/* abs with every symlink followed as far as the path exists, "." and ".."
 * as the kernel walks them, /proc/self as pid's; malloc'ed. */
char *trace_resolve(struct dcache *dc, pid_t pid, const char *abs, bool follow_last);
void trace_dcache_free(struct dcache *c);

/* trace_connect.c: each skips the task's call with its result. */
void trace_on_connect(struct tracer *t, struct proc *pr, const struct sc_info *si);
void trace_refuse_unix(struct tracer *t, struct proc *pr, const struct sc_info *si);

/* trace_arm.c: at an exec stop, FAST_ENV_ROOT and FAST_ENV_SEEN defaced
 * unless they hold what vx-sandbox set; a process that cannot be checked is
 * killed. */
void trace_env_check(struct tracer *t, pid_t pid);
/* The value of FAST_ENV_SEEN for plan p (fastpath.h), malloc'ed; NULL when
 * it cannot be written (a newline in a path). */
char *trace_seen(const struct plan *p, const char *root);
/* The value of FAST_ENV_FDIRS for plan p, malloc'ed ("" when it has none:
 * always set, so a shim that finds it missing sends every write up). */
char *trace_fdirs(const struct plan *p);

/* trace_records.c: each record is one line on t->o (buffered; the end
 * record flushes). trace_out_init() points o at fd and notes its kind. */
void trace_out_init(struct out *o, int fd);
void trace_emit(struct tracer *t, pid_t pid, const struct ev *e, int err, bool unfinished);
void trace_emit_net(struct tracer *t, pid_t pid, const char *host, unsigned port, int sock,
	long rc);
void trace_start_record(struct tracer *t);
void trace_end_record(struct out *o, const char *state, const char *why);

#endif
