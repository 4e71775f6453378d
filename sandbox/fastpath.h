/* fastpath.h: what the tracer's seccomp filter (trace_arm.c) and the task's
 * preload library (sandbox/shim/vx-trace.c) agree on.
 *
 * Every traced call costs the task a ptrace stop (~30 us of CPU on a VM),
 * yet a call that succeeds is never an event, except a read a widened file
 * grant lets through. So under --trace vx-sandbox preloads
 * vx-trace.so into the task: its open/stat/access/readlink/mkdir wrappers
 * (and libc's own open64, openat64 and __open_nocancel, diverted to them at
 * load, since glibc calls those from inside itself past any preload)
 * make the system call from one page mapped at FAST_TRAMP_ADDR, which the
 * filter lets through untraced, and make it again from libc's own code (so
 * traced, judged and recorded as before) only when it failed with an errno
 * a refusal of the sandbox can give (libcommon/sberrno.h: vx-report drops
 * any other, such as realpath's EINVAL from readlink of a directory), and
 * not again for a read the same process already sent up alike (the shim's
 * memo: same call, errno and plain path walking with no symlink). The kernel
 * still enforces every mount; the page only decides which calls pid 1 sees.
 * A task that calls from that page on purpose (or rewrites the shim's
 * memory) hides its own failed calls from the report and gains no access:
 * the residual of the fast path, closed by VX_TRACE_FAST=0. Nothing short
 * of that steers it: the one setting the shim reads, FAST_ENV_ROOT, is
 * checked by pid 1 at every exec stop and defaced when it does not name
 * the root (trace_arm.c, trace_env_check).
 */
#ifndef VX_SANDBOX_FASTPATH_H
#define VX_SANDBOX_FASTPATH_H

#include <fcntl.h>

/* Page-aligned with a zero low word, so the filter compares the high word
 * and checks the low word is below FAST_TRAMP_SIZE; high in the user half,
 * clear of ASan's shadow (0x7fff8000-0x10007fff7fff) and of mmap's ASLR
 * range (0x7f..), so MAP_FIXED_NOREPLACE finds it free. */
#define FAST_TRAMP_ADDR 0x5a5a00000000UL
#define FAST_TRAMP_SIZE 4096UL

/* An open that writes (the tracer's 'w' class); one that reads otherwise.
 * The shim makes a failed write again always, the filter tells reads. */
#define FAST_OPEN_WRITE (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)

/* The environment the shim reads: the workspace root, so a failed read of
 * an absolute path outside it (an include path search, a PATH probe) is not
 * made again when it walks with no symlink (openat2 RESOLVE_NO_SYMLINKS from
 * the page): the tracer never reports one (trace_calls.c, plain_outside);
 * one through a symlink may reach the workspace, and is made again. Set by
 * vx-sandbox, verified by pid 1 at each exec (a wrong value is renamed, so
 * the shim then makes every failed call again). */
#define FAST_ENV_ROOT "VX_TRACE_ROOT"
/* Where a failed read inside the root is never an event (trace_arm.c,
 * trace_seen): lines "+DIR" where a read grant binds the host's directory
 * and "-PATH" where the sandbox shows something else (a mask, a temp, a
 * directory a file grant widened, R-26); a path's longest prefix among them
 * decides, "-" on a tie. The shim returns a failed read at once when its
 * path, absolute and plain, falls under "+" and walks with no symlink as
 * far as it exists (openat2 RESOLVE_NO_SYMLINKS from the page): the tracer
 * would resolve it to itself, find it granted, and record nothing. Checked
 * at each exec like FAST_ENV_ROOT. */
#define FAST_ENV_SEEN "VX_TRACE_SEEN"
/* Issue 35 item 5: the directories bound for a file grant alone (plan.h
 * fdirs), one a line, or "*" when one cannot be written so. A write call
 * (an open that writes, creat, mkdir) whose target, or its parent when it
 * is absent, lies on the mount of one of them (statx STATX_MNT_ID from the
 * page: subdirectories too, not a grant bound inside) is made from the
 * shim's own code, traced, so the tracer sees it even when it succeeds;
 * every other write keeps the fast path. Always set ("": no such
 * directory); a shim that finds it missing (defaced at an exec: checked
 * there like FAST_ENV_ROOT) sends every write up. */
#define FAST_ENV_FDIRS "VX_TRACE_FDIRS"
/* The shim's file name beside vx-sandbox (or in ../lib/vx/). */
#define FAST_SHIM_NAME "vx-trace.so"

#endif
