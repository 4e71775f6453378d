/* learn.h: vx-sandbox --learn SCRATCH, the learning run of vx init
 * --sandbox (issue 35).
 *
 * The task runs in the sandbox its request makes with no grant (the
 * baseline), but for one difference: the workspace root is an overlayfs
 * whose lower layer is the real root and whose upper and work layers are
 * SCRATCH/upper and SCRATCH/work. Every read of the workspace succeeds and
 * every write lands in SCRATCH/upper, so the real tree stays byte for byte
 * as it was whatever the task does (rm -rf src, eslint --fix). The walls
 * the baseline lays inside the root (.git, .vx, a nested project, a
 * credential store) are laid again over the overlay. The rest of the host
 * is the baseline's: read-only, credential stores hidden, a private
 * /tmp, no network but loopback.
 *
 * The tracer then records every access inside the root the baseline would
 * refuse, the successful ones too ("errno": null), with the fast path off,
 * so one run tells every grant the task needs.
 *
 * learn_setup (on the host, before the plan): checks SCRATCH (a directory
 * of this user, outside the root, the root not in it), makes upper/ and
 * work/ in it: 0, or -1 after one line. learn_open (pid 1, first thing in
 * mounts_build, while the host's paths still mean the host's) makes the
 * overlay, detached; learn_attach (after the plan's mounts, before the
 * pivot) puts it over the root in the new tree and the walls over it.
 * Both: 0, or -1 after one line. learn_on: is this a learning run? */
#ifndef VX_SANDBOX_LEARN_H
#define VX_SANDBOX_LEARN_H

#include <stdbool.h>

int learn_setup(const char *scratch, const char *root);
bool learn_on(void);
int learn_open(void);
int learn_attach(int newroot);

#endif
