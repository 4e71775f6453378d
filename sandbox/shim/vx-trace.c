/* vx-trace.so: the task's side of the tracer's fast path (../fastpath.h).
 *
 * Preloaded by vx-sandbox into a traced task. Each wrapper below makes its
 * system call from the page at FAST_TRAMP_ADDR, which the seccomp filter
 * lets through without a ptrace stop. A call that succeeded is returned as
 * is: it is never an event (the filter keeps sending up the reads that a
 * widened file grant would report). A call that failed is made once more
 * from this library's own code: that one the filter sends to the tracer, which judges and records it exactly as without this
 * library, and its result is what the caller gets. EINTR and EAGAIN are
 * returned at once (an interrupted or would-block call is not a denial),
 * and so is a failed read of an absolute path outside the workspace root
 * (VX_TRACE_ROOT), which the tracer never reports, or inside a directory a
 * read grant binds whole (VX_TRACE_SEEN), which it finds granted; either
 * only when the path walks with no symlink (one through a symlink may
 * reach the workspace, R-34: made again, the tracer judges where); nor is
 * a failed read this process already made again alike (memo, at call()).
 *
 * libc's own opens (setlocale's, fopen's, opendir's) come here too: their
 * entry points in libc.so.6 jump to the wrappers (divert_libc, at the end).
 *
 * Without the page (mapped lazily, MAP_FIXED_NOREPLACE; taken, or not yet
 * mapped while another thread maps it) every call goes the traced way, so
 * nothing is lost, only slower. Built without sanitizers: it is loaded into
 * the task's programs, not ours.
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../fastpath.h"
#include "sberrno.h"

#define EXPORT __attribute__((visibility("default")))

/* long tramp(long nr, long a1, ..., long a5): the raw kernel result
 * (-errno on failure). Copied to the fixed page; never called here. */
__asm__(".pushsection .rodata\n"
	".globl vx_tramp_code\n"
	".hidden vx_tramp_code\n"
	"vx_tramp_code:\n"
	"\tmovq %rdi, %rax\n"
	"\tmovq %rsi, %rdi\n"
	"\tmovq %rdx, %rsi\n"
	"\tmovq %rcx, %rdx\n"
	"\tmovq %r8, %r10\n"
	"\tmovq %r9, %r8\n"
	"\tsyscall\n"
	"\tret\n"
	".globl vx_tramp_end\n"
	".hidden vx_tramp_end\n"
	"vx_tramp_end:\n"
	".popsection\n");
extern const char vx_tramp_code[], vx_tramp_end[];

typedef long (*tramp_fn)(long, long, long, long, long, long);

/* 0 not tried, 1 being mapped, 2 ready, 3 unavailable */
static int state;
static const char *root;
static size_t rootlen;
static const char *seen; /* FAST_ENV_SEEN, NULL when unset */
/* FAST_ENV_FDIRS: the mounts of the directories bound for a file grant
 * alone; fall: every write goes up (the variable missing or "*", one that
 * would not stat, or more than fit) */
#define FMNT_MAX 64
static uint64_t fmnt[FMNT_MAX];
static size_t nfmnt;
static bool fall;

/* The mount of each line of FAST_ENV_FDIRS (each a mount root). */
static void fdirs_load(tramp_fn t)
{
	const char *v = getenv(FAST_ENV_FDIRS);
	char dir[PATH_MAX];
	fall = !v || !strcmp(v, "*");
	for (const char *l = v; !fall && l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		struct statx sx;
		if (n >= sizeof(dir) || nfmnt == FMNT_MAX) {
			fall = true;
			break;
		}
		memcpy(dir, l, n);
		dir[n] = 0;
		if (t(SYS_statx, AT_FDCWD, (long)dir, 0, STATX_MNT_ID, (long)&sx) != 0 ||
			!(sx.stx_mask & STATX_MNT_ID))
			fall = true;
		else
			fmnt[nfmnt++] = sx.stx_mnt_id;
		l = nl ? nl + 1 : NULL;
	}
}

static tramp_fn tramp(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE), expect = 0;
	void *page;
	if (s == 2)
		return (tramp_fn)FAST_TRAMP_ADDR;
	if (s != 0 || !__atomic_compare_exchange_n(&state, &expect, 1, false,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return NULL;
	page = mmap((void *)FAST_TRAMP_ADDR, FAST_TRAMP_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page != (void *)FAST_TRAMP_ADDR) {
		if (page != MAP_FAILED)
			munmap(page, FAST_TRAMP_SIZE);
		__atomic_store_n(&state, 3, __ATOMIC_RELEASE);
		return NULL;
	}
	memcpy(page, vx_tramp_code, (size_t)(vx_tramp_end - vx_tramp_code));
	if (mprotect(page, FAST_TRAMP_SIZE, PROT_READ | PROT_EXEC)) {
		munmap(page, FAST_TRAMP_SIZE);
		__atomic_store_n(&state, 3, __ATOMIC_RELEASE);
		return NULL;
	}
	root = getenv(FAST_ENV_ROOT);
	rootlen = root && root[0] == '/' ? strlen(root) : 0;
	seen = getenv(FAST_ENV_SEEN);
	fdirs_load((tramp_fn)FAST_TRAMP_ADDR);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	return (tramp_fn)FAST_TRAMP_ADDR;
}

static void divert_libc(void);

__attribute__((constructor)) static void init(void)
{
	if (tramp())
		divert_libc();
}

/* Absolute, with no empty, "." or ".." component: the path the tracer
 * would judge, as written. */
static bool plain(const char *path)
{
	const char *s;
	if (!path || path[0] != '/')
		return false;
	for (s = path; (s = strchr(s, '/')); s++)
		if (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || !s[2] ||
			(s[2] == '.' && (s[3] == '/' || !s[3])))))
			return false;
	return true;
}

/* Neither the root nor under it, lexically (path absolute, plain). */
static bool beside_root(const char *path)
{
	return strncmp(path, root, rootlen) || (path[rootlen] && path[rootlen] != '/');
}

/* Lexically outside the root: plain, and neither the root nor under it.
 * Anything less plain is made again. */
static bool outside_root(const char *path)
{
	return rootlen && plain(path) && beside_root(path);
}

/* Under a "+" line of FAST_ENV_SEEN (fastpath.h): the longest line that is
 * path or a directory above it decides, "-" on a tie. */
static bool seen_granted(const char *path)
{
	size_t plen = strlen(path), best = 0;
	bool plus = false;
	for (const char *l = seen; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l), dl = n - 1;
		const char *d = l + 1;
		if (n > 1 && d[0] == '/' && dl <= plen && !memcmp(d, path, dl) &&
			(!path[dl] || path[dl] == '/' || d[dl - 1] == '/') &&
			(dl > best || (dl == best && l[0] == '-'))) {
			best = dl;
			plus = l[0] == '+';
		}
		l = nl ? nl + 1 : NULL;
	}
	return plus;
}

/* Does path walk with no symlink (nor magic link) as far as it exists, so
 * that it resolves to itself? Asked from the page (an openat2 with O_PATH,
 * which opens nothing for reading). */
static bool walks_plain(tramp_fn t, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	long r = t(SYS_openat2, AT_FDCWD, (long)path, (long)&how, sizeof(how), 0);
	if (r >= 0) {
		t(SYS_close, r, 0, 0, 0, 0);
		return true;
	}
	return r == -ENOENT || r == -ENOTDIR;
}

/* A plain path outside the root that met a symlink on its walk: does it
 * still land outside? Its deepest directory that opens (following
 * symlinks, no magic link), the real path of that read back from
 * /proc/self/fd, the name after it no symlink (readlinkat: EINVAL or
 * ENOENT), the rest as written. So /bin/x, where /bin is usr/bin, costs
 * the task no stop (a PATH probe); /tmp/l, a link into the root, is made
 * again. Anything unsure is made again. */
static bool lands_outside(tramp_fn t, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_MAGICLINKS};
	size_t len = strlen(path), cut, nl;
	char dir[PATH_MAX], real[PATH_MAX], name[NAME_MAX + 1], fdp[40], one;
	const char *rest, *end;
	long fd, n, r;
	bool out = false;
	if (len >= sizeof(dir) || path[len - 1] == '/')
		return false;
	memcpy(dir, path, len + 1);
	for (;;) {
		char *sl = strrchr(dir, '/');
		cut = (size_t)(sl - dir);
		*sl = 0;
		fd = t(SYS_openat2, AT_FDCWD, (long)(cut ? dir : "/"), (long)&how, sizeof(how), 0);
		if (fd >= 0)
			break;
		if ((fd != -ENOENT && fd != -ENOTDIR) || !cut)
			return false;
	}
	rest = path + cut + 1;
	end = strchr(rest, '/');
	nl = end ? (size_t)(end - rest) : strlen(rest);
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%ld", fd);
	n = t(SYS_readlink, (long)fdp, (long)real, sizeof(real) - 1, 0, 0);
	if (nl < sizeof(name) && n > 0 && real[0] == '/' && (size_t)n + 1 + strlen(rest) < sizeof(real)) {
		memcpy(name, rest, nl);
		name[nl] = 0;
		r = t(SYS_readlinkat, fd, (long)name, (long)&one, 1, 0);
		if (r == -EINVAL || r == -ENOENT || r == -ENOTDIR) {
			if (n > 1)
				real[n++] = '/';
			memcpy(real + n, rest, strlen(rest) + 1);
			out = beside_root(real);
		}
	}
	t(SYS_close, fd, 0, 0, 0, 0);
	return out;
}

/* A failed read the tracer never reports: plain, and either outside the
 * root or under "+" (where it finds it granted), and walking with no
 * symlink, so it resolves to itself; or outside the root and landing
 * outside it through its symlinks. One that may reach the workspace
 * through a symlink (one the task made in its /tmp, an alias of the root,
 * /proc/self/...) is made again: the tracer judges where it lands. */
static bool unreported_miss(tramp_fn t, const char *path)
{
	bool out;
	if (!plain(path))
		return false;
	out = outside_root(path);
	if (!out && !(seen && seen_granted(path)))
		return false;
	return walks_plain(t, path) || (out && lands_outside(t, path));
}

/* A system call from this library's own code, not the page: traced like
 * libc's. (Not libc's syscall(): this library wraps that too.) */
static long slow(long nr, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall"
		: "=a"(r)
		: "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
		: "rcx", "r11", "memory");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Issue 38: the failed reads this process already made again, traced.
 * A module resolver probes the same absent path hundreds of times (rolldown
 * stats <pkg>/node_modules once per import), and each probe cost a stop
 * whose record repeats the first one's: same call, path, errno. A key is a
 * hash of the call's number, its errno and its path, plain and absolute,
 * kept only when the path walks with no symlink (walks_plain), so that it
 * resolves to itself and the tracer's verdict depends on the path alone
 * (the plan does not change while the task runs); a repeat is returned at
 * once only when it failed with that errno and still walks with no
 * symlink. vx-report names a path once ("the first call names it"), so the
 * report is the same. Lock-free (threads: a compare-and-swap per slot);
 * full, it keeps nothing more; a forked child inherits it (its parent's
 * record stands, vx-report does not tell pids apart); an exec empties it. */
#define MEMO_SLOTS 8192
#define MEMO_PROBES 16
static uint64_t memo[MEMO_SLOTS];

static uint64_t memo_key(long nr, long err, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ ((uint64_t)nr << 16) ^ (uint64_t)err;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ? h : 1; /* 0 marks a free slot */
}

static bool memo_has(uint64_t k)
{
	for (size_t i = 0; i < MEMO_PROBES; i++) {
		uint64_t v = __atomic_load_n(&memo[(k + i) % MEMO_SLOTS], __ATOMIC_RELAXED);
		if (v == k)
			return true;
		if (!v)
			return false;
	}
	return false;
}

static void memo_put(uint64_t k)
{
	for (size_t i = 0; i < MEMO_PROBES; i++) {
		uint64_t *slot = &memo[(k + i) % MEMO_SLOTS], v = 0;
		if (__atomic_compare_exchange_n(slot, &v, k, false, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED) || v == k)
			return;
	}
}

/* The call through the page; when it failed, again from slow() (traced).
 * Not made again: a failure no refusal of the sandbox gives (sberrno.h:
 * its record would be dropped), a read (rd) the tracer never reports
 * (unreported_miss), and a read this process already sent up (memo). */
static long call(bool rd, const char *path, long nr, long a, long b, long c, long d, long e)
{
	tramp_fn t = tramp();
	uint64_t k = 0;
	long r;
	if (t) {
		r = t(nr, a, b, c, d, e);
		if (r >= 0 || r < -4095)
			return r;
		if (r == -EINTR || r == -EAGAIN || !sb_errno_possible((int)-r) ||
			(rd && unreported_miss(t, path))) {
			errno = (int)-r;
			return -1;
		}
		if (rd && plain(path)) {
			k = memo_key(nr, -r, path);
			if (memo_has(k) && walks_plain(t, path)) {
				errno = (int)-r;
				return -1;
			}
		}
	}
	r = slow(nr, a, b, c, d, e);
	/* kept when the traced call failed alike (its record is the one) */
	if (k && r < 0 && k == memo_key(nr, errno, path) && walks_plain(t, path)) {
		int keep = errno;
		memo_put(k);
		errno = keep;
	}
	return r;
}

static bool is_write(int flags)
{
	return (flags & FAST_OPEN_WRITE) != 0;
}

static bool on_fmnt(const struct statx *sx)
{
	for (size_t i = 0; i < nfmnt; i++)
		if (sx->stx_mnt_id == fmnt[i])
			return true;
	return false;
}

/* Issue 35 item 5: does a write of path (from dfd) land on the mount of a
 * directory bound for a file grant alone (FAST_ENV_FDIRS)? Its target
 * (followed as the call follows it), or where absent its parent as
 * written; anything unsure says yes (the call then stops: only slower). */
static bool beside_file_grant(tramp_fn t, long dfd, const char *path, bool follow)
{
	struct statx sx;
	char dir[PATH_MAX];
	size_t n;
	long r;
	if (fall)
		return true;
	if (!nfmnt)
		return false;
	if (!path)
		return true;
	r = t(SYS_statx, dfd, (long)path, follow ? 0 : AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, (long)&sx);
	if (r == 0)
		return !(sx.stx_mask & STATX_MNT_ID) || on_fmnt(&sx);
	if (r != -ENOENT)
		return true;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(dir))
		return true;
	if (n == 0) {
		strcpy(dir, ".");
	} else {
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	r = t(SYS_statx, dfd, (long)dir, 0, STATX_MNT_ID, (long)&sx);
	return r != 0 || !(sx.stx_mask & STATX_MNT_ID) || on_fmnt(&sx);
}

/* A write call: traced from the start where it lands beside a file grant
 * (the tracer reports it even when it succeeds), else as call(). */
static long wcall(long dfd, const char *path, bool follow, long nr, long a, long b, long c,
	long d, long e)
{
	tramp_fn t = tramp();
	if (t && beside_file_grant(t, dfd, path, follow))
		return slow(nr, a, b, c, d, e);
	return call(false, path, nr, a, b, c, d, e);
}

static int do_openat(int dfd, const char *path, int flags, mode_t mode)
{
	if (is_write(flags))
		return (int)wcall(dfd, path, !(flags & O_NOFOLLOW), SYS_openat, dfd, (long)path,
			flags, mode, 0);
	return (int)call(true, path, SYS_openat, dfd, (long)path, flags, mode, 0);
}

/* the mode argument is there only with O_CREAT or O_TMPFILE */
#define MODE_ARG(flags, mode)                                       \
	do {                                                        \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {            \
			va_list ap;                                 \
			va_start(ap, flags);                        \
			mode = va_arg(ap, mode_t);                  \
			va_end(ap);                                 \
		}                                                   \
	} while (0)

/* open and open64, openat and openat64: one body each, the names aliases
 * (also what divert_libc points libc's own entries at) */
static int open_wrap(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return do_openat(AT_FDCWD, path, flags, mode);
}

static int openat_wrap(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return do_openat(dfd, path, flags, mode);
}

EXPORT int open(const char *path, int flags, ...) __attribute__((alias("open_wrap")));
EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open_wrap")));
EXPORT int openat(int dfd, const char *path, int flags, ...) __attribute__((alias("openat_wrap")));
EXPORT int openat64(int dfd, const char *path, int flags, ...) __attribute__((alias("openat_wrap")));

/* _FORTIFY_SOURCE's checked opens: called only without O_CREAT/O_TMPFILE */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dfd, const char *path, int flags);
int __openat64_2(int dfd, const char *path, int flags);

EXPORT int __open_2(const char *path, int flags)
{
	return do_openat(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return do_openat(AT_FDCWD, path, flags, 0);
}

EXPORT int __openat_2(int dfd, const char *path, int flags)
{
	return do_openat(dfd, path, flags, 0);
}

EXPORT int __openat64_2(int dfd, const char *path, int flags)
{
	return do_openat(dfd, path, flags, 0);
}

/* the system calls glibc itself makes, so a record names the same call */
EXPORT int creat(const char *path, mode_t mode)
{
	return (int)wcall(AT_FDCWD, path, true, SYS_creat, (long)path, mode, 0, 0, 0);
}

EXPORT int creat64(const char *path, mode_t mode)
{
	return (int)wcall(AT_FDCWD, path, true, SYS_creat, (long)path, mode, 0, 0, 0);
}

static int do_fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	return (int)call(true, path, SYS_newfstatat, dfd, (long)path, (long)st, flags, 0);
}

EXPORT int stat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, 0);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	return do_fstatat(dfd, path, st, flags);
}

EXPORT int fstatat64(int dfd, const char *path, struct stat64 *st, int flags)
{
	return do_fstatat(dfd, path, (struct stat *)st, flags);
}

EXPORT int statx(int dfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	return (int)call(true, path, SYS_statx, dfd, (long)path, flags, mask, (long)stx);
}

EXPORT int access(const char *path, int mode)
{
	return (int)call(true, path, SYS_access, (long)path, mode, 0, 0, 0);
}

EXPORT int faccessat(int dfd, const char *path, int mode, int flags)
{
	static int (*next)(int, const char *, int, int);
	if (!flags)
		return (int)call(true, path, SYS_faccessat, dfd, (long)path, mode, 0, 0);
	/* glibc emulates faccessat2 where the kernel lacks it: leave it that */
	if (!next)
		next = (int (*)(int, const char *, int, int))dlsym(RTLD_NEXT, "faccessat");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(dfd, path, mode, flags);
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	return call(true, path, SYS_readlink, (long)path, (long)buf, (long)len, 0, 0);
}

EXPORT ssize_t readlinkat(int dfd, const char *path, char *buf, size_t len)
{
	return call(true, path, SYS_readlinkat, dfd, (long)path, (long)buf, (long)len, 0);
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	return (int)wcall(AT_FDCWD, path, false, SYS_mkdir, (long)path, mode, 0, 0, 0);
}

EXPORT int mkdirat(int dfd, const char *path, mode_t mode)
{
	return (int)wcall(dfd, path, false, SYS_mkdirat, dfd, (long)path, mode, 0, 0);
}

/* realpath: glibc's reads each component with its own readlink, from inside
 * libc, so every component of every path a compiler canonicalises (cc1: ~500
 * per source file, all under /usr) would stop. The same walk, each readlink
 * made through call(): glibc 2.36's semantics (stdlib/canonicalize.c): a
 * component that is not a symlink fails readlink with EINVAL and is kept;
 * any other failure fails the whole call with its errno, unless what follows
 * needs a directory and it is one (dir_check); ".." drops the last resolved
 * component; 40 links make ELOOP. */
/* After a component, does the rest need it to be a directory: a trailing
 * "/", "/." or a "/.." anywhere (glibc's suffix_requires_dir_check)? */
static bool dir_suffix(const char *end)
{
	while (*end == '/') {
		while (*end == '/')
			end++;
		switch (*end++) {
		default:
			return false;
		case 0:
			return true;
		case '.':
			break;
		}
		if (!*end || (*end == '.' && (!end[1] || end[1] == '/')))
			return true;
	}
	return false;
}

/* glibc's dir_check: faccessat("dir/", F_OK, AT_EACCESS); cur holds PATH_MAX */
static bool dir_check(char *cur, size_t len)
{
	if (len + 1 >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return false;
	}
	cur[len] = '/';
	cur[len + 1] = 0;
	return call(true, cur, SYS_faccessat2, AT_FDCWD, (long)cur, F_OK, AT_EACCESS, 0) == 0;
}

static char *walk(const char *name, char *out)
{
	char *rest = NULL, *cur = NULL, *link = NULL;
	size_t cl;
	int links = 0, err = 0;

	if (!name) {
		errno = EINVAL;
		return NULL;
	}
	if (!*name) {
		errno = ENOENT;
		return NULL;
	}
	rest = malloc(PATH_MAX);
	cur = malloc(PATH_MAX);
	link = malloc(PATH_MAX);
	if (!rest || !cur || !link) {
		err = ENOMEM;
		goto done;
	}
	if (strlen(name) >= PATH_MAX) {
		err = ENAMETOOLONG;
		goto done;
	}
	strcpy(rest, name);
	if (name[0] == '/') {
		cur[0] = 0;
	} else if (!getcwd(cur, PATH_MAX)) {
		err = errno;
		goto done;
	} else if (!strcmp(cur, "/")) {
		cur[0] = 0;
	}
	cl = strlen(cur);
	for (char *s = rest;;) {
		char *e;
		size_t n;
		long r;
		while (*s == '/')
			s++;
		if (!*s)
			break;
		for (e = s; *e && *e != '/'; e++)
			;
		n = (size_t)(e - s);
		if (n == 1 && s[0] == '.') {
			s = e;
			continue;
		}
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (cl > 0 && cur[cl - 1] != '/')
				cl--;
			if (cl > 0)
				cl--;
			cur[cl] = 0;
			s = e;
			continue;
		}
		if (cl + 1 + n >= PATH_MAX) {
			err = ENAMETOOLONG;
			goto done;
		}
		cur[cl] = '/';
		memcpy(cur + cl + 1, s, n);
		cur[cl + 1 + n] = 0;
		r = call(true, cur, SYS_readlink, (long)cur, (long)link, PATH_MAX - 1, 0, 0);
		if (r < 0) {
			if (!(dir_suffix(e) ? dir_check(cur, cl + 1 + n) : errno == EINVAL)) {
				err = errno;
				goto done;
			}
			cur[cl + 1 + n] = 0;
			cl += 1 + n;
			s = e;
			continue;
		}
		if (++links > 40) {
			err = ELOOP;
			goto done;
		}
		/* the target, then what was left after this component */
		link[r] = 0;
		if ((size_t)r + strlen(e) >= PATH_MAX) {
			err = ENAMETOOLONG;
			goto done;
		}
		memmove(rest + r, e, strlen(e) + 1);
		memcpy(rest, link, (size_t)r);
		s = rest;
		if (link[0] == '/')
			cl = 0;
		cur[cl] = 0;
	}
	if (cl == 0)
		strcpy(cur, "/");
	if (out)
		strcpy(out, cur);
done:
	free(rest);
	free(link);
	if (err) {
		free(cur);
		errno = err;
		return NULL;
	}
	if (out) {
		free(cur);
		return out;
	}
	return cur;
}

EXPORT char *realpath(const char *name, char *resolved)
{
	return walk(name, resolved);
}

EXPORT char *canonicalize_file_name(const char *name)
{
	return walk(name, NULL);
}

char *__realpath_chk(const char *name, char *resolved, size_t len);
EXPORT char *__realpath_chk(const char *name, char *resolved, size_t len)
{
	(void)len; /* glibc's check: the buffer holds PATH_MAX; walk never writes more */
	return walk(name, resolved);
}

/* syscall(3), as libuv (node) makes its statx: the calls above by number,
 * every other one through libc's own. */
EXPORT long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long); /* as glibc's: all six, passed or not */
	va_end(ap);
	switch (nr) {
	case SYS_openat:
		if (is_write((int)a[2]))
			return wcall(a[0], (const char *)a[1], !(a[2] & O_NOFOLLOW), nr, a[0], a[1],
				a[2], a[3], 0);
		return call(true, (const char *)a[1], nr, a[0], a[1], a[2], a[3], 0);
	case SYS_newfstatat: case SYS_statx: case SYS_faccessat: case SYS_faccessat2:
	case SYS_readlinkat:
		return call(true, (const char *)a[1], nr, a[0], a[1], a[2], a[3], a[4]);
	case SYS_access: case SYS_readlink:
		return call(true, (const char *)a[0], nr, a[0], a[1], a[2], 0, 0);
	case SYS_mkdirat:
		return wcall(a[0], (const char *)a[1], false, nr, a[0], a[1], a[2], 0, 0);
	case SYS_mkdir: case SYS_creat:
		return wcall(AT_FDCWD, (const char *)a[0], nr == SYS_creat, nr, a[0], a[1], 0, 0, 0);
	}
	if (!next)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!next)
		return slow(nr, a[0], a[1], a[2], a[3], a[4]);
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* libc's own opens. glibc opens files from inside itself with direct calls
 * that never pass the PLT, so the wrappers above miss them and each one
 * stops: setlocale's ~25 locale files in every program started under a
 * C.UTF-8 locale, fopen's, opendir's, iconv's modules. At load, with the
 * page ready and before any thread of the program runs, the first bytes of
 * libc's open64 (also open, __open), openat64 (openat) and __open_nocancel
 * become a jump to the wrapper with the same arguments (the nocancel one
 * differs only in never being a cancellation point, and neither are the
 * wrappers). Only libc.so.6's own definitions are touched, each only once,
 * and only when their pages can be made writable: otherwise those calls stop
 * as before, which loses nothing. A jump is 5 bytes when the wrapper is
 * within 2 GiB, else 14 (jmp *0(%rip) and the address); neither touches a
 * register, so a variadic wrapper still finds %al as its caller set it. */
struct patch {
	unsigned char *at, code[14];
	size_t n;
};

/* libc.so.6's executable segment, [lo, hi) (found with dl_iterate_phdr:
 * no allocation, unlike a dlopen of libc, which would set up malloc (brk,
 * getrandom) in every program, even one that never allocates). */
struct text {
	uintptr_t lo, hi;
};

static int libc_text(struct dl_phdr_info *info, size_t size, void *data)
{
	struct text *t = data;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	(void)size;
	if (!base || strcmp(base + 1, "libc.so.6"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
			t->lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			t->hi = t->lo + info->dlpi_phdr[i].p_memsz;
		}
	return 1;
}

/* The jump at sym's entry to to, or n = 0 when the next definition of sym
 * after this library is not in libc's text. */
static void jump_to(const struct text *t, const char *sym, void *to, struct patch *pt)
{
	intptr_t rel;
	pt->n = 0;
	pt->at = dlsym(RTLD_NEXT, sym);
	if (!pt->at || pt->at == (unsigned char *)to || (uintptr_t)pt->at < t->lo ||
		(uintptr_t)pt->at + 14 > t->hi)
		return;
	rel = (intptr_t)to - (intptr_t)(pt->at + 5);
	if (rel >= INT32_MIN && rel <= INT32_MAX) {
		int32_t r32 = (int32_t)rel;
		pt->code[0] = 0xe9;
		memcpy(pt->code + 1, &r32, 4);
		pt->n = 5;
	} else {
		uint64_t a = (uint64_t)(uintptr_t)to;
		static const unsigned char jmp[6] = {0xff, 0x25, 0, 0, 0, 0};
		memcpy(pt->code, jmp, 6);
		memcpy(pt->code + 6, &a, 8);
		pt->n = 14;
	}
}

/* The three entries lie within a few pages of libc's text: one window made
 * writable over all of them and back, two mprotects in all (not two per
 * entry, each splitting libc's mapping), in every program started. */
static void divert_libc(void)
{
	struct patch pt[3];
	struct text t = {0, 0};
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = UINTPTR_MAX, hi = 0;
	if (!dl_iterate_phdr(libc_text, &t) || !t.hi)
		return;
	jump_to(&t, "__open_nocancel", (void *)open_wrap, &pt[0]);
	jump_to(&t, "open64", (void *)open_wrap, &pt[1]);
	jump_to(&t, "openat64", (void *)openat_wrap, &pt[2]);
	for (int i = 0; i < 3; i++)
		if (pt[i].n) {
			uintptr_t at = (uintptr_t)pt[i].at;
			lo = at < lo ? at : lo;
			hi = at + pt[i].n > hi ? at + pt[i].n : hi;
		}
	if (!hi || (intptr_t)page <= 0)
		return;
	lo &= ~(page - 1);
	hi = (hi + page - 1) & ~(page - 1);
	/* executable throughout: the window may hold mprotect itself */
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return;
	for (int i = 0; i < 3; i++)
		if (pt[i].n)
			memcpy(pt[i].at, pt[i].code, pt[i].n);
	mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
}
