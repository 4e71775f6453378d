/* trace.h: the access tracer (issue 5). The sandbox's pid 1 ptraces every
 * process of the task behind a seccomp filter of its own (trace_bpf): the
 * file system calls of trace_calls.c's table return SECCOMP_RET_TRACE, so the task
 * stops only on those, and pid 1 judges each one against the mount plan. An
 * access no grant covers (a read inside the workspace root, a write
 * anywhere) gets the syscall-exit stop too, for its result; a granted one
 * continues at once. The traced process waits while its access is judged
 * and written, so no event can be lost however fast the task goes (R-20,
 * The fast path (fastpath.h) skips the stop for the shim's
 * calls that succeed; a failed one is made again, stopped, unless its errno
 * is none a refusal gives (sberrno.h).
 *
 * Output: JSON lines on r->trace_fd (docs/protocol.md "vx-sandbox trace"):
 * one access record per denied read inside the workspace root, per refused
 * write, per read a widened file grant let through; a final
 * {"trace":"end","events":N} record, or {"trace":"off"} when the kernel
 * refused ptrace (the sandbox then still enforces, reporting nothing).
 *
 * The tracer's files, and what each owns: trace_int.h.
 */
#ifndef VX_SANDBOX_TRACE_H
#define VX_SANDBOX_TRACE_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <sys/types.h>

#include "plan.h"
#include "request.h"

/* Open the trace file for writing (--trace FILE), made 0600: a new file
 * with O_EXCL, or an existing one only when it is a regular file of this
 * user with one link, truncated after that check; never through a
 * symlink (O_NOFOLLOW). A name planted in a shared directory (/tmp) by
 * another user cannot turn the write onto a file of theirs or ours
 * (issue 20 item 4). The fd, or -1 after one line naming the file. */
int trace_open(const char *path);
/* The trace filter (trace_arm.c): SECCOMP_RET_TRACE for the calls of the table,
 * allowing fstat, and with fast the fast path's page (fastpath.h); p's file
 * grants keep reads by open stopping. 0 with prog->filter malloc'ed,
 * or -1 after one line. */
int trace_bpf(const struct plan *p, bool fast, struct sock_fprog *prog);
/* In pid 1, before the task is started: preload the fast path's shim (in
 * this process's environment, which the task execs with) when the task can
 * read it and VX_TRACE_FAST is not 0, and build the trace filter the task
 * loads after its own, before exec (trace_bpf). 0, or -1 after one line. */
int trace_arm_prepare(const struct sb_request *r, const struct plan *p, struct sock_fprog *prog);
/* On the host, before the sandbox is made: open the shim (beside
 * vx-sandbox, or in ../lib/vx/) for trace_arm_prepare, which copies it into the
 * task's private /tmp when its own path is hidden from the task. */
void trace_shim_open(void);
/* Put pid 1 itself, once it has its tracee, under the task's refusals but
 * for ptrace and process_vm_readv of its tracees (filter_build_tracer): 0,
 * or -1 with errno set. */
int trace_confine(const struct sb_request *r);
/* Seize the (stopped-on-a-pipe, dumpable) task with every option the loop
 * needs: 0, or -1 with errno set. */
int trace_seize(pid_t task);
/* Follow the task and its descendants until the task itself exits; write
 * the access records and the end record to r->trace_fd. Returns the task's
 * wait status. */
int trace_loop(const struct sb_request *r, const struct plan *p, pid_t task);
/* Tracing was refused: write the off record and say once on stderr that
 * reads go unreported. */
void trace_off(const struct sb_request *r, const char *why);
/* After the task, before plan_sweep(): one record per placeholder the task
 * never wrote, for the report's dir/ hint. */
void trace_placeholders(const struct sb_request *r, const struct plan *p);

/* The seccomp user-notification prototype, for the benchmark only (see
 * trace_notify.c): chosen by VX_TRACE_NOTIFY=1; the task loads the filter with the
 * notify rules and hands its listener over; pid 1 takes it (the listener,
 * or -1) and follows the notifications until the task exits. */
bool trace_notify_wanted(void);
int trace_notify_child(scmp_filter_ctx f, int ready_w, int go_r);
int trace_notify_parent(pid_t task, int ready_r, int go_w);
int trace_notify_loop(const struct sb_request *r, const struct plan *p, pid_t task,
	int listener);

#endif
