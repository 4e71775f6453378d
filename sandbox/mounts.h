/* mounts.h: the mount tree, built inside the new user and mount namespaces.
 *
 * mounts_build() runs in the sandbox's first process, after its uid/gid maps
 * are written and before anything of the task runs. It opens every bind
 * source by path without following any symlink (openat2
 * RESOLVE_NO_SYMLINKS) and checks it is the inode the plan saw: the write
 * sources on the host's tree, then clones the host's / read-only (nosuid,
 * nodev, recursively) and opens the read sources on that copy, so their
 * clones keep its flags. It lays the plan's masks and binds over it by file
 * descriptor (open_tree, move_mount: never a path a swapped symlink could
 * redirect; inside a sealed mask, which holds no symlink, by the path below
 * the mask's fd), checks each path shows the very mount bound there, mounts
 * a fresh /proc and a minimal /dev, and pivots into it, detaching the
 * host's tree (a thread of its own waits out the detach's RCU grace
 * period; pid 1 goes on once the kernel no longer has the old root in the
 * namespace). It then reads the kernel's account of every mount and fails
 * unless each is nosuid, and each writable one nodev (but the /dev nodes and
 * devpts). 0, or -1 after one line naming the step.
 */
#ifndef VX_SANDBOX_MOUNTS_H
#define VX_SANDBOX_MOUNTS_H

#include "plan.h"

int mounts_build(const struct plan *p);

#endif
