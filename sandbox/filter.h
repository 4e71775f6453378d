/* filter.h: the task's seccomp filter (libseccomp's rules, compiled at build
 * time: filter_compiled below), loaded last in the sandbox, after every
 * capability is gone.
 *
 * Socket families are allow-listed (issue 20 item 3): AF_INET and AF_INET6
 * (the sandbox's network namespace holds only loopback, and vx-proxy's
 * bridge), AF_NETLINK with NETLINK_ROUTE only (getaddrinfo's AI_ADDRCONFIG
 * and getifaddrs read the namespace's own links and addresses), and AF_UNIX
 * as R-32 says; every other family fails with EAFNOSUPPORT (AF_VSOCK,
 * which no network namespace isolates and which reaches the hypervisor;
 * AF_PACKET, AF_ALG, AF_XDP, ...), another netlink protocol with
 * EPROTONOSUPPORT (audit, uevents and the rest are not all per namespace).
 * socketpair(AF_UNIX) of SOCK_STREAM or SOCK_SEQPACKET always works: the
 * pair reaches only the task (Node makes one per piped child process); a
 * datagram pair could sendto() a host socket's path, so it needs the grant.
 * socket(AF_UNIX), which could reach a host pathname socket, fails with
 * EPERM unless the task's own grant lifts it. Under the tracer a
 * stream or seqpacket socket(AF_UNIX) is free and each connect() stops
 * instead: pid 1 connects the task's socket itself, or refuses a unix
 * socket the task did not make, and records it (trace_connect.c); a datagram one
 * stops at socket() and is refused.
 * Refused with EPERM: new user namespaces through clone/unshare and the mount
 * system calls, old API and new, unless weakerWhenNested; ptrace,
 * process_vm_readv/writev, the keyring calls, bpf, perf_event_open; the
 * TIOCSTI and TIOCLINUX ioctls, the command compared as 32 bits. Refused with
 * ENOSYS, never a kill (node probes them): io_uring, whose operations bypass
 * argument filters, and clone3, whose flags a filter cannot read, so libc
 * falls back to clone. A system call of another architecture kills.
 */
#ifndef VX_SANDBOX_FILTER_H
#define VX_SANDBOX_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <seccomp.h>

#include "request.h"

/* Families 0 .. FILTER_FAMILY_MAX-1 are judged one by one; any larger
 * domain is refused. */
#define FILTER_FAMILY_MAX 64
/* SECCOMP_RET_DATA of the task's socket(AF_UNIX) stop under the tracer,
 * and of its connect() stop. */
#define FILTER_TRACE_UNIX 0x7655
#define FILTER_TRACE_CONNECT 0x7656

/* The filter, or NULL after one line naming the failure. */
scmp_filter_ctx filter_build(const struct sb_request *r);
/* The same for the tracer (pid 1 under --trace, trace.h), which needs ptrace
 * and process_vm_readv of its tracees: those two stay allowed except a new
 * tracing relationship (PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE); every
 * other refusal is the task's. */
scmp_filter_ctx filter_build_tracer(const struct sb_request *r);

/* The filter compiled to BPF by libseccomp (seccomp_export_bpf): the
 * sandbox loads such a program with one seccomp(2) call, with the flags
 * seccomp_load would pass (none; no_new_privs is set already). 0, or -1
 * after one line; filter_prog_free releases it. */
int filter_export(scmp_filter_ctx f, struct sock_fprog *prog);
/* 0, or -errno (as seccomp_load returns). */
int filter_load(const struct sock_fprog *prog);

/* A filter depends on four things only: whether it is pid 1's
 * (filter_build_tracer), whether the task is traced (r->trace_fd >= 0:
 * connect() stops, and clone with CLONE_UNTRACED is refused), and the
 * request's unixSockets and weakerWhenNested. So vx-sandbox is built with
 * every variant compiled already (sandbox/gen/filtergen.c runs these same
 * rules through this libseccomp at build time, filter_table.c looks them
 * up): compiling one costs ~0.5 ms a start, twice per traced task. */
#define FILTER_V_TRACER 1u
#define FILTER_V_TRACED 2u
#define FILTER_V_UNIX 4u
#define FILTER_V_NESTED 8u
#define FILTER_VARIANTS 16u
unsigned filter_variant(const struct sb_request *r, bool tracer);
/* Build and export now, with libseccomp (what the table holds). */
int filter_compile(const struct sb_request *r, bool tracer, struct sock_fprog *prog);
/* The program for r from the table (a malloc'ed copy), compiled now when
 * the table lacks it. 0, or -1 after one line; filter_prog_free releases. */
int filter_compiled(const struct sb_request *r, bool tracer, struct sock_fprog *prog);

/* One entry of the table the build generates (filters_gen.c). */
struct filter_gen {
	unsigned short len; /* 0: not generated */
	const struct sock_filter *insns;
};
extern const struct filter_gen filter_gen[FILTER_VARIANTS];
void filter_prog_free(struct sock_fprog *prog);

#endif
