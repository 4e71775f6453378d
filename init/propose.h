/* propose.h: vx init --sandbox, the narrowest sandbox block each task needs,
 * found by running it.
 *
 * propose_run folds the workspace with vx-graph (beside this program) and
 * runs each one-shot exec task without a sandbox block, dependencies first,
 * under vx-sandbox --trace, starting from the baseline (nothing of the
 * workspace granted). Each denied access the trace records becomes a grant
 * (a read of a file that exists on the host: the file, or the top directory
 * of the project that holds it; a write inside the project: the top
 * directory written into, or a top-level file), and the task runs again
 * with them, until a run needs nothing new (at most a few rounds). A read
 * outside the project also becomes a cache input (workspaceFiles), so the
 * key moves when that file does. A write outside the project and an
 * AF_UNIX socket are never granted for the next run (a hostile script
 * would get what it asked for: ~/.bashrc, the Docker daemon): each is one
 * line for the user to judge. The result is printed as a unified diff
 * of each vx.json, for review; nothing is written. The block is spliced
 * into the task the parse finds (vxedit.h), never into a comment; a file
 * it cannot edit safely is one line and exit status 1. Network hosts are not
 * found this way (a task without a proxy has no network to ask for): a
 * task that needs one fails, and its line says so.
 *
 * The tasks really run, with the grants found so far: their outputs are
 * written into the workspace as a build would write them.
 */
#ifndef VX_INIT_PROPOSE_H
#define VX_INIT_PROPOSE_H

/* 0, or 1 after printing why (a task that failed with every grant found). */
int propose_run(const char *root, int rootfd);

#endif
