/* trace_calls.c: the traced calls and what each stopped one names (its
 * paths, read or written, its flags), judged against the plan (see
 * trace_int.h). */
#include "trace_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "err.h"
#include "fastpath.h"
#include "glob.h"

#define CALL(n, d, p, d2, p2, f, c, c2, nf) {__NR_##n, #n, d, p, d2, p2, f, c, c2, nf}
const struct sc trace_calls[] = {
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
	/* judged not, followed only for the cwd cache (trace_changes()) */
	CALL(chdir, -1, -1, -1, -1, -1, 0, 0, false),
	CALL(fchdir, -1, -1, -1, -1, -1, 0, 0, false),
};
const size_t trace_ncalls = sizeof(trace_calls) / sizeof(*trace_calls);

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

char *trace_proc_link(pid_t pid, const char *what)
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
	return !o || o->kind == OP_RO || o->kind == OP_RW || o->kind == OP_SCRATCH ||
	       o->kind == OP_CACHE;
}

static bool write_granted(const struct plan *p, const char *path)
{
	const struct op *o = op_for(p, path);
	return o && ((o->kind == OP_RW && !o->protect) || o->kind == OP_SCRATCH ||
		o->kind == OP_CACHE);
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

/* Issue 35 item 5: a write a file grant's bound directory lets through to
 * anything but a granted file: the grant, or NULL. Not one a directory
 * grant or a write glob covers, nor one in a cache or scratch. */
static const char *write_widened(const struct tracer *t, const char *path)
{
	const struct plan *p = t->p;
	const struct op *o;
	const char *dir = NULL, *grant = NULL;
	for (size_t i = 0; i < p->fdirs.n; i++)
		if (path_is_within(p->fdirs.v[i], path) &&
			(!dir || strlen(p->fdirs.v[i]) > strlen(dir)))
			dir = p->fdirs.v[i];
	if (!dir)
		return NULL;
	for (size_t i = 0; i < p->wfiles.n; i++) {
		char *d;
		if (!strcmp(p->wfiles.v[i], path))
			return NULL;
		d = path_dirname(p->wfiles.v[i]);
		if (!grant && !strcmp(d, dir))
			grant = p->wfgrant.v[i];
		free(d);
	}
	for (size_t i = 0; i < p->wdirs.n; i++)
		if (path_is_within(p->wdirs.v[i], path))
			return NULL;
	for (size_t i = 0; i < p->wglobs.n; i++)
		if (glob_match(p->wglobs.v[i], path))
			return NULL;
	o = op_for(p, path);
	if (!o || o->kind != OP_RW || o->protect)
		return NULL;
	return grant;
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
char trace_changes(int nr)
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

void trace_cwds_forget(struct tracer *t)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].cwd);
		t->procs[i].cwd = NULL;
	}
}

/* A read that cannot reach the workspace (R-34 judges the path a read
 * reaches, not the one it names): lexically outside the root, and walked
 * with no symlink as far as it exists (openat2 RESOLVE_NO_SYMLINKS, no
 * magic link either), so it resolves to itself. One call in pid 1's view,
 * the task's, where a resolution would list directories: most reads
 * outside the root (ld.so's libraries, a compiler's headers) end here. A
 * symlink on the way (one the task made in its /tmp, an alias of the
 * root, /proc/self/cwd) goes to trace_resolve. */
static bool plain_outside(const struct tracer *t, const char *abs, bool nofollow)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_NO_SYMLINKS};
	char *lex = path_normalize(abs);
	bool out = !path_is_within(t->r->root, lex);
	long fd;
	free(lex);
	if (!out)
		return false;
	fd = syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof(how));
	if (fd >= 0) {
		close((int)fd);
		return true;
	}
	return errno == ENOENT || errno == ENOTDIR;
}

/* One path argument of a stopped call: 1 when it is an event, 0 when not. */
int trace_judge(struct tracer *t, struct proc *pr, const struct sc *c, const uint64_t *a,
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
				pr->cwd = trace_proc_link(pid, "cwd");
			base = pr->cwd ? xstrdup(pr->cwd) : NULL;
		} else {
			snprintf(what, sizeof(what), "fd/%d", dfd);
			base = trace_proc_link(pid, what);
		}
		if (!base) {
			free(path);
			return 0; /* a socket or pipe fd: not a directory, the call fails */
		}
	}
	/* as written: a ".." after a symlink is the parent of its target,
	 * which only trace_resolve knows; no lexical folding before it */
	abs = base ? xasprintf("%s/%s", base, path) : xstrdup(path);
	free(base);
	if (cls == 'r' && plain_outside(t, abs, nofollow)) {
		free(abs);
		free(path);
		return 0;
	}
	res = trace_resolve(&t->dc, pid, abs, !nofollow);
	free(abs);
	if (trace_changes(c->nr) == 'u') {
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
	e->grant = NULL;
	if (cls == 'w' && t->p->fdirs.n && (e->grant = write_widened(t, res))) {
		struct stat st;
		e->widened = true;
		e->existed = lstat(res, &st) == 0;
	}
	if (cls == 'r' ? (!path_is_within(t->r->root, res) ||
			(read_granted(t->p, res) && !(e->widened = content_read(c) && widened(t, res))))
		       : write_granted(t->p, res) && !e->widened) {
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

void trace_snapshot(struct tracer *t)
{
	t->wnames = xcalloc(t->p->wfiles.n + 1, sizeof(*t->wnames));
	for (size_t i = 0; i < t->p->wfiles.n; i++) {
		char *d = path_dirname(t->p->wfiles.v[i]);
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

void trace_made(struct tracer *t, pid_t pid, struct ev *e)
{
	struct ev *m;
	if (strmap_get(&t->madeidx, e->resolved)) {
		trace_ev_clear(e); /* a name the task made: judged at the end */
		return;
	}
	if (e->existed) {
		trace_emit(t, pid, e, 0, false);
		trace_ev_clear(e);
		return;
	}
	if (t->nmade == t->capmade) {
		t->capmade = t->capmade ? 2 * t->capmade : 16;
		t->made = xrealloc(t->made, t->capmade * sizeof(*t->made));
		t->madepid = xrealloc(t->madepid, t->capmade * sizeof(*t->madepid));
	}
	m = &t->made[t->nmade];
	*m = *e;
	t->madepid[t->nmade++] = pid;
	memset(e, 0, sizeof(*e));
	strmap_put(&t->madeidx, m->resolved, t); /* (any non-NULL value) */
}

void trace_made_end(struct tracer *t)
{
	for (size_t i = 0; i < t->nmade; i++) {
		struct stat st;
		if (lstat(t->made[i].resolved, &st) == 0)
			trace_emit(t, t->madepid[i], &t->made[i], 0, false);
		trace_ev_clear(&t->made[i]);
	}
	free(t->made);
	free(t->madepid);
	strmap_free(&t->madeidx);
	t->made = NULL;
	t->madepid = NULL;
	t->nmade = t->capmade = 0;
}
