/* filter.h: the task's seccomp filter (libseccomp), built once on the host
 * and loaded last in the sandbox, after every capability is gone.
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

/* The filter compiled to BPF by libseccomp (seccomp_export_bpf), before the
 * sandbox forks: the sandbox then loads it with one seccomp(2) call, with
 * the flags seccomp_load would pass (none; no_new_privs is set already),
 * instead of compiling it in a fresh copy-on-write copy of this process.
 * 0, or -1 after one line; filter_prog_free releases it. */
int filter_export(scmp_filter_ctx f, struct sock_fprog *prog);
/* 0, or -errno (as seccomp_load returns). */
int filter_load(const struct sock_fprog *prog);
void filter_prog_free(struct sock_fprog *prog);

#endif
