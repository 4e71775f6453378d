/* trace.c: the ptrace loop of the sandbox's pid 1 (see trace.h). */
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "fastpath.h"
#include "filter.h"
#include "jsonw.h"
#include "path.h"
#include "strmap.h"

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

#define CALL(n, d, p, d2, p2, f, c, c2, nf) {__NR_##n, #n, d, p, d2, p2, f, c, c2, nf}
static const struct sc calls[] = {
#ifdef __NR_open
	CALL(open, -1, 0, -1, -1, -1, 'o', 0, false),
	CALL(creat, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(stat, -1, 0, -1, -1, -1, 'r', 0, false),
	CALL(lstat, -1, 0, -1, -1, -1, 'r', 0, true),
	CALL(access, -1, 0, -1, -1, -1, 'r', 0, false),
	CALL(readlink, -1, 0, -1, -1, -1, 'r', 0, true),
	CALL(mkdir, -1, 0, -1, -1, -1, 'w', 0, true),
	CALL(rmdir, -1, 0, -1, -1, -1, 'w', 0, true),
	CALL(unlink, -1, 0, -1, -1, -1, 'w', 0, true),
	CALL(rename, -1, 0, -1, 1, -1, 'w', 'w', true),
	CALL(link, -1, 0, -1, 1, -1, 'r', 'w', true),
	CALL(symlink, -1, -1, -1, 1, -1, 0, 'w', true),
	CALL(chmod, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(chown, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(lchown, -1, 0, -1, -1, -1, 'w', 0, true),
	CALL(utime, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(utimes, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(futimesat, 0, 1, -1, -1, -1, 'w', 0, false),
	CALL(mknod, -1, 0, -1, -1, -1, 'w', 0, true),
#endif
	CALL(openat, 0, 1, -1, -1, -1, 'o', 0, false),
	CALL(openat2, 0, 1, -1, -1, -1, 'o', 0, false),
	CALL(newfstatat, 0, 1, -1, -1, 3, 'r', 0, false),
	CALL(statx, 0, 1, -1, -1, 2, 'r', 0, false),
	CALL(faccessat, 0, 1, -1, -1, -1, 'r', 0, false),
	CALL(faccessat2, 0, 1, -1, -1, 3, 'r', 0, false),
	CALL(readlinkat, 0, 1, -1, -1, -1, 'r', 0, true),
	CALL(execve, -1, 0, -1, -1, -1, 'r', 0, false),
	CALL(execveat, 0, 1, -1, -1, 4, 'r', 0, false),
	CALL(mkdirat, 0, 1, -1, -1, -1, 'w', 0, true),
	CALL(unlinkat, 0, 1, -1, -1, -1, 'w', 0, true),
	CALL(renameat, 0, 1, 2, 3, -1, 'w', 'w', true),
	CALL(renameat2, 0, 1, 2, 3, -1, 'w', 'w', true),
	CALL(linkat, 0, 1, 2, 3, 4, 'r', 'w', true),
	CALL(symlinkat, -1, -1, 1, 2, -1, 0, 'w', true),
	CALL(fchmodat, 0, 1, -1, -1, -1, 'w', 0, false),
#ifdef __NR_fchmodat2
	CALL(fchmodat2, 0, 1, -1, -1, 3, 'w', 0, false),
#endif
	CALL(fchownat, 0, 1, -1, -1, 4, 'w', 0, false),
	CALL(truncate, -1, 0, -1, -1, -1, 'w', 0, false),
	CALL(utimensat, 0, 1, -1, -1, 3, 'w', 0, false),
	CALL(mknodat, 0, 1, -1, -1, -1, 'w', 0, true),
	/* judged not, followed only for the cwd cache (changes()) */
	CALL(chdir, -1, -1, -1, -1, -1, 0, 0, false),
	CALL(fchdir, -1, -1, -1, -1, -1, 0, 0, false),
};
#define NCALLS (sizeof(calls) / sizeof(*calls))

int trace_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd >= 0)
		return fd;
	if (errno == EEXIST) {
		/* no O_TRUNC before the checks: a hard link to another's file
		 * must not be emptied; O_NONBLOCK: a FIFO does not hang us */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
			st.st_nlink == 1 && !ftruncate(fd, 0) &&
			!fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
			return fd;
		if (fd >= 0) {
			close(fd);
			err_warn("the trace file '%s' exists and is not a regular file of yours "
				"with one link, so it is left alone; fix: remove it or pick a new name",
				path);
			return -1;
		}
	}
	err_warn_errno("unable to open the trace file '%s'%s", path,
		errno == ELOOP ? " (a symlink is never followed)" : "");
	return -1;
}

int trace_filter(scmp_filter_ctx f)
{
	/* a child made with CLONE_UNTRACED would run unseen (its traced calls
	 * would fail with ENOSYS, but nothing would say so): refuse it */
	struct scmp_arg_cmp untraced = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_UNTRACED, CLONE_UNTRACED);
	if (seccomp_rule_add_array(f, SCMP_ACT_ERRNO(EPERM), __NR_clone, 1, &untraced)) {
		err_warn("seccomp: unable to refuse CLONE_UNTRACED");
		return -1;
	}
	return 0;
}

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
	size_t cap = 2 * NCALLS + 32, n = 0, chain, blk[5];
	struct sock_filter *v = xcalloc(cap, sizeof(*v));
	const uint32_t at_empty = AT_EMPTY_PATH, wr = FAST_OPEN_WRITE;

	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	v[n++] = INS(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	v[n++] = INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0); /* the task's filter kills */
	v[n++] = INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	chain = n;
	for (size_t i = 0; i < NCALLS; i++)
		if (calls[i].nr >= 0)
			v[n++] = INS(BPF_JMP | BPF_JEQ | BPF_K, calls[i].nr, 0, 0);
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
	for (size_t i = 0, k = chain; i < NCALLS; i++) {
		size_t to;
		if (calls[i].nr < 0)
			continue;
		to = blk[trace_block(calls[i].nr)] - k - 1;
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

/* Set up the task's side of the fast path: 1 when the shim is readable in
 * the task's view and the environment names it, 0 when not (every call then
 * stops). VX_TRACE_FAST=0 turns it off (the benchmark's baseline). */
static bool fast_env(const struct sb_request *r)
{
	char *shim = shim_in_view(), *pre;
	const char *old, *asan;
	if (!shim)
		return false;
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

int trace_arm(const struct sb_request *r, const struct plan *p)
{
	struct sock_fprog prog;
	int rc;
	if (trace_bpf(p, fast_env(r), &prog))
		return -1;
	rc = filter_load(&prog);
	free(prog.filter);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* sock_diag for the connect judgement (bound_here), opened before pid 1's
 * own filter refuses that netlink protocol */
static int diag_fd = -1;

int trace_confine(const struct sb_request *r)
{
	scmp_filter_ctx f = filter_build_tracer(r);
	int rc;
	if (diag_fd < 0)
		diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (!f)
		return -1;
	rc = seccomp_load(f);
	seccomp_release(f);
	if (rc)
		errno = -rc;
	return rc ? -1 : 0;
}

int trace_seize(pid_t task)
{
	long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
		PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		PTRACE_O_EXITKILL;
	return ptrace(PTRACE_SEIZE, task, 0, (void *)opts) ? -1 : 0;
}

/* ---- output ---- */

struct out {
	int fd;
	char buf[1 << 16];
	size_t len;
	bool failed;
	unsigned long events;
	struct jsonw w;
};

static void out_flush(struct out *o)
{
	size_t off = 0;
	while (off < o->len && !o->failed) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = true;
		else
			off += (size_t)n;
	}
	o->len = 0;
}

static void out_line(struct out *o)
{
	const char *s = o->w.buf;
	size_t n = o->w.len;
	if (o->len + n + 1 > sizeof(o->buf))
		out_flush(o);
	if (n + 1 > sizeof(o->buf)) {
		/* a record larger than the buffer goes out on its own */
		while (n && !o->failed) {
			ssize_t k = write(o->fd, s, n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				o->failed = true;
			else
				s += k, n -= (size_t)k;
		}
		if (write(o->fd, "\n", 1) != 1)
			o->failed = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len++] = '\n';
}

/* s as valid UTF-8 (each invalid byte as U+FFFD); *bad set when it was not. */
static char *utf8_clean(const char *s, bool *bad)
{
	size_t n = strlen(s), j = 0;
	char *o = xmalloc(3 * n + 1);
	const unsigned char *u = (const unsigned char *)s;
	*bad = false;
	for (size_t i = 0; i < n;) {
		size_t len = u[i] < 0x80 ? 1 : (u[i] & 0xe0) == 0xc0 ? 2 :
			(u[i] & 0xf0) == 0xe0 ? 3 : (u[i] & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++)
			ok = (u[i + k] & 0xc0) == 0x80;
		if (ok && len == 2 && u[i] < 0xc2)
			ok = false; /* overlong */
		if (ok && len == 3 && ((u[i] == 0xe0 && u[i + 1] < 0xa0) ||
			(u[i] == 0xed && u[i + 1] >= 0xa0)))
			ok = false; /* overlong, or a surrogate */
		if (ok && len == 4 && ((u[i] == 0xf0 && u[i + 1] < 0x90) || u[i] > 0xf4 ||
			(u[i] == 0xf4 && u[i + 1] >= 0x90)))
			ok = false;
		if (ok) {
			memcpy(o + j, s + i, len);
			j += len;
			i += len;
		} else {
			memcpy(o + j, "\xef\xbf\xbd", 3);
			j += 3;
			i++;
			*bad = true;
		}
	}
	o[j] = 0;
	return o;
}

/* "key": the path, plus "key_hex": its bytes when they are not UTF-8. */
static void put_path(struct jsonw *w, const char *key, const char *s)
{
	bool bad;
	char *clean = utf8_clean(s, &bad);
	jsonw_key(w, key);
	jsonw_str(w, clean);
	free(clean);
	if (bad) {
		size_t n = strlen(s);
		char *hex = xmalloc(2 * n + 1), *k = xasprintf("%s_hex", key);
		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
		jsonw_key(w, k);
		jsonw_str(w, hex);
		free(hex);
		free(k);
	}
}

/* Every errno by its name (glibc's table), never a number (issue 18 item 4). */
static const char *errno_name(int e)
{
	return e ? strerrorname_np(e) : NULL;
}

/* ---- the judgement ---- */

struct dlink {
	char *name, *target; /* target NULL until first followed */
};

struct dent {
	char *path;
	unsigned gen;     /* valid while equal to the tracer's generation */
	bool opaque;      /* unreadable: lstat each name */
	struct strmap links;
};

struct dcache {
	struct strmap dirs;
	unsigned gen;
};


struct ev {
	const char *op;
	char access;   /* 'r', 'w', or 'u' (a unix socket refused, R-32) */
	bool widened;  /* a granted read R-26 reports */
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
	/* VX_TRACE_STATS: stops by call (entry) and exit stops, said at the end */
	bool stats;
	unsigned long stops[1024], exits;
};

static void ev_clear(struct ev *e)
{
	free(e->path);
	free(e->resolved);
	memset(e, 0, sizeof(*e));
}

static void emit(struct tracer *t, pid_t pid, const struct ev *e, int err, bool unfinished)
{
	struct jsonw *w = &t->o->w;
	const char *en = errno_name(err);
	char num[16];
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "op");
	jsonw_str(w, e->op);
	jsonw_key(w, "access");
	jsonw_str(w, e->access == 'w' ? "write" : e->access == 'u' ? "unix" : "read");
	put_path(w, "path", e->path);
	put_path(w, "resolved", e->resolved);
	jsonw_key(w, "errno");
	if (err && !en) {
		snprintf(num, sizeof(num), "E%d", err);
		jsonw_str(w, num);
	} else {
		jsonw_str(w, en);
	}
	if (e->widened) {
		jsonw_key(w, "widened");
		jsonw_bool(w, true);
	}
	if (unfinished) {
		jsonw_key(w, "unfinished");
		jsonw_bool(w, true);
	}
	jsonw_key(w, "pid");
	jsonw_num(w, pid);
	jsonw_close(w, '}');
	out_line(t->o);
	t->o->events++;
}

static struct proc *proc_get(struct tracer *t, pid_t pid, bool make)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	if (!make)
		return NULL;
	if (t->nprocs == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->procs = xrealloc(t->procs, t->cap * sizeof(*t->procs));
	}
	memset(&t->procs[t->nprocs], 0, sizeof(*t->procs));
	t->procs[t->nprocs].pid = pid;
	return &t->procs[t->nprocs++];
}

static void proc_drop(struct tracer *t, pid_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		if (t->procs[i].pid != pid)
			continue;
		for (int k = 0; k < t->procs[i].nev; k++) {
			emit(t, pid, &t->procs[i].ev[k], 0, true);
			ev_clear(&t->procs[i].ev[k]);
		}
		free(t->procs[i].cwd);
		free(t->procs[i].inval_dir);
		t->procs[i] = t->procs[--t->nprocs];
		return;
	}
}

/* A NUL-terminated string from the tracee: the rest of its page and the
 * next one in one call (a later page that is not mapped just ends the
 * transfer there), then on page by page for a longer one. */
static char *read_str(pid_t pid, uint64_t addr)
{
	size_t cap = 8192 + 1, len = 0;
	char *s;
	if (!addr)
		return NULL;
	s = xmalloc(cap);
	while (len < PATH_MAX) {
		size_t chunk = 4096 - ((addr + len) & 4095);
		struct iovec l, rm[2];
		ssize_t n;
		if (len + chunk + 4096 + 1 > cap) {
			cap = len + chunk + 4096 + 1;
			s = xrealloc(s, cap);
		}
		l.iov_base = s + len;
		l.iov_len = chunk + 4096;
		rm[0].iov_base = (void *)(uintptr_t)(addr + len);
		rm[0].iov_len = chunk;
		rm[1].iov_base = (void *)(uintptr_t)(addr + len + chunk);
		rm[1].iov_len = 4096;
		n = process_vm_readv(pid, &l, 1, rm, 2, 0);
		if (n <= 0) {
			free(s);
			return NULL;
		}
		if (memchr(s + len, 0, (size_t)n))
			return s;
		len += (size_t)n;
	}
	s[len] = 0;
	return s;
}

static char *proc_link(pid_t pid, const char *what)
{
	char lp[64], buf[PATH_MAX];
	ssize_t n;
	snprintf(lp, sizeof(lp), "/proc/%d/%s", (int)pid, what);
	n = readlink(lp, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return buf[0] == '/' ? xstrdup(buf) : NULL;
}

/* ---- resolution, with a cache of each directory's symlinks ----
 *
 * resolve() walks a path the way the kernel would, following each symlink
 * as far as the path exists. Instead of an lstat per component it looks the
 * component up in its directory's entry of the cache: the directory's
 * symlinks (names, targets read on first use), listed once with getdents.
 * Within the task only symlink, link and rename make a name a symlink (an
 * open creates regular files, io_uring is refused, mounts are refused) and
 * only unlink or rename take one away: each of those invalidates the cache
 * when its stop is judged and again at its exit stop, so an entry listed
 * while the call was in flight goes too. A directory that cannot be listed
 * falls back to an lstat per component; one that does not exist is not
 * cached (the rest of the path is lexical, as the kernel would find it). */

static void dent_clear(struct dent *d)
{
	for (size_t i = 0; i < d->links.cap; i++) {
		struct dlink *l = d->links.keys[i] ? d->links.vals[i] : NULL;
		if (l) {
			free(l->name);
			free(l->target);
			free(l);
		}
	}
	strmap_free(&d->links);
}

static void dcache_free(struct dcache *c)
{
	for (size_t i = 0; i < c->dirs.cap; i++) {
		struct dent *d = c->dirs.keys[i] ? c->dirs.vals[i] : NULL;
		if (d) {
			dent_clear(d);
			free(d->path);
			free(d);
		}
	}
	strmap_free(&c->dirs);
}

static void link_add(struct dent *d, const char *name)
{
	struct dlink *l = xcalloc(1, sizeof(*l));
	l->name = xstrdup(name);
	strmap_put(&d->links, l->name, l);
}

/* The directory's entry, listed now if stale; NULL when dir does not exist
 * as a directory (nothing below it can be a symlink). */
static struct dent *dir_get(struct dcache *c, const char *dir)
{
	struct dent *d = strmap_get(&c->dirs, dir);
	DIR *dh;
	struct dirent *de;
	int fd;
	if (d && d->gen == c->gen)
		return d;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return NULL;
	if (!d) {
		d = xcalloc(1, sizeof(*d));
		d->path = xstrdup(dir);
		strmap_put(&c->dirs, d->path, d);
	}
	dent_clear(d);
	d->gen = c->gen;
	d->opaque = true;
	if (fd < 0 || !(dh = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return d;
	}
	errno = 0;
	while ((de = readdir(dh))) {
		struct stat st;
		if (de->d_type == DT_LNK || (de->d_type == DT_UNKNOWN &&
			!fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)))
			link_add(d, de->d_name);
		errno = 0;
	}
	d->opaque = errno != 0;
	closedir(dh);
	return d;
}

/* Is dir/name a symlink? 1 with *target (borrowed), 0 not (or absent), -1
 * when dir itself is absent. */
static int is_link(struct dcache *c, const char *dir, const char *name, const char **target)
{
	struct dent *d = dir_get(c, *dir ? dir : "/");
	struct dlink *l;
	char buf[PATH_MAX], *full;
	ssize_t n;
	struct stat st;
	if (!d)
		return -1;
	full = xasprintf("%s/%s", dir, name);
	if (d->opaque) {
		int rc = !lstat(full, &st) && S_ISLNK(st.st_mode) &&
			(n = readlink(full, buf, sizeof(buf) - 1)) > 0;
		free(full);
		if (!rc)
			return 0;
		buf[n] = 0;
		/* not cached: kept in the entry only until the next listing */
		if (!(l = strmap_get(&d->links, name)))
			link_add(d, name), l = strmap_get(&d->links, name);
		free(l->target);
		l->target = xstrdup(buf);
		*target = l->target;
		return 1;
	}
	if (!(l = strmap_get(&d->links, name))) {
		free(full);
		return 0;
	}
	if (!l->target) {
		n = readlink(full, buf, sizeof(buf) - 1);
		if (n <= 0) {
			free(full);
			return 0;
		}
		buf[n] = 0;
		l->target = xstrdup(buf);
	}
	free(full);
	*target = l->target;
	return 1;
}

/* abs with every symlink followed as far as the path exists (in the
 * sandbox's own view, which pid 1 shares), the rest appended as written. */
static char *resolve(struct dcache *dc, const char *abs, bool follow_last)
{
	char *rest = xstrdup(abs), *cur = xstrdup("");
	int links = 0;
	for (;;) {
		char *s = rest, *slash, *cand;
		const char *target;
		int k;
		while (*s == '/')
			s++;
		if (!*s)
			break;
		slash = strchr(s, '/');
		if (slash)
			*slash = 0;
		if (!strcmp(s, ".")) {
			memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		if (!strcmp(s, "..")) {
			char *l = strrchr(cur, '/');
			if (l)
				*l = 0;
			memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		k = is_link(dc, cur, s, &target);
		cand = xasprintf("%s/%s", cur, s);
		if (k < 0) {
			/* from here on nothing exists: the rest is lexical */
			char *tail = slash ? xasprintf("%s/%s", cand, slash + 1) : xstrdup(cand);
			char *out = path_normalize(tail);
			free(tail);
			free(cand);
			free(cur);
			free(rest);
			return out;
		}
		if (k > 0 && (slash || follow_last) && links++ < 40) {
			char *nr = slash ? xasprintf("%s/%s", target, slash + 1) : xstrdup(target);
			if (target[0] == '/')
				cur[0] = 0;
			free(rest);
			rest = nr;
			free(cand);
			continue;
		}
		free(cur);
		cur = cand;
		memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
	}
	free(rest);
	if (!*cur) {
		free(cur);
		return xstrdup("/");
	}
	return cur;
}

/* The innermost plan operation holding path, or NULL (the host's root). */
static const struct op *op_for(const struct plan *p, const char *path)
{
	const struct op *best = NULL;
	size_t bl = 0;
	for (size_t i = 0; i < p->nops; i++) {
		size_t l = strlen(p->ops[i].path);
		if ((!best || l > bl) && path_is_within(p->ops[i].path, path))
			best = &p->ops[i], bl = l;
	}
	return best;
}

static bool read_granted(const struct plan *p, const char *path)
{
	const struct op *o = op_for(p, path);
	return !o || o->kind == OP_RO || o->kind == OP_RW || o->kind == OP_SCRATCH;
}

static bool write_granted(const struct plan *p, const char *path)
{
	const struct op *o = op_for(p, path);
	return o && ((o->kind == OP_RW && !o->protect) || o->kind == OP_SCRATCH);
}

/* a read the bound directory of a file grant lets through, of an
 * entry that was there when the task started, that no read grant covers. */
static bool widened(const struct tracer *t, const char *path)
{
	for (size_t i = 0; i < t->p->wfiles.n; i++)
		if (!strcmp(t->p->wfiles.v[i], path))
			return false;
	for (size_t i = 0; i < t->p->readable.n; i++)
		if (path_is_within(t->p->readable.v[i], path))
			return false;
	for (size_t i = 0; i < t->wdirs.n; i++) {
		const char *d = t->wdirs.v[i];
		size_t dl = strlen(d);
		char *first;
		bool found = false;
		if (!path_is_within(d, path))
			continue;
		if (!path[dl])
			return true; /* the listing of the directory itself */
		first = xstrdup(path + dl + (d[dl - 1] == '/' ? 0 : 1));
		if (strchr(first, '/'))
			*strchr(first, '/') = 0;
		for (size_t k = 0; k < t->wnames[i].n && !found; k++)
			found = !strcmp(t->wnames[i].v[k], first);
		free(first);
		if (found)
			return true;
	}
	return false;
}

/* R-26 counts what a read returns (a file's bytes, a directory's listing, a
 * program run), not a stat: every shell stats its cwd. */
static bool content_read(const struct sc *c)
{
	return c->cls == 'o' || c->nr == __NR_execve || c->nr == __NR_execveat;
}

static bool is_write_open(uint64_t flags)
{
	return (flags & FAST_OPEN_WRITE) != 0;
}

/* How a call changes what the caches hold: 'n' it makes or moves a name
 * that may be a symlink or a directory (rename, link, symlink), 'u' it may
 * remove a symlink (unlink), 'c' it changes the cwd; 0 none. */
static char changes(int nr)
{
	switch (nr) {
#ifdef __NR_rename
	case __NR_rename: case __NR_link: case __NR_symlink:
		return 'n';
	case __NR_unlink:
		return 'u';
#endif
	case __NR_renameat: case __NR_renameat2: case __NR_linkat: case __NR_symlinkat:
		return 'n';
	case __NR_unlinkat:
		return 'u';
	case __NR_chdir: case __NR_fchdir:
		return 'c';
	default:
		return 0;
	}
}

static void cwds_forget(struct tracer *t)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].cwd);
		t->procs[i].cwd = NULL;
	}
}

/* One path argument of a stopped call: 1 when it is an event, 0 when not. */
static int judge(struct tracer *t, struct proc *pr, const struct sc *c, const uint64_t *a,
	int dfd_i, int path_i, char cls, bool last_nofollow, struct ev *e)
{
	char *path, *base = NULL, *abs, *res;
	int dfd = dfd_i >= 0 ? (int)a[dfd_i] : AT_FDCWD;
	uint64_t atflags = c->flags >= 0 ? a[(int)c->flags] : 0;
	bool nofollow = last_nofollow;

	pid_t pid = pr->pid;

	if (path_i < 0 || !(path = read_str(pid, a[path_i])))
		return 0;
	if (!*path) {
		free(path); /* AT_EMPTY_PATH: the fd, no name */
		return 0;
	}
	if (cls == 'o') {
		uint64_t fl = a[c->path + 1];
		if (c->nr == __NR_openat2) {
			struct open_how how;
			struct iovec l = {&how, sizeof(how)}, rm = {(void *)(uintptr_t)a[2], sizeof(how)};
			fl = process_vm_readv(pid, &l, 1, &rm, 1, 0) == (ssize_t)sizeof(how) ? how.flags : 0;
		}
		cls = is_write_open(fl) ? 'w' : 'r';
		nofollow = (fl & O_NOFOLLOW) != 0;
	} else if (c->flags >= 0 && c->nr != __NR_utimensat && c->nr != __NR_fchownat) {
		nofollow = nofollow || (atflags & AT_SYMLINK_NOFOLLOW);
	}
	if (path[0] != '/') {
		char what[32];
		if (dfd == AT_FDCWD) {
			/* the cwd changes only by chdir/fchdir (traced) or a rename */
			if (!pr->cwd)
				pr->cwd = proc_link(pid, "cwd");
			base = pr->cwd ? xstrdup(pr->cwd) : NULL;
		} else {
			snprintf(what, sizeof(what), "fd/%d", dfd);
			base = proc_link(pid, what);
		}
		if (!base) {
			free(path);
			return 0; /* a socket or pipe fd: not a directory, the call fails */
		}
	}
	abs = base ? path_join(base, path) : path_normalize(path);
	free(base);
	if (cls == 'r' && !path_is_within(t->r->root, abs)) {
		free(abs);
		free(path);
		return 0;
	}
	res = resolve(&t->dc, abs, !nofollow);
	free(abs);
	if (changes(c->nr) == 'u') {
		/* unlinking a symlink: its directory is listed again */
		char *slash = strrchr(res, '/');
		struct dent *d;
		*slash = 0;
		d = strmap_get(&t->dc.dirs, *res ? res : "/");
		if (d && strmap_get(&d->links, slash + 1)) {
			d->gen = t->dc.gen - 1;
			pr->inval = true;
			free(pr->inval_dir);
			pr->inval_dir = xstrdup(d->path);
		}
		*slash = '/';
	}
	e->widened = false;
	if (cls == 'r' ? (!path_is_within(t->r->root, res) ||
			(read_granted(t->p, res) && !(e->widened = content_read(c) && widened(t, res))))
		       : write_granted(t->p, res)) {
		free(res);
		free(path);
		return 0;
	}
	e->op = c->name;
	e->access = cls;
	e->path = path;
	e->resolved = res;
	return 1;
}

/* Skip the stopped call, its result rc (0 or -errno). A tracee whose call
 * cannot be skipped is killed, never let through. */
static void skip_call(pid_t pid, long rc)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs)) {
		kill(pid, SIGKILL);
		return;
	}
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)rc;
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs))
		kill(pid, SIGKILL);
}

/* The task's datagram socket(AF_UNIX) without allow.unixSockets (filter.h,
 * skipped with EPERM, and recorded. The domain is a register, so
 * nothing the task does meanwhile changes what was judged. No peer is
 * known yet, so the record names the family and the socket type. */
static void refuse_unix(struct tracer *t, struct proc *pr, const struct sc_info *si)
{
	struct ev e = {.op = "socket", .access = 'u'};
	unsigned type = (unsigned)si->seccomp.args[1] & 0xf;
	skip_call(pr->pid, -EPERM);
	e.path = xstrdup(type == SOCK_STREAM ? "AF_UNIX SOCK_STREAM" : type == SOCK_DGRAM
		? "AF_UNIX SOCK_DGRAM" : type == SOCK_SEQPACKET ? "AF_UNIX SOCK_SEQPACKET" : "AF_UNIX");
	e.resolved = xstrdup(e.path);
	emit(t, pr->pid, &e, EPERM, false);
	ev_clear(&e);
}

/* ---- connect (filter.h): pid 1 connects the task's socket itself ----
 *
 * At the task's connect() stop pid 1 takes the socket (pidfd_getfd: the same
 * open file description), reads the address once into its own memory, and
 * connects that socket to that address, then skips the task's call with
 * the result. Another thread of the task can neither rewrite the address
 * after it was judged nor dup2() another socket onto the fd number: what
 * was judged is what connects. A unix socket is reached through an O_PATH
 * fd of the file pid 1 judged (/proc/self/fd/N), never by its name again. */

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Is a unix socket of the sandbox's network namespace bound to the file
 * (dev, ino)? Only the task's processes live there, so it is one the task
 * made. The kernel's dump names each bound socket's file (its dev in the
 * kernel's encoding, its inode in 32 bits). */
static bool bound_here(dev_t dev, ino_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
		.nlh = {.nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		.r = {.sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_show = UDIAG_SHOW_VFS},
	};
	static long buf[8192];
	bool found = false, done = false;
	if (diag_fd < 0 || send(diag_fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return false;
	while (!done) {
		int n = (int)recv(diag_fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			for (struct rtattr *a = (void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				const struct unix_diag_vfs *v = RTA_DATA(a);
				if (a->rta_type == UNIX_DIAG_VFS && RTA_PAYLOAD(a) >= sizeof(*v) &&
					v->udiag_vfs_ino == (uint32_t)ino &&
					major(dev) == v->udiag_vfs_dev >> 20 &&
					minor(dev) == (v->udiag_vfs_dev & 0xfffff))
					found = true;
			}
		}
	}
	return found;
}

/* connect(2) on the task's socket as the task would see it. A blocking
 * connect may wait on a listener that is itself a stopped tracee (a full
 * backlog), and pid 1 waits with it: the wait is capped at 10 s (the
 * task's own SO_SNDTIMEO when shorter), then ETIMEDOUT. */
static long connect_as_task(int sock, const void *sa, socklen_t len)
{
	struct timeval old, cap = {10, 0};
	socklen_t ol = sizeof(old);
	int fl = fcntl(sock, F_GETFL);
	bool capped = false;
	long rc;
	if (fl >= 0 && !(fl & O_NONBLOCK) &&
		!getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) &&
		((!old.tv_sec && !old.tv_usec) || old.tv_sec >= cap.tv_sec))
		capped = !setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &cap, sizeof(cap));
	rc = connect(sock, sa, len) ? -errno : 0;
	if (capped) {
		(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof(old));
		if (rc == -EINPROGRESS || rc == -EAGAIN)
			rc = -ETIMEDOUT;
	}
	return rc;
}

/* A unix socket's connect. An abstract name lives in the sandbox's own
 * network namespace (only the task's sockets are there); a path is
 * resolved as the task sees it (its root, its cwd) and reached when it is
 * a socket the task bound itself, or with allow.unixSockets. Another
 * existing socket is refused with EPERM and recorded; a path that is no
 * socket, or exists nowhere in the task's view, gets the kernel's answer
 * silently. */
static long connect_unix(struct tracer *t, struct proc *pr, int sock,
	const struct sockaddr_un *sun, socklen_t len)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	char name[sizeof(sun->sun_path) + 1], dir[64];
	struct sockaddr_un at = {.sun_family = AF_UNIX};
	struct open_how how = {.flags = O_PATH | O_CLOEXEC};
	struct ev e = {.op = "connect", .access = 'u'};
	struct stat st;
	int dfd, fd;
	long rc;
	if (len <= off || sun->sun_family != AF_UNIX || !sun->sun_path[0])
		return connect_as_task(sock, sun, len);
	memcpy(name, sun->sun_path, len - off);
	name[len - off] = 0;
	snprintf(dir, sizeof(dir), "/proc/%d/%s", (int)pr->pid, name[0] == '/' ? "root" : "cwd");
	if (name[0] == '/')
		how.resolve = RESOLVE_IN_ROOT;
	if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ENOENT;
	fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof(how));
	rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc)
		return rc;
	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return -ECONNREFUSED;
	}
	if (t->r->unix_sockets || bound_here(st.st_dev, st.st_ino)) {
		snprintf(at.sun_path, sizeof(at.sun_path), "/proc/self/fd/%d", fd);
		rc = connect_as_task(sock, &at, sizeof(at));
		close(fd);
		return rc;
	}
	/* the socket's own path, symlinks followed, in the task's view */
	snprintf(dir, sizeof(dir), "fd/%d", fd);
	e.resolved = proc_link(getpid(), dir);
	close(fd);
	if (!e.resolved)
		e.resolved = xstrdup(name);
	e.path = xstrdup(name);
	emit(t, pr->pid, &e, EPERM, false);
	ev_clear(&e);
	return -EPERM;
}

/* An inet address outside the sandbox (neither loopback nor any): its
 * text in host, its port in *port. The namespace has no route there. */
static bool outside(const struct sockaddr_storage *ss, socklen_t len, char *host, unsigned *port)
{
	const struct sockaddr_in *in = (const void *)ss;
	const struct sockaddr_in6 *in6 = (const void *)ss;
	uint32_t a;
	if (ss->ss_family == AF_INET && len >= sizeof(*in)) {
		a = ntohl(in->sin_addr.s_addr);
		*port = ntohs(in->sin_port);
		return a >> 24 != 127 && a && inet_ntop(AF_INET, &in->sin_addr, host, INET6_ADDRSTRLEN);
	}
	if (ss->ss_family != AF_INET6 || len < sizeof(*in6) ||
		IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		return false;
	*port = ntohs(in6->sin6_port);
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memcpy(&a, in6->sin6_addr.s6_addr + 12, 4);
		a = ntohl(a);
		return a >> 24 != 127 && a &&
			inet_ntop(AF_INET, in6->sin6_addr.s6_addr + 12, host, INET6_ADDRSTRLEN);
	}
	return inet_ntop(AF_INET6, &in6->sin6_addr, host, INET6_ADDRSTRLEN) != NULL;
}

/* {"op":"connect","access":"net","addr":...,"port":...,"proto":...}: a
 * direct dial out of the sandbox (issue 18 item 5). */
static void emit_net(struct tracer *t, pid_t pid, const char *host, unsigned port, int sock,
	long rc)
{
	struct jsonw *w = &t->o->w;
	int type = 0;
	socklen_t tl = sizeof(type);
	(void)getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl);
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "op");
	jsonw_str(w, "connect");
	jsonw_key(w, "access");
	jsonw_str(w, "net");
	jsonw_key(w, "addr");
	jsonw_str(w, host);
	jsonw_key(w, "port");
	jsonw_num(w, port);
	jsonw_key(w, "proto");
	jsonw_str(w, type == SOCK_DGRAM ? "udp" : type == SOCK_STREAM ? "tcp" : "other");
	jsonw_key(w, "errno");
	jsonw_str(w, errno_name((int)-rc));
	jsonw_key(w, "pid");
	jsonw_num(w, pid);
	jsonw_close(w, '}');
	out_line(t->o);
	t->o->events++;
}

static void on_connect(struct tracer *t, struct proc *pr, const struct sc_info *si)
{
	struct sockaddr_storage ss;
	int len = (int)si->seccomp.args[2], sock = -1, pidfd, dom = 0;
	socklen_t dl = sizeof(dom);
	char host[INET6_ADDRSTRLEN];
	unsigned port = 0;
	long rc = 0;
	memset(&ss, 0, sizeof(ss));
	/* the kernel's order: the fd, the address, then the socket */
	pidfd = (int)syscall(SYS_pidfd_open, pr->pid, PIDFD_THREAD);
	if (pidfd < 0) {
		kill(pr->pid, SIGKILL);
		return;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)si->seccomp.args[0], 0);
	if (sock < 0)
		rc = errno == EBADF ? -EBADF : -EPERM;
	close(pidfd);
	if (!rc && (len < 0 || (size_t)len > sizeof(ss))) {
		rc = -EINVAL;
	} else if (!rc && len) {
		struct iovec l = {&ss, (size_t)len};
		struct iovec rm = {(void *)(uintptr_t)si->seccomp.args[1], (size_t)len};
		if (process_vm_readv(pr->pid, &l, 1, &rm, 1, 0) != len)
			rc = -EFAULT;
	}
	if (!rc && getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl))
		rc = -errno;
	if (!rc && dom == AF_UNIX) {
		rc = connect_unix(t, pr, sock, (const struct sockaddr_un *)&ss, (socklen_t)len);
	} else if (!rc) {
		rc = connect_as_task(sock, &ss, (socklen_t)len);
		if ((dom == AF_INET || dom == AF_INET6) && outside(&ss, (socklen_t)len, host, &port))
			emit_net(t, pr->pid, host, port, sock, rc);
	}
	if (sock >= 0)
		close(sock);
	skip_call(pr->pid, rc);
}

static void on_seccomp(struct tracer *t, struct proc *pr)
{
	struct sc_info si;
	const struct sc *c;
	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pr->pid, (void *)sizeof(si), &si) <= 0 ||
		si.op != SC_OP_SECCOMP || si.seccomp.nr >= 1024)
		return;
	if (si.seccomp.nr == __NR_socket && si.seccomp.ret_data == FILTER_TRACE_UNIX) {
		refuse_unix(t, pr, &si);
		return;
	}
	if (si.seccomp.nr == __NR_connect && si.seccomp.ret_data == FILTER_TRACE_CONNECT) {
		t->stops[__NR_connect]++;
		on_connect(t, pr, &si);
		return;
	}
	if (!(c = t->bynr[si.seccomp.nr]))
		return;
	t->stops[si.seccomp.nr]++;
	pr->nev = 0;
	switch (changes(c->nr)) {
	case 'n':
		t->dc.gen++;
		cwds_forget(t);
		pr->inval = true;
		break;
	case 'c':
		cwds_forget(t);
		pr->inval = true;
		break;
	}
	if (c->cls && judge(t, pr, c, si.seccomp.args, c->dfd, c->path, c->cls,
			c->nofollow, &pr->ev[pr->nev]))
		pr->nev++;
	if (c->cls2 && judge(t, pr, c, si.seccomp.args, c->dfd2, c->path2, c->cls2,
			c->nofollow, &pr->ev[pr->nev]))
		pr->nev++;
	/* the shim's read open in a widened plan (trace_bpf): only its success
	 * is this stop's to record; a failure the shim makes again, traced */
	if (si.ip - FAST_TRAMP_ADDR < FAST_TRAMP_SIZE)
		for (int k = 0; k < pr->nev; k++)
			pr->ev[k].fast = true;
}

static void on_exit_stop(struct tracer *t, struct proc *pr)
{
	struct sc_info si;
	int err = 0;
	if (pr->inval) {
		/* again now the call is done: a listing made while it ran goes */
		struct dent *d = pr->inval_dir ? strmap_get(&t->dc.dirs, pr->inval_dir) : NULL;
		if (d)
			d->gen = t->dc.gen - 1;
		else
			t->dc.gen++;
		cwds_forget(t);
		free(pr->inval_dir);
		pr->inval_dir = NULL;
		pr->inval = false;
	}
	if (!pr->nev)
		return;
	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pr->pid, (void *)sizeof(si), &si) <= 0 ||
		si.op != SC_OP_EXIT)
		return;
	t->exits++;
	if (si.exit.is_error)
		err = (int)-si.exit.rval;
	/* ERESTART*: the call runs again after the signal and stops again */
	if (err >= 512 && err <= 516) {
		for (int k = 0; k < pr->nev; k++)
			ev_clear(&pr->ev[k]);
		pr->nev = 0;
		return;
	}
	for (int k = 0; k < pr->nev; k++) {
		struct ev *e = &pr->ev[k];
		/* a refused access, or a widened read that went through */
		if (e->widened ? !err : err != 0 && !e->fast)
			emit(t, pr->pid, e, err, false);
		ev_clear(e);
	}
	pr->nev = 0;
}

/* Issue 20 item 13: the shim takes the workspace root from the task's
 * environment (FAST_ENV_ROOT), so a task that set it to another path
 * would keep its failed reads there from being made again, traced: hidden
 * from the report. At each exec stop, before the new program's first
 * instruction (its loader included), every FAST_ENV_ROOT in its
 * environment that does not name the root exactly is renamed in place
 * (its first letter lowered): the shim then has no root and makes every
 * failed call again. What the program does to its own memory afterwards
 * is the fast path's residual (fastpath.h). A process whose environment
 * cannot be read or fixed is killed, never let run unchecked. */
static void env_check(struct tracer *t, pid_t pid)
{
	char sp[64], buf[1024], *env, *p;
	unsigned long start = 0, end = 0;
	size_t want = strlen(FAST_ENV_ROOT), rl = strlen(t->r->root);
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
		if (strncmp(e, FAST_ENV_ROOT, want) || e[want] != '=' ||
			(strlen(e + want + 1) == rl && !memcmp(e + want + 1, t->r->root, rl)))
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

static void snapshot(struct tracer *t)
{
	t->wnames = xcalloc(t->p->wfiles.n + 1, sizeof(*t->wnames));
	for (size_t i = 0; i < t->p->wfiles.n; i++) {
		const char *f = t->p->wfiles.v[i], *s = strrchr(f, '/');
		char *d = s && s != f ? xstrndup(f, (size_t)(s - f)) : xstrdup("/");
		DIR *dh;
		struct dirent *de;
		bool dup = false;
		for (size_t k = 0; k < t->wdirs.n && !dup; k++)
			dup = !strcmp(t->wdirs.v[k], d);
		if (dup || !(dh = opendir(d))) {
			free(d);
			continue;
		}
		while ((de = readdir(dh)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				strlist_push(&t->wnames[t->wdirs.n], de->d_name);
		closedir(dh);
		strlist_push(&t->wdirs, d);
		free(d);
	}
}

static void end_record(struct out *o, const char *state, const char *why)
{
	jsonw_reset(&o->w);
	jsonw_open(&o->w, '{');
	jsonw_key(&o->w, "trace");
	jsonw_str(&o->w, state);
	if (why) {
		jsonw_key(&o->w, "reason");
		jsonw_str(&o->w, why);
	}
	jsonw_key(&o->w, "events");
	jsonw_num(&o->w, (double)o->events);
	jsonw_close(&o->w, '}');
	out_line(o);
	out_flush(o);
}

/* What the report needs beside the accesses: the links withheld. */
static void start_record(struct tracer *t)
{
	struct jsonw *w = &t->o->w;
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "trace");
	jsonw_str(w, "start");
	jsonw_key(w, "v");
	jsonw_num(w, 1);
	jsonw_key(w, "task");
	jsonw_str(w, t->r->task_id);
	put_path(w, "root", t->r->root);
	put_path(w, "project", t->r->project);
	jsonw_key(w, "withheld");
	jsonw_open(w, '[');
	for (size_t i = 0; i + 1 < t->p->withheld.n; i += 2) {
		jsonw_open(w, '{');
		put_path(w, "link", t->p->withheld.v[i]);
		put_path(w, "dir", t->p->withheld.v[i + 1]);
		jsonw_close(w, '}');
	}
	jsonw_close(w, ']');
	jsonw_close(w, '}');
	out_line(t->o);
}

void trace_placeholders(const struct sb_request *r, const struct plan *p)
{
	static struct out o;
	o.fd = r->trace_fd;
	for (size_t i = 0; i < p->nph; i++) {
		const struct placeholder *ph = &p->ph[i];
		if (!plan_placeholder_untouched(ph))
			continue;
		jsonw_reset(&o.w);
		jsonw_open(&o.w, '{');
		jsonw_key(&o.w, "trace");
		jsonw_str(&o.w, "placeholder");
		put_path(&o.w, "path", ph->path);
		jsonw_key(&o.w, "grant");
		jsonw_str(&o.w, ph->grant);
		jsonw_close(&o.w, '}');
		out_line(&o);
	}
	out_flush(&o);
	jsonw_free(&o.w);
}

/* The tracer's state for one task, and the trace's start record: shared by
 * the ptrace loop and the notification prototype. */
static void tracer_init(struct tracer *t, struct out *o, const struct sb_request *r,
	const struct plan *p)
{
	memset(t, 0, sizeof(*t));
	o->fd = r->trace_fd;
	t->r = r;
	t->p = p;
	t->o = o;
	for (size_t i = 0; i < NCALLS; i++)
		if (calls[i].nr >= 0 && calls[i].nr < 1024)
			t->bynr[calls[i].nr] = &calls[i];
	t->stats = getenv("VX_TRACE_STATS") != NULL;
	snapshot(t);
	start_record(t);
}

/* Frees what tracer_init and the loops share; each loop frees its own processes. */
static void tracer_free(struct tracer *t, struct out *o)
{
	dcache_free(&t->dc);
	for (size_t i = 0; i < t->wdirs.n; i++)
		strlist_free(&t->wnames[i]);
	free(t->wnames);
	strlist_free(&t->wdirs);
	jsonw_free(&o->w);
}

/* VX_TRACE_STATS: one line of the stops, by call, at the end */
static void stats_say(const struct tracer *t)
{
	if (!t->stats)
		return;
	fprintf(stderr, "%s: trace stats: %lu exit stops; entry stops:", err_prog(), t->exits);
	for (int nr = 0; nr < 1024; nr++)
		if (t->stops[nr])
			fprintf(stderr, " %s %lu", t->bynr[nr] ? t->bynr[nr]->name
				: nr == __NR_connect ? "connect" : "?", t->stops[nr]);
	fputc('\n', stderr);
}

int trace_loop(const struct sb_request *r, const struct plan *p, pid_t task)
{
	static struct out o;
	struct tracer t;
	int task_status = 0;

	tracer_init(&t, &o, r, p);
	proc_get(&t, task, true)->seen = true;
	for (;;) {
		int st, sig, event;
		long req = PTRACE_CONT, data = 0;
		struct proc *pr;
		pid_t pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			proc_drop(&t, pid);
			if (pid == task) {
				task_status = st;
				break;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		pr = proc_get(&t, pid, true);
		sig = WSTOPSIG(st);
		event = st >> 16;
		if (sig == (SIGTRAP | 0x80)) {
			on_exit_stop(&t, pr);
		} else if (event == PTRACE_EVENT_SECCOMP) {
			on_seccomp(&t, pr);
		} else if (event == PTRACE_EVENT_STOP) {
			if (pr->seen && (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
				sig == SIGTTOU)) {
				pr->seen = true;
				ptrace(PTRACE_LISTEN, pid, 0, 0);
				continue;
			}
		} else if (event == PTRACE_EVENT_EXEC) {
			unsigned long former = 0;
			env_check(&t, pid);
			ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
			if ((pid_t)former != pid) {
				/* a thread's exec: its pending access moves to the leader */
				struct proc *fp = proc_get(&t, (pid_t)former, false);
				if (fp) {
					struct proc moved = *fp;
					fp->nev = 0;
					proc_drop(&t, (pid_t)former);
					pr = proc_get(&t, pid, true);
					for (int k = 0; k < pr->nev; k++)
						ev_clear(&pr->ev[k]);
					memcpy(pr->ev, moved.ev, sizeof(pr->ev));
					pr->nev = moved.nev;
				}
			}
		} else if (event == 0) {
			data = sig; /* a signal for the tracee: deliver it */
		}
		pr->seen = true;
		if (pr->nev > 0 || pr->inval)
			req = PTRACE_SYSCALL;
		ptrace(req, pid, 0, (void *)data);
	}
	for (size_t i = 0; i < t.nprocs; i++)
		for (int k = 0; k < t.procs[i].nev; k++) {
			emit(&t, t.procs[i].pid, &t.procs[i].ev[k], 0, true);
			ev_clear(&t.procs[i].ev[k]);
		}
	stats_say(&t);
	end_record(&o, "end", o.failed ? "a write of the trace failed" : NULL);
	if (o.failed)
		fprintf(stderr, "%s: %s: unable to write the access trace: %s\n", err_prog(),
			r->task_id, strerror(errno));
	for (size_t i = 0; i < t.nprocs; i++) {
		free(t.procs[i].cwd);
		free(t.procs[i].inval_dir);
	}
	free(t.procs);
	tracer_free(&t, &o);
	return task_status;
}

void trace_off(const struct sb_request *r, const char *why)
{
	static struct out o;
	fprintf(stderr, "%s: %s: the kernel refuses to trace the task (%s), so its "
		"denied reads and writes go unreported; the sandbox still enforces them\n",
		err_prog(), r->task_id, why);
	o.fd = r->trace_fd;
	end_record(&o, "off", why);
	jsonw_free(&o.w);
}

/* ---- the seccomp user-notification prototype (bench only) ----
 *
 * The same calls sent to pid 1 as notifications instead of ptrace stops;
 * each is judged as above and answered SECCOMP_USER_NOTIF_FLAG_CONTINUE, so
 * the kernel then runs it. Built to measure against ptrace (issue 5,
 * docs/benchmarks.md), not complete: the supervisor never learns a call's
 * result, so an event's errno is the judgement's guess (a hidden read
 * ENOENT, a write past the grants EROFS), a refused mkdir of an existing
 * directory is a false event, a widened read cannot be told from one
 * that failed, the cwd is read again for each relative path (a pid may be
 * reused unseen), and a listing made while a rename runs is not forgotten
 * after it. vx-sandbox uses it only with VX_TRACE_NOTIFY=1 in its
 * environment. */

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

bool trace_notify_wanted(void)
{
	const char *e = getenv("VX_TRACE_NOTIFY");
	return e && *e == '1';
}

static int notify_filter(scmp_filter_ctx f)
{
	for (size_t i = 0; i < NCALLS; i++) {
		int rc;
		if (!calls[i].cls)
			continue;
		if (calls[i].nr == __NR_newfstatat || calls[i].nr == __NR_statx) {
			struct scmp_arg_cmp c = calls[i].nr == __NR_statx
				? SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0)
				: SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0);
			rc = seccomp_rule_add_array(f, SCMP_ACT_NOTIFY, calls[i].nr, 1, &c);
		} else {
			rc = seccomp_rule_add_array(f, SCMP_ACT_NOTIFY, calls[i].nr, 0, NULL);
		}
		if (rc && rc != -EOPNOTSUPP && rc != -EDOM) {
			err_warn("seccomp: unable to notify %s: %s", calls[i].name, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

int trace_notify_child(scmp_filter_ctx f, int ready_w, int go_r)
{
	int fd;
	char c;
	if (notify_filter(f) || seccomp_load(f) || (fd = seccomp_notify_fd(f)) < 0)
		return -1;
	/* pid 1 takes the listener with pidfd_getfd, then lets the task go */
	if (write(ready_w, &fd, sizeof(fd)) != (ssize_t)sizeof(fd) || read(go_r, &c, 1) != 1)
		return -1;
	return 0;
}

int trace_notify_parent(pid_t task, int ready_r, int go_w)
{
	int fd, pidfd, listener;
	__u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	if (read(ready_r, &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, task, 0);
	if (pidfd < 0)
		return -1;
	listener = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	if (listener < 0)
		return -1;
	/* the task and pid 1 hand the CPU to each other (Linux 6.6) */
	if (!getenv("VX_TRACE_NOTIFY_ASYNC"))
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, &flags);
	if (write(go_w, "u", 1) != 1) {
		close(listener);
		return -1;
	}
	return listener;
}

int trace_notify_loop(const struct sb_request *r, const struct plan *p, pid_t task, int listener)
{
	static struct out o;
	struct tracer t;
	int task_status = 0, pidfd = (int)syscall(SYS_pidfd_open, task, 0);
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	tracer_init(&t, &o, r, p);
	for (;;) {
		struct pollfd pf[2] = {{listener, POLLIN, 0}, {pidfd, POLLIN, 0}};
		struct proc pr;
		const struct sc *c;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents & POLLIN) {
			memset(&req, 0, sizeof(req));
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
				memset(&pr, 0, sizeof(pr));
				pr.pid = (pid_t)req.pid;
				c = req.data.nr < 1024 ? t.bynr[req.data.nr] : NULL;
				if (c && c->cls && judge(&t, &pr, c, (const uint64_t *)req.data.args, c->dfd, c->path,
						c->cls, c->nofollow, &pr.ev[pr.nev]))
					pr.nev++;
				if (c && c->cls2 && judge(&t, &pr, c, (const uint64_t *)req.data.args, c->dfd2, c->path2,
						c->cls2, c->nofollow, &pr.ev[pr.nev]))
					pr.nev++;
				if (changes(req.data.nr) == 'n' || pr.inval)
					t.dc.gen++;
				/* what was read belongs to the call still waiting */
				if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0)
					for (int k = 0; k < pr.nev; k++)
						emit(&t, pr.pid, &pr.ev[k], pr.ev[k].access == 'w'
							? EROFS : ENOENT, false);
				for (int k = 0; k < pr.nev; k++)
					ev_clear(&pr.ev[k]);
				free(pr.cwd);
				free(pr.inval_dir);
				memset(&resp, 0, sizeof(resp));
				resp.id = req.id;
				resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
				(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			}
		}
		if (pf[1].revents & POLLIN || pidfd < 0) {
			pid_t w = waitpid(task, &task_status, pidfd < 0 ? 0 : WNOHANG);
			if (w == task || (w < 0 && errno != EINTR))
				break;
		}
	}
	end_record(&o, "end", o.failed ? "a write of the trace failed" : NULL);
	if (pidfd >= 0)
		close(pidfd);
	close(listener);
	tracer_free(&t, &o);
	return task_status;
}
