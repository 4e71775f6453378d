/* mounts.c: the boundary's mount tree (see mounts.h for the order). */
#include "mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "learn.h"
#include "path.h"

#define BASE "/tmp"
#define NEWROOT BASE "/newroot"

static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
#define NDEV (sizeof(dev_nodes) / sizeof(*dev_nodes))

/* Open path (absolute, or relative to dirfd) refusing every symlink on the
 * way, the last component included. */
static int open_strict(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static int fail(const char *what, const char *path)
{
	err_warn_errno("sandbox setup: %s '%s'", what, path);
	return -1;
}

static int set_attr(int fd, unsigned set, bool recursive)
{
	struct mount_attr a = {.attr_set = set};
	return mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof(a));
}

/* A fresh tmpfs, detached: filled through its fd before it is attached. */
static int new_tmpfs(const char *mode)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), m;
	if (fs < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", mode, 0) ||
		fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		close(fs);
		return -1;
	}
	m = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	close(fs);
	return m;
}

/* The path of op inside the new root, relative (no leading '/'). */
static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

/* Make the mount point for child under the mask at mfd (mask path mpath).
 * *made is the deepest directory made so far in this mask: the children
 * come in path order, so siblings share it and their parents are not
 * made again (a mkdirat each, failing with EEXIST, was one call a grant). */
static int skeleton(int mfd, const char *mpath, const struct op *child, char **made)
{
	char *r = path_under(mpath, child->path), *s;
	int rc = 0;
	if (!r)
		return -1;
	for (s = strchr(r, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!(*made && path_is_within(r, *made)) && mkdirat(mfd, r, 0755) && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	free(*made);
	*made = NULL;
	if (child->isdir) {
		if (mkdirat(mfd, r, 0755) && errno != EEXIST)
			rc = -1;
		*made = r;
		return rc;
	}
	int fd = openat(mfd, r, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		rc = -1;
	else
		close(fd);
	s = strrchr(r, '/');
	if (s) {
		*s = '\0';
		*made = r;
	} else {
		free(r);
	}
	return rc;
}

static bool same_inode(int fd, const struct op *o)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

static int attach(int mfd, int root, const char *path)
{
	int t = open_strict(root, rel(path), O_PATH);
	int rc;
	if (t < 0)
		return fail("unable to reach the mount point", path);
	rc = move_mount(mfd, "", t, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	close(t);
	return rc ? fail("unable to mount over", path) : 0;
}

/* Attach b at o's path. Inside a sealed mask (a read-only tmpfs made here,
 * holding nothing but the mount points made for it: no symlink can be on
 * the way) by the path below the mask's own fd, held[] (one call); else by
 * an fd opened on the new root refusing every symlink (three). */
static int attach_op(int b, int root, const struct plan *p, const struct op *o, const int *held)
{
	if (o->parent >= 0 && p->ops[o->parent].kind == OP_MASK && held[o->parent] >= 0) {
		char *r = path_under(p->ops[o->parent].path, o->path);
		int rc = r ? move_mount(b, "", held[o->parent], r, MOVE_MOUNT_F_EMPTY_PATH) : -1;
		free(r);
		return rc ? fail("unable to mount over", o->path) : 0;
	}
	return attach(b, root, o->path);
}

/* The mask's mount stays open in held[i] for the mounts laid inside it. */
static int lay_mask(const struct plan *p, size_t i, int root, int *held)
{
	const struct op *o = &p->ops[i];
	int m = new_tmpfs(o->kind == OP_SCRATCH ? "1777" : "0755"), rc;
	char *made = NULL;
	if (m < 0)
		return fail("unable to make a tmpfs for", o->path);
	for (size_t j = i + 1; j < p->nops; j++)
		if (p->ops[j].parent == (int)i && skeleton(m, o->path, &p->ops[j], &made)) {
			free(made);
			close(m);
			return fail("unable to make a mount point for", p->ops[j].path);
		}
	free(made);
	if (o->kind == OP_MASK && set_attr(m, MOUNT_ATTR_RDONLY, false)) {
		close(m);
		return fail("unable to seal the mask", o->path);
	}
	rc = attach_op(m, root, p, o, held);
	held[i] = m;
	return rc;
}

/* Does path show the mount b (attached there just now), whose root is the
 * inode the plan checked? The mount's identity, not only the inode: a
 * hardlink of a file grant put at its path by a host process meanwhile has
 * the inode but not the mount. An intermediate symlink is followed, which
 * passes only where it leads to b itself, so the task sees the grant there
 * too. */
static bool bound_here(int b, int root, const struct op *o)
{
	struct statx m, at;
	return statx(b, "", AT_EMPTY_PATH, STATX_MNT_ID, &m) == 0 &&
	       statx(root, rel(o->path), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		       STATX_INO | STATX_MNT_ID, &at) == 0 &&
	       (m.stx_mask & at.stx_mask & STATX_MNT_ID) && m.stx_mnt_id == at.stx_mnt_id &&
	       at.stx_ino == o->ino && makedev(at.stx_dev_major, at.stx_dev_minor) == o->dev;
}

/* src: a read grant's source on the new root (read-only, nosuid, nodev,
 * recursively: a clone keeps those flags, so none is set here), a write
 * grant's on the host's own mounts (nosuid and nodev set on the clone). */
static int lay_bind(const struct plan *p, const struct op *o, int src, int root, const int *held)
{
	int b = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	int rc;
	if (b < 0)
		return fail("unable to clone the mount of", o->path);
	if (o->kind == OP_RW && set_attr(b, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true)) {
		close(b);
		return fail("unable to set the mount flags of", o->path);
	}
	rc = attach_op(b, root, p, o, held);
	if (!rc && !bound_here(b, root, o)) {
		errno = ESTALE;
		rc = fail("the path changed while it was bound", o->path);
	}
	close(b);
	return rc;
}

static int lay_mask_file(const struct plan *p, const struct op *o, int root, const int *held)
{
	int b = open_tree(AT_FDCWD, BASE "/empty", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	int rc;
	if (b < 0 || set_attr(b, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false)) {
		if (b >= 0)
			close(b);
		return fail("unable to mask", o->path);
	}
	rc = attach_op(b, root, p, o, held);
	close(b);
	return rc;
}

static int build_dev(int root, const int *devfd)
{
	static const char *const links[][2] = {
		{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
		{"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
		{"ptmx", "pts/ptmx"},
	};
	int m = new_tmpfs("0755"), d, rc = 0;
	if (m < 0)
		return fail("unable to make a tmpfs for", "/dev");
	for (size_t i = 0; i < NDEV; i++) {
		int f = openat(m, dev_nodes[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (f >= 0)
			close(f);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(*links); i++)
		symlinkat(links[i][1], m, links[i][0]);
	mkdirat(m, "pts", 0755);
	mkdirat(m, "shm", 01777);
	if (attach(m, root, "/dev")) {
		close(m);
		return -1;
	}
	/* the host's device nodes, bound one by one (a user namespace may not
	 * make device nodes, but it may bind them) */
	for (size_t i = 0; i < NDEV; i++) {
		char path[32];
		int b;
		if (devfd[i] < 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		b = open_tree(devfd[i], "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (b < 0 || set_attr(b, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, false) ||
			attach(b, root, path)) {
			if (b >= 0)
				close(b);
			close(m);
			return fail("unable to bind", path);
		}
		close(b);
	}
	if (mount("devpts", NEWROOT "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=620"))
		rc = fail("unable to mount", "/dev/pts");
	else if ((d = new_tmpfs("1777")) < 0 || attach(d, root, "/dev/shm"))
		rc = fail("unable to mount", "/dev/shm");
	else if (set_attr(m, MOUNT_ATTR_RDONLY, false))
		rc = fail("unable to seal", "/dev");
	close(m);
	return rc;
}

static int build_proc(bool nested)
{
	/* the kernel's own knobs stay read-only, as bubblewrap keeps them */
	static const char *const ro[] = {"sys", "sysrq-trigger", "irq", "bus"};
	if (mount("proc", NEWROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return fail("unable to mount a fresh", "/proc");
	/* a nested sandbox mounts its own /proc, which the kernel allows only
	 * where no mount covers part of this one */
	if (nested)
		return 0;
	for (size_t i = 0; i < sizeof(ro) / sizeof(*ro); i++) {
		char path[64];
		int b;
		snprintf(path, sizeof(path), NEWROOT "/proc/%s", ro[i]);
		b = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (b < 0)
			continue; /* absent on this kernel */
		if (set_attr(b, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true) ||
			move_mount(b, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH)) {
			close(b);
			return fail("unable to make read-only", path);
		}
		close(b);
	}
	return 0;
}

/* A fresh sysfs for the sandbox's own network namespace, read-only: the
 * host's /sys (cloned with /) lists the host's network interfaces and
 * their addresses, and carries debugfs, tracefs, securityfs, bpffs and
 * pstore mounts. A sysfs mounted from inside the new user and network
 * namespaces shows only this namespace's interfaces (lo) and none of those
 * submounts; the kernel allows it because a whole sysfs is already visible
 * here. bubblewrap leaves /sys to the caller (its users bind the host's);
 * nsjail and runc mount a new one as here. Only the read-only cgroup tree
 * is put back, where tools read their cpu and memory limits. */
static int build_sys(int root)
{
	int cg = open_tree(root, "sys/fs/cgroup", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	int rc = 0;
	/* over the host's copy, which stays under it: a mount inherited from
	 * the host's namespace is locked to the one above it */
	if (mount("sysfs", NEWROOT "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		rc = fail("unable to mount a fresh", "/sys");
	} else if (cg >= 0) {
		int t = open_strict(root, "sys/fs/cgroup", O_PATH | O_DIRECTORY);
		if (t < 0 || move_mount(cg, "", t, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
			rc = fail("unable to bind read-only", "/sys/fs/cgroup");
		if (t >= 0)
			close(t);
	}
	if (cg >= 0)
		close(cg);
	return rc;
}

/* The sandbox's resolver file: every lookup goes to its own loopback, where
 * the network bridge answers REFUSED and records the name (sandbox/dns.h);
 * without a bridge nothing listens there and a lookup fails at once. A
 * resolv.conf the host has as a symlink (systemd-resolved's stub) is
 * covered where it leads inside the new root; a tree with none already
 * means 127.0.0.1 to glibc and musl. */
static const char resolv_conf[] = "# vx-sandbox: a sandboxed task has no resolver; its network goes\n"
	"# through HTTP(S)_PROXY, and a name it looks up itself is reported\n"
	"nameserver 127.0.0.1\n"
	"options attempts:1\n";

static int build_resolv(int root)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	struct stat st;
	int t = (int)syscall(SYS_openat2, root, "etc/resolv.conf", &how, sizeof(how)), f, b = -1;
	if (t < 0)
		return 0;
	if (fstat(t, &st) || !S_ISREG(st.st_mode)) {
		close(t);
		return 0;
	}
	f = open(BASE "/resolv.conf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (f < 0 || write(f, resolv_conf, sizeof(resolv_conf) - 1) != sizeof(resolv_conf) - 1 ||
		(b = open_tree(AT_FDCWD, BASE "/resolv.conf", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0 ||
		set_attr(b, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false) ||
		move_mount(b, "", t, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)) {
		if (f >= 0)
			close(f);
		if (b >= 0)
			close(b);
		close(t);
		return fail("unable to bind the sandbox's own", "/etc/resolv.conf");
	}
	close(f);
	close(b);
	close(t);
	return 0;
}

/* Do the flags hold? Every mount of the sandbox nosuid, and every writable
 * one nodev too but for the device nodes bound into /dev and the task's own
 * devpts, read from the kernel's own account after the pivot: a bind or
 * remount that silently drops a flag (MS_BIND|MS_REMOUNT without the ones
 * the mount had, a submount a recursive clone brought along) fails the
 * setup here instead of handing the task a setuid-capable write grant. */
static int check_flags(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	if (!f)
		return fail("unable to read", "/proc/self/mountinfo");
	/* whole lines, however long (a mount point is escaped up to 4 times) */
	while (!rc && getline(&line, &cap, f) > 0) {
		char *fld[6], *save = NULL, *s = line, *opt;
		bool nosuid = false, nodev = false, rw = false, devnode = false;
		size_t n = 0;
		for (; n < 6 && (fld[n] = strtok_r(s, " ", &save)); n++)
			s = NULL;
		if (n < 6)
			continue;
		/* fld[4]: the mount point (octal-escaped), fld[5]: its flags */
		for (opt = strtok_r(fld[5], ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
			nosuid |= !strcmp(opt, "nosuid");
			nodev |= !strcmp(opt, "nodev");
			rw |= !strcmp(opt, "rw");
		}
		devnode = !strcmp(fld[4], "/dev/pts");
		for (size_t i = 0; i < NDEV; i++)
			if (!strncmp(fld[4], "/dev/", 5) && !strcmp(fld[4] + 5, dev_nodes[i]))
				devnode = true;
		if (!nosuid || (rw && !nodev && !devnode)) {
			err_warn("sandbox setup: the mount at '%s' lacks %s, so the task is not "
				"run; fix: report this as a bug", fld[4], !nosuid ? "nosuid" : "nodev");
			rc = -1;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

/* Open the source of every op of kind, by its path from dirfd refusing
 * every symlink, and check it is the inode the plan saw. */
static int open_sources(const struct plan *p, enum op_kind kind, int dirfd, int *src)
{
	for (size_t i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (o->kind != kind)
			continue;
		src[i] = open_strict(dirfd, dirfd == AT_FDCWD ? o->path : rel(o->path), O_PATH);
		if (src[i] < 0)
			return fail("unable to open the grant without following a symlink", o->path);
		if (!same_inode(src[i], o)) {
			errno = ESTALE;
			return fail("the grant changed between the check and the mount", o->path);
		}
	}
	return 0;
}

/* ---- the old root's detach, off pid 1's path ----
 *
 * umount2(MNT_DETACH) takes the old root out of the namespace at once, then
 * waits out an RCU grace period before it returns (namespace_unlock's
 * synchronize_rcu_expedited): 7 ms a task on an idle VM, 80 under load,
 * with nothing for pid 1 to do meanwhile. So a thread of pid 1 makes the
 * call, and pid 1 goes on as soon as the kernel says the old root's mount
 * is no longer in the namespace (statmount: ENOENT, Linux 6.8), which it
 * first checks the kernel finds while it is there. Without statmount, or
 * where the thread cannot be made, pid 1 waits for the call as before. The
 * thread makes one raw system call (no errno, no stack of pid 1's) and
 * exits; every signal pid 1 forwards is blocked in it, as in pid 1 then. */

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef SYS_statmount
#define SYS_statmount 457
#endif

/* x86-64 for the raw call; AddressSanitizer faults on a clone running on
 * a stack it does not know (sandbox/run.c): a sanitized build waits */
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define DETACH_STACK (64u << 10)

struct mnt_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

/* 1 the mount is in this namespace, 0 it is not, -1 unknown (no statmount) */
static int mount_present(uint64_t id)
{
	struct mnt_req req = {.size = sizeof(req), .mnt_id = id};
	uint64_t buf[64];
	if (syscall(SYS_statmount, &req, buf, sizeof(buf), 0UL) == 0)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

/* The thread, made when the build starts and asleep until the pivot: a
 * sleeper woken runs at once where a thread made then would queue behind
 * every runnable task of a loaded machine. */
static struct {
	volatile int go;    /* 1: detach now, 2: leave */
	volatile int rc;    /* umount2's raw return, valid once tid is 0 */
	volatile pid_t tid; /* cleared by the kernel when the thread exits */
} detacher;

/* a system call with no errno: the thread shares pid 1's TLS; the fourth
 * argument (futex's timeout) is NULL */
static long raw3(long nr, long a, long b, long c)
{
	long ret;
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static int detach_main(void *arg)
{
	(void)arg;
	while (!detacher.go)
		raw3(SYS_futex, (long)&detacher.go, FUTEX_WAIT, 0);
	if (detacher.go == 1)
		detacher.rc = (int)raw3(SYS_umount2, (long)".", MNT_DETACH, 0);
	return 0;
}

/* Made while pid 1 has its signals to forward blocked (the thread keeps
 * that mask); none when it cannot be: the pivot then waits as before. */
static void detacher_start(void)
{
	char *stack = mmap(NULL, DETACH_STACK, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	detacher.go = 0;
	detacher.rc = 0;
	detacher.tid = 0;
	if (stack == MAP_FAILED)
		return;
	/* the stack stays mapped: the thread may outlive the build */
	if (clone(detach_main, stack + DETACH_STACK, CLONE_VM | CLONE_FS | CLONE_FILES |
			CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
			CLONE_CHILD_CLEARTID, NULL, &detacher.tid, NULL, &detacher.tid) < 0) {
		detacher.tid = 0;
		munmap(stack, DETACH_STACK);
	}
}

/* pid 1's cwd is the new root, the old one stacked on it */
static int detach_old_root(uint64_t old_id)
{
	bool async = detacher.tid && old_id && mount_present(old_id) == 1;
	detacher.go = async ? 1 : 2; /* 2: it leaves without a call */
	syscall(SYS_futex, &detacher.go, FUTEX_WAKE, 1, NULL, NULL, 0);
	if (!async)
		return umount2(".", MNT_DETACH);
	for (;;) {
		pid_t t = detacher.tid;
		int there = mount_present(old_id);
		if (there == 0)
			return 0;
		if (t == 0) {
			if (detacher.rc == 0 && there != 1)
				return 0;
			errno = detacher.rc < 0 ? -detacher.rc : EBUSY;
			return -1;
		}
		if (there < 0)
			syscall(SYS_futex, &detacher.tid, FUTEX_WAIT, t, NULL, NULL, 0);
		else
			sched_yield();
	}
}
#else
static void detacher_start(void)
{
}

static int detach_old_root(uint64_t old_id)
{
	(void)old_id;
	return umount2(".", MNT_DETACH);
}
#endif

/* The unique id of the mount at / (the old root, before the pivot), or 0. */
static uint64_t root_mount_id(void)
{
	struct statx stx;
	if (statx(AT_FDCWD, "/", 0, STATX_MNT_ID_UNIQUE, &stx) ||
		!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return 0;
	return stx.stx_mnt_id;
}

int mounts_build(const struct plan *p)
{
	/* per op: a bind's source, a mask's own mount */
	int *src = xcalloc(p->nops + 1, sizeof(int)), devfd[NDEV];

	detacher_start();

	for (size_t i = 0; i < NDEV; i++)
		devfd[i] = -1;
	int rootfd = -1, root = -1, rc = -1, f;

	for (size_t i = 0; i < p->nops; i++)
		src[i] = -1;
	/* nothing done here may reach the host's mount namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fail("unable to make private", "/");
		goto out;
	}
	/* a learning run's overlay, while the host's paths mean the host's */
	if (learn_on() && learn_open())
		goto out;
	/* every write source first, while the host's tree is whole */
	if (open_sources(p, OP_RW, AT_FDCWD, src))
		goto out;
	for (size_t i = 0; i < NDEV; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		devfd[i] = open_strict(AT_FDCWD, path, O_PATH);
	}
	/* the host's / as the new root: read-only, nosuid, nodev, every
	 * submount included (mount_setattr recurses where a bind with
	 * MS_REMOUNT would need one call per submount) */
	rootfd = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (rootfd < 0 ||
		set_attr(rootfd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true)) {
		fail("unable to clone read-only", "/");
		goto out;
	}
	/* a tmpfs base holds the new root while it is built, and an empty file
	 * to mask files with; it goes with the old root at the pivot */
	if (mount("tmpfs", BASE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) {
		fail("unable to mount the base tmpfs on", BASE);
		goto out;
	}
	if (mkdir(NEWROOT, 0755) ||
		(f = open(BASE "/empty", O_WRONLY | O_CREAT | O_CLOEXEC, 0444)) < 0) {
		fail("unable to make", NEWROOT);
		goto out;
	}
	close(f);
	if (move_mount(rootfd, "", AT_FDCWD, NEWROOT, MOVE_MOUNT_F_EMPTY_PATH) ||
		(root = open(NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fail("unable to attach the new root at", NEWROOT);
		goto out;
	}
	/* the read sources on the read-only copy, before any mask covers them */
	if (open_sources(p, OP_RO, root, src))
		goto out;
	for (size_t i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		int r = 0;
		switch (o->kind) {
		case OP_DIR:
			break;
		case OP_MASK:
		case OP_SCRATCH:
		case OP_TEMP:
		case OP_CACHE:
			r = lay_mask(p, i, root, src);
			break;
		case OP_MASK_FILE:
			r = lay_mask_file(p, o, root, src);
			break;
		case OP_RO:
		case OP_RW:
			r = lay_bind(p, o, src[i], root, src);
			break;
		}
		if (r)
			goto out;
	}
	if (learn_on() && learn_attach(root))
		goto out;
	if (build_dev(root, devfd) || build_proc(p->nested) || build_sys(root) ||
		build_resolv(root))
		goto out;
	/* pivot into the new root and drop the old one (bubblewrap's and
	 * runc's pivot_root(".", ".")): nothing of the host's tree stays
	 * reachable but what was bound */
	uint64_t old_root = root_mount_id();
	if (fchdir(root) || syscall(SYS_pivot_root, ".", ".") || detach_old_root(old_root) ||
		chdir("/")) {
		fail("unable to pivot into", NEWROOT);
		goto out;
	}
	if (check_flags())
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < p->nops; i++)
		if (src[i] >= 0)
			close(src[i]);
	for (size_t i = 0; i < NDEV; i++)
		if (devfd[i] >= 0)
			close(devfd[i]);
	if (rootfd >= 0)
		close(rootfd);
	if (root >= 0)
		close(root);
	free(src);
	return rc;
}
