/* filter.c: the seccomp rules (see filter.h for the why of each). */
#include "filter.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"

/* One rule by name; a name this libseccomp or kernel lacks is skipped. */
static int rule(scmp_filter_ctx f, int err, const char *name, unsigned n,
	const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name), rc;
	if (nr == __NR_SCMP_ERROR)
		return 0;
	rc = seccomp_rule_add_array(f, SCMP_ACT_ERRNO((unsigned)err), nr, n, cmp);
	if (rc && rc != -EOPNOTSUPP) {
		err_warn("seccomp: unable to add the rule for %s: %s", name, strerror(-rc));
		return -1;
	}
	return 0;
}

/* The socket families a task may make (filter.h): the rest, and any
 * domain with bits above the low 32 (the kernel reads an int), fail as
 * where the kernel lacks them. */
static bool family_allowed(unsigned fam)
{
	return fam == AF_UNIX || fam == AF_INET || fam == AF_INET6 || fam == AF_NETLINK;
}

static bool families(scmp_filter_ctx f, const struct sb_request *r, bool tracer)
{
	struct scmp_arg_cmp high = SCMP_A0(SCMP_CMP_GE, FILTER_FAMILY_MAX);
	struct scmp_arg_cmp nl[2] = {
		SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_NETLINK),
		SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE),
	};
	struct scmp_arg_cmp unix_a0 = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_UNIX);
	bool ok = true;
	for (unsigned fam = 0; ok && fam < FILTER_FAMILY_MAX; fam++) {
		struct scmp_arg_cmp eq = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, fam);
		if (!family_allowed(fam))
			ok = rule(f, EAFNOSUPPORT, "socket", 1, &eq) == 0 &&
				rule(f, EAFNOSUPPORT, "socketpair", 1, &eq) == 0;
	}
	/* a pair's datagram socket could still sendto() a host path
	 * (journald's, /dev/log): only stream and seqpacket pairs, which
	 * refuse another peer, are free */
	for (unsigned type = 0; ok && type < 16; type++) {
		struct scmp_arg_cmp pair[2] = {
			SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_UNIX),
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type),
		};
		if (type != SOCK_STREAM && type != SOCK_SEQPACKET && !r->unix_sockets)
			ok = rule(f, EPERM, "socketpair", 2, pair) == 0;
	}
	ok = ok && rule(f, EAFNOSUPPORT, "socket", 1, &high) == 0 &&
		rule(f, EAFNOSUPPORT, "socketpair", 1, &high) == 0 &&
		rule(f, EPROTONOSUPPORT, "socket", 2, nl) == 0;
	/* socketpair(AF_UNIX) reaches nothing but the task itself;
	 * socket(AF_UNIX) could reach a host socket. Untraced (and in pid 1)
	 * it fails unless granted. Under the tracer a stream or seqpacket
	 * socket is free and every connect() is a trace stop instead: pid 1
	 * makes the connection itself on the task's socket, or refuses it
	 * (trace_connect.c); a datagram socket, which sendto() could aim at any host
	 * socket without a connect, still stops and is refused. With no
	 * tracer attached a trace stop fails with ENOSYS, still refused. */
	if (ok && r->trace_fd >= 0 && !tracer) {
		int rc = seccomp_rule_add_array(f, SCMP_ACT_TRACE(FILTER_TRACE_CONNECT),
			SCMP_SYS(connect), 0, NULL);
		for (unsigned type = 0; !rc && !r->unix_sockets && type < 16; type++) {
			struct scmp_arg_cmp sock[2] = {
				SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_UNIX),
				SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type),
			};
			if (type != SOCK_STREAM && type != SOCK_SEQPACKET)
				rc = seccomp_rule_add_array(f, SCMP_ACT_TRACE(FILTER_TRACE_UNIX),
					SCMP_SYS(socket), 2, sock);
		}
		if (rc) {
			err_warn("seccomp: unable to add the rule for socket: %s", strerror(-rc));
			ok = false;
		}
	} else if (ok && !r->unix_sockets) {
		ok = rule(f, EPERM, "socket", 1, &unix_a0) == 0;
	}
	return ok;
}

static scmp_filter_ctx build(const struct sb_request *r, bool tracer)
{
	static const char *const refused[] = {
		"ptrace", "process_vm_readv", "process_vm_writev", "keyctl", "add_key",
		"request_key", "bpf", "perf_event_open",
	};
	static const char *const mounts[] = {
		"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
		"fsconfig", "fsmount", "fspick", "mount_setattr",
	};
	static const long new_trace[] = {PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE};
	static const char *const uring[] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register", "clone3",
	};
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	bool ok = f != NULL;
	struct scmp_arg_cmp newuser = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
	struct scmp_arg_cmp sti = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
	struct scmp_arg_cmp linux_ = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);

	if (!f) {
		err_warn("seccomp: unable to start a filter; fix: install libseccomp2");
		return NULL;
	}
	/* a foreign architecture's call numbers mean other calls: kill */
	ok = ok && seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) == 0;
	for (size_t i = 0; ok && i < sizeof(refused) / sizeof(*refused); i++)
		if (!tracer || (strcmp(refused[i], "ptrace") && strcmp(refused[i], "process_vm_readv")))
			ok = rule(f, EPERM, refused[i], 0, NULL) == 0;
	/* the tracer keeps the tracees it has: no new tracing of anything */
	for (size_t i = 0; tracer && ok && i < sizeof(new_trace) / sizeof(*new_trace); i++) {
		struct scmp_arg_cmp req = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)new_trace[i]);
		ok = rule(f, EPERM, "ptrace", 1, &req) == 0;
	}
	for (size_t i = 0; ok && i < sizeof(uring) / sizeof(*uring); i++)
		ok = rule(f, ENOSYS, uring[i], 0, NULL) == 0;
	ok = ok && families(f, r, tracer);
	if (ok && !r->weaker_nested) {
		ok = rule(f, EPERM, "clone", 1, &newuser) == 0 &&
			rule(f, EPERM, "unshare", 1, &newuser) == 0;
		for (size_t i = 0; ok && i < sizeof(mounts) / sizeof(*mounts); i++)
			ok = rule(f, EPERM, mounts[i], 0, NULL) == 0;
	}
	ok = ok && rule(f, EPERM, "ioctl", 1, &sti) == 0 && rule(f, EPERM, "ioctl", 1, &linux_) == 0;
	/* the traced task: a child made with CLONE_UNTRACED would run unseen
	 * (its traced calls would fail with ENOSYS, but nothing would say so) */
	if (ok && r->trace_fd >= 0 && !tracer) {
		struct scmp_arg_cmp untraced = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_UNTRACED, CLONE_UNTRACED);
		ok = rule(f, EPERM, "clone", 1, &untraced) == 0;
	}
	if (!ok) {
		seccomp_release(f);
		return NULL;
	}
	return f;
}

scmp_filter_ctx filter_build(const struct sb_request *r)
{
	return build(r, false);
}

scmp_filter_ctx filter_build_tracer(const struct sb_request *r)
{
	return build(r, true);
}

int filter_export(scmp_filter_ctx f, struct sock_fprog *prog)
{
	int fd = memfd_create("vx-sandbox-filter", MFD_CLOEXEC), rc;
	struct stat st;
	memset(prog, 0, sizeof(*prog));
	if (fd < 0) {
		err_warn_errno("seccomp: unable to make a memfd for the filter");
		return -1;
	}
	rc = seccomp_export_bpf(f, fd);
	if (rc || fstat(fd, &st) || st.st_size <= 0 ||
		st.st_size % (off_t)sizeof(struct sock_filter) ||
		st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		err_warn("seccomp: unable to compile the filter%s%s", rc ? ": " : "",
			rc ? strerror(-rc) : "");
		close(fd);
		return -1;
	}
	prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	prog->filter = xmalloc((size_t)st.st_size);
	if (pread(fd, prog->filter, (size_t)st.st_size, 0) != st.st_size) {
		err_warn_errno("seccomp: unable to read the compiled filter");
		close(fd);
		filter_prog_free(prog);
		return -1;
	}
	close(fd);
	return 0;
}

unsigned filter_variant(const struct sb_request *r, bool tracer)
{
	return (tracer ? FILTER_V_TRACER : 0) | (r->trace_fd >= 0 ? FILTER_V_TRACED : 0) |
	       (r->unix_sockets ? FILTER_V_UNIX : 0) | (r->weaker_nested ? FILTER_V_NESTED : 0);
}

int filter_compile(const struct sb_request *r, bool tracer, struct sock_fprog *prog)
{
	scmp_filter_ctx f = build(r, tracer);
	int rc;
	memset(prog, 0, sizeof(*prog));
	if (!f)
		return -1;
	rc = filter_export(f, prog);
	seccomp_release(f);
	return rc;
}

int filter_load(const struct sock_fprog *prog)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) ? -errno : 0;
}

void filter_prog_free(struct sock_fprog *prog)
{
	free(prog->filter);
	memset(prog, 0, sizeof(*prog));
}
