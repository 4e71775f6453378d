/* gcache.h: vx-graph's output remembered with what produced it.
 *
 * While the workspace loads, every file it reads (or finds absent) and every
 * directory it lists is noted with its stat. After a clean fold the output
 * is saved to <root>/.vx/graph-<key> with those notes, keyed by the arguments
 * this vx-graph binary and the HOME and PATH it judges write grants by
 * (homegrant.h) (one file per key, the 8 latest saved kept). The next run replays it when every note still holds
 * (same inode, size, mtime, ctime, mode; absent still absent): a stat per
 * config file instead of reading and folding them all. A note is kept only
 * for a file last changed more than a second before the run began, so a
 * write within the file system's timestamp granularity cannot hide behind an
 * unchanged stat (git's "racy" case); otherwise nothing is saved. Any doubt,
 * error or unreadable cache is a normal fold; the file is a memo (memo.h), so
 * a damaged one is also a line on stderr. Notes are thread-safe.
 */
#ifndef VX_GRAPH_GCACHE_H
#define VX_GRAPH_GCACHE_H

#include <stdbool.h>
#include <sys/stat.h>

/* Start noting; call before the workspace loads. */
void gcache_begin(void);
/* openat(rootfd, rel) + read, noting the file or its absence. Like
 * fileio_read_at: the text (malloc'd) or NULL with errno. */
char *gcache_read(int rootfd, const char *rel);
/* A directory listed, as fstat showed it before the listing. */
void gcache_note_dir(const char *rel, const struct stat *st);
/* A path whose stat (links followed) or absence a check relies on: 0 with
 * *st, or -1 (errno) when it cannot be stat'ed. */
int gcache_note_path(const char *root, const char *rel, struct stat *st);

/* Replay the saved output for root and these arguments to stdout: true when
 * it was written (the run is done), false to fold normally. */
bool gcache_replay(const char *root, char *const *args, int nargs);
/* Save what was written since gcache_begin (jsonl_out_keep's copy). */
void gcache_save(const char *root, char *const *args, int nargs);

#endif
