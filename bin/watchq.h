/* watchq.h: the driver's side of vx-watch (watch/watch.h).
 *
 * watchq_token asks the vx-watch of root for its token, after a sync that
 * makes it count every change made before the call: 1 and tok set
 * ("<instance>-<generation>", equal tokens mean nothing changed under the
 * root between them). The peer must be this user's vx-watch, the program
 * beside the running vx (SO_PEERCRED and /proc/<pid>/exe); another is told to
 * quit and not believed. root/.vx must be this user's directory, not a
 * link, and the watcher must say it watches root itself (its path, device
 * and inode): another tree's vx-watch, its socket here, is not believed and
 * one for root is started. 0 when there is no token to be had within 250 ms:
 * then a vx-watch is started for root, detached, for the next run (unless
 * VX_WATCH=0, or root/.vx/watch-off says it could not watch the tree).
 */
#ifndef VX_BIN_WATCHQ_H
#define VX_BIN_WATCHQ_H

#define WATCHQ_TOKEN_MAX 48

int watchq_token(const char *root, char tok[WATCHQ_TOKEN_MAX]);

#endif
