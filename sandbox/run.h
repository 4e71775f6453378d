/* run.h: start the sandbox and run the task in it.
 *
 * run_task() clones the sandbox's first process (pid 1 of the new pid
 * namespace) into new user, mount, pid, ipc, network and uts namespaces, on
 * a stack of its own. Untraced and without a network bridge, pid 1 shares
 * vx-sandbox's memory (CLONE_VM, as posix_spawn does: no page tables
 * copied, no copy-on-write faults, no address space torn down at its exit)
 * and vx-sandbox meanwhile only waits for it and forwards signals; a tracer
 * or a bridge relay (code that reads what the task sends) gets a copy of
 * its own, as does every pid 1 of a build under AddressSanitizer. The
 * task's TMPDIR, PWD and GIT_DISCOVERY_ACROSS_FILESYSTEM are set before the
 * clone. A shared pid 1 killed by a signal (only from the host: nothing in
 * the sandbox can) may have stopped halfway through malloc, so vx-sandbox
 * then sweeps the placeholders and exits without touching its heap again.
 *
 * pid 1 dies with vx-sandbox (PR_SET_PDEATHSIG, armed before it checks
 * that the pipe vx-sandbox holds open is not closed), writes its own uid/gid
 * maps (the caller's ids, setgroups denied), builds the mount tree
 * (mounts.h), brings loopback up, joins a new session keyring, drops every
 * capability (bounding set, ambient, effective/permitted/inheritable;
 * securebits locked), sets no_new_privs, makes itself (and so shared
 * memory) undumpable and loads the filter (filter.h, compiled into
 * vx-sandbox at build time). It then vforks the task, which starts a new session, keeps only
 * fds 0-2 and execs; pid 1 passes the signals vx-sandbox forwards on to the
 * task's process group. When the task exits, pid 1 exits with its status,
 * and the kernel kills whatever the task left behind in the namespace.
 *
 * Returns the task's exit status (128+N when signal N killed it), or
 * RUN_EXIT_SETUP after one line when the sandbox could not be made (R-35:
 * the task never runs unsandboxed).
 */
#ifndef VX_SANDBOX_RUN_H
#define VX_SANDBOX_RUN_H

#include "plan.h"
#include "request.h"

#include "err.h"

#define RUN_EXIT_SETUP VX_EXIT_SANDBOX

int run_task(const struct sb_request *r, const struct plan *p);

#endif
