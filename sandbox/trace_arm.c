/* trace_arm.c: the task's side of the tracer: the trace filter (which
 * calls stop), the fast path's preload of vx-trace.so, and the check of
 * its root at each exec (see trace.h, fastpath.h, trace_int.h). */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "err.h"
#include "fastpath.h"
#include "filter.h"
#include "strbuf.h"

/* ---- the trace filter: which calls stop (hand-written BPF) ----
 *
 * A second filter beside the task's (libseccomp cannot compare the
 * instruction pointer): SECCOMP_RET_TRACE for every call of the table,
 * SECCOMP_RET_ALLOW for the rest; the kernel takes the stricter answer of
 * the two filters, so every refusal of the task's filter still wins. Left
 * out in the kernel: fstat() (newfstatat/statx with AT_EMPTY_PATH names no
 * path) and, with the fast path, the shim's calls from its page
 * (fastpath.h), except an open for reading while a file grant widens a
 * directory (R-26 reports such a read although it succeeds). */

enum { BLK_TRACE, BLK_IP, BLK_FSTATAT, BLK_STATX, BLK_OPENAT };

/* The block a call jumps to. */
static int trace_block(int nr)
{
	switch (nr) {
	case __NR_newfstatat: return BLK_FSTATAT;
	case __NR_statx: return BLK_STATX;
	case __NR_openat: return BLK_OPENAT;
	case __NR_faccessat: case __NR_faccessat2: case __NR_readlinkat: case __NR_mkdirat:
	case __NR_openat2: /* the shim's O_PATH walk with no symlink (fastpath.h) */
#ifdef __NR_access
	case __NR_access: case __NR_readlink: case __NR_mkdir: case __NR_creat:
#endif
		return BLK_IP;
	default: return BLK_TRACE;
	}
}

#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args[i]))
#define INS(c, k, t, f) ((struct sock_filter){(uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k)})

int trace_bpf(const struct plan *p, bool fast, struct sock_fprog *prog)
{
	size_t cap = 2 * trace_ncalls + 32, n = 0, chain, blk[5];
	struct sock_filter *v = xcalloc(cap, sizeof(*v));
	const uint32_t at_empty = AT_EMPTY_PATH, wr = FAST_OPEN_WRITE;

	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0); /* the task's filter kills */
	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	chain = n;
	for (size_t i = 0; i < trace_ncalls; i++)
		if (trace_calls[i].nr >= 0)
			v[n++] = INS(BPF_JMP | BPF_JEQ | BPF_K, trace_calls[i].nr, 0, 0);
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	/* fstat: no path */
	blk[BLK_FSTATAT] = n;
	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3), 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JSET | BPF_K, at_empty, 0, 1);
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JA, 0, 0, 0); /* to BLK_IP, fixed below */
	blk[BLK_STATX] = n;
	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2), 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JSET | BPF_K, at_empty, 0, 1);
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JA, 0, 0, 0); /* to BLK_IP */
	/* an open for reading in a plan with widened directories always stops */
	blk[BLK_OPENAT] = n;
	if (p->wfiles.n) {
		v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2), 0, 0);
		v[n++] = INS(BPF_JMP | BPF_JSET | BPF_K, wr, 0, 0); /* a read: to BLK_TRACE */
	}
	blk[BLK_IP] = n;
	if (fast) {
		v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4, 0, 0);
		v[n++] = INS(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(FAST_TRAMP_ADDR >> 32), 0, 3);
		v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer), 0, 0);
		v[n++] = INS(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)FAST_TRAMP_SIZE, 1, 0);
		v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	}
	blk[BLK_TRACE] = n;
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_TRACE, 0, 0);
	/* the fstat blocks' jumps to BLK_IP, the read open's to BLK_TRACE */
	v[blk[BLK_STATX] - 1].k = (uint32_t)(blk[BLK_IP] - blk[BLK_STATX]);
	v[blk[BLK_OPENAT] - 1].k = (uint32_t)(blk[BLK_IP] - blk[BLK_OPENAT]);
	if (p->wfiles.n)
		v[blk[BLK_OPENAT] + 1].jf = (uint8_t)(blk[BLK_TRACE] - blk[BLK_OPENAT] - 2);
	/* the chain: each call's jump to its block */
	for (size_t i = 0, k = chain; i < trace_ncalls; i++) {
		size_t to;
		if (trace_calls[i].nr < 0)
			continue;
		to = blk[trace_block(trace_calls[i].nr)] - k - 1;
		if (to > 255) {
			free(v);
			err_warn("seccomp: the trace filter's jumps do not fit");
			return -1;
		}
		v[k++].jt = (uint8_t)to;
	}
	prog->len = (unsigned short)n;
	prog->filter = v;
	return 0;
}
#undef INS
#undef ARG_LO

/* The shim, opened on the host before the sandbox hides anything: its path
 * and an fd (-1: none, or VX_TRACE_FAST=0). */
static char *shim_path;
static int shim_fd = -1;

void trace_shim_open(void)
{
	char exe[PATH_MAX], *slash;
	const char *fast = getenv("VX_TRACE_FAST");
	ssize_t n;
	if (fast && !strcmp(fast, "0"))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = 0;
	if (!(slash = strrchr(exe, '/')))
		return;
	*slash = 0;
	for (int i = 0; i < 2 && shim_fd < 0; i++) {
		free(shim_path);
		shim_path = xasprintf(i ? "%s/../lib/vx/%s" : "%s/%s", exe, FAST_SHIM_NAME);
		shim_fd = open(shim_path, O_RDONLY | O_CLOEXEC);
	}
}

/* The shim's path in the task's view: where it lies when the task can read
 * it there, else a copy in the task's private /tmp (vx installed under
 * /tmp, or inside the workspace, is hidden from the task); NULL when
 * neither. */
static char *shim_in_view(void)
{
	struct stat st;
	off_t off = 0;
	char *copy;
	int out;
	if (shim_fd < 0)
		return NULL;
	if (!access(shim_path, R_OK))
		return xstrdup(shim_path);
	if (fstat(shim_fd, &st))
		return NULL;
	copy = xasprintf("/tmp/.%s", FAST_SHIM_NAME);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0500);
	if (out < 0) {
		free(copy);
		return NULL;
	}
	while (off < st.st_size && sendfile(out, shim_fd, &off, (size_t)(st.st_size - off)) > 0)
		;
	if (close(out) || off != st.st_size) {
		unlink(copy);
		free(copy);
		return NULL;
	}
	return copy;
}

static void seen_line(struct strbuf *sb, char sign, const char *path, bool *bad)
{
	if (strchr(path, '\n'))
		*bad = true;
	strbuf_addch(sb, sign);
	strbuf_addstr(sb, path);
	strbuf_addch(sb, '\n');
}

char *trace_seen(const struct plan *p, const char *root)
{
	struct strbuf sb = STRBUF_INIT;
	bool bad = false;
	for (size_t i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (!path_is_within(root, o->path))
			continue;
		if (o->kind == OP_RO || o->kind == OP_RW) {
			if (o->isdir)
				seen_line(&sb, '+', o->path, &bad);
		} else {
			seen_line(&sb, '-', o->path, &bad);
		}
	}
	for (size_t i = 0; i < p->wfiles.n; i++) {
		char *d = path_dirname(p->wfiles.v[i]);
		seen_line(&sb, '-', d, &bad);
		free(d);
	}
	if (bad || !sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_setlen(&sb, sb.len - 1); /* no newline after the last */
	return strbuf_detach(&sb, NULL);
}

char *trace_fdirs(const struct plan *p)
{
	struct strbuf sb = STRBUF_INIT;
	if (!p->fdirs.n)
		return xstrdup("");
	for (size_t i = 0; i < p->fdirs.n; i++) {
		if (strchr(p->fdirs.v[i], '\n')) {
			strbuf_release(&sb);
			return xstrdup("*");
		}
		if (i)
			strbuf_addch(&sb, '\n');
		strbuf_addstr(&sb, p->fdirs.v[i]);
	}
	return strbuf_detach(&sb, NULL);
}

/* Set up the task's side of the fast path: 1 when the shim is readable in
 * the task's view and the environment names it, 0 when not (every call then
 * stops). VX_TRACE_FAST=0 turns it off (the benchmark's baseline). */
static bool fast_env(const struct sb_request *r, const struct plan *p)
{
	char *shim = shim_in_view(), *pre, *seen, *fdirs;
	const char *old, *asan;
	int bad;
	if (!shim)
		return false;
	seen = trace_seen(p, r->root);
	fdirs = trace_fdirs(p);
	bad = (seen ? setenv(FAST_ENV_SEEN, seen, 1) : unsetenv(FAST_ENV_SEEN)) ||
	      setenv(FAST_ENV_FDIRS, fdirs, 1);
	free(seen);
	free(fdirs);
	if (bad) {
		free(shim);
		return false;
	}
	/* after the task's own preloads: a wrapper of theirs (fakeroot's
	 * stat) keeps calling into ours, not around it */
	old = getenv("LD_PRELOAD");
	pre = old && *old ? xasprintf("%s:%s", old, shim) : xstrdup(shim);
	/* an ASan program would refuse to start with a library preloaded
	 * ahead of its runtime; ours wraps no allocator */
	asan = getenv("ASAN_OPTIONS");
	if (setenv("LD_PRELOAD", pre, 1) || setenv(FAST_ENV_ROOT, r->root, 1) ||
		(!(asan && strstr(asan, "verify_asan_link_order")) &&
			setenv("ASAN_OPTIONS", asan && *asan ? xasprintf("%s:verify_asan_link_order=0", asan)
				: "verify_asan_link_order=0", 1))) {
		free(pre);
		free(shim);
		return false;
	}
	free(pre);
	free(shim);
	return true;
}

int trace_arm_prepare(const struct sb_request *r, const struct plan *p, struct sock_fprog *prog)
{
	return trace_bpf(p, fast_env(r, p), prog);
}

/* Issue 20 item 13: the shim takes the workspace root (FAST_ENV_ROOT),
 * where a failed read is never an event (FAST_ENV_SEEN) and which writes
 * it sends up (FAST_ENV_FDIRS, issue 35 item 5) from the task's
 * environment, so a task that set either to its own liking would keep its
 * failed reads from being made again, traced: hidden from the report. At
 * each exec stop, before the new program's first instruction (its loader
 * included), every such variable in its environment that does not hold
 * exactly what vx-sandbox set is renamed in place (its first letter
 * lowered): the shim then goes without it, and makes those calls again.
 * What the program does to its own memory afterwards is the fast path's
 * residual (fastpath.h). A process whose environment cannot be read or
 * fixed is killed, never let run unchecked. */
static bool env_as_set(const struct tracer *t, const char *e)
{
	const char *const names[] = {FAST_ENV_ROOT, FAST_ENV_SEEN, FAST_ENV_FDIRS};
	const char *const want[] = {t->r->root, t->seen, t->fdirs};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(e, names[i], n) && e[n] == '=')
			return want[i] && !strcmp(e + n + 1, want[i]);
	}
	return true; /* not ours */
}

void trace_env_check(struct tracer *t, pid_t pid)
{
	char sp[64], buf[1024], *env, *p;
	unsigned long start = 0, end = 0;
	int fd, field = 2;
	ssize_t n;
	struct iovec l, rm;
	if (shim_fd < 0)
		return; /* no shim, no root read */
	snprintf(sp, sizeof(sp), "/proc/%d/stat", (int)pid);
	fd = open(sp, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0 || !(buf[n] = 0, p = strrchr(buf, ')'))) {
		kill(pid, SIGKILL);
		return;
	}
	/* fields after the comm: env_start and env_end are the 50th and 51st */
	for (p++; *p && field < 51; p++)
		if (*p == ' ' && ++field == 50)
			start = strtoul(p + 1, NULL, 10);
		else if (*p == ' ' && field == 51)
			end = strtoul(p + 1, NULL, 10);
	if (!start || end <= start || end - start > (64UL << 20)) {
		kill(pid, SIGKILL);
		return;
	}
	env = xmalloc(end - start + 1);
	l = (struct iovec){env, end - start};
	rm = (struct iovec){(void *)start, end - start};
	if (process_vm_readv(pid, &l, 1, &rm, 1, 0) != (ssize_t)(end - start)) {
		free(env);
		kill(pid, SIGKILL);
		return;
	}
	env[end - start] = 0;
	for (size_t off = 0; off < end - start; off += strlen(env + off) + 1) {
		const char *e = env + off;
		unsigned long at, word;
		if (env_as_set(t, e))
			continue;
		at = start + off;
		errno = 0;
		word = (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)(at & ~7UL), 0);
		if (errno) {
			kill(pid, SIGKILL);
			break;
		}
		((unsigned char *)&word)[at & 7] = (unsigned char)(e[0] | 0x20);
		if (ptrace(PTRACE_POKEDATA, pid, (void *)(at & ~7UL), (void *)word)) {
			kill(pid, SIGKILL);
			break;
		}
	}
	free(env);
}
