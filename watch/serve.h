/* serve.h: vx-watch's daemon.
 *
 * serve_run watches the tree at root (canonical; rst its stat) with
 * watch.h and answers vx run's queries on <root>/.vx/watch.sock: "sync"
 * gets "<instance>-<generation> <dev> <ino> <root>" once every change made
 * before the query was counted, "quit" stops it; only the socket's own
 * user is answered. It exits after VX_WATCH_IDLE seconds without a query
 * (default 10800), when the root or its .vx goes away, on "quit", SIGTERM
 * or SIGINT. One per root: .vx/watch.lock (another holds it: returns 0 at
 * once). When the tree cannot be watched whole for a reason that lasts
 * (the inotify watch limit, an unreadable directory, a remote file
 * system), it writes why to .vx/watch-off, which stops vx run from
 * starting it again, and exits 1. Returns the exit status; takes root.
 */
#ifndef VX_WATCH_SERVE_H
#define VX_WATCH_SERVE_H

#include <sys/stat.h>

int serve_run(char *root, const struct stat *rst);

#endif
