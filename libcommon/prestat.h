/* prestat.h: lstat a list of paths on background threads while the caller
 * works (git's preload_index), so that the caller asks the kernel only
 * about what the list did not know, and both run at once.
 *
 * prestat_start takes n paths, each named by path(arg, i, buf, cap) relative
 * to dirfd (buf is the worker's scratch; return it or any string that lives
 * until prestat_stop), and lstats them in order on up to want threads (one
 * fewer than the CPUs, par.h). Each path is stat'ed once: by a thread, or by
 * the caller when it gets there first. prestat_take(i): 0 with *st, -1 with
 * errno as the lstat failed, or 1 when there is none (stopped, or not
 * reached yet: the path is then the caller's, stat it yourself). A
 * preloaded stat stands for its path until prestat_stop, which stops and
 * joins the threads and closes dirfd: call it as soon as anything may have
 * written one of the paths. When a thread's first stats are slow (the
 * inode tables are being read from the disk), a few more threads join, more
 * than the cores: a cold preload waits on the disk, not on a core. */
#ifndef VX_PRESTAT_H
#define VX_PRESTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "par.h"

struct prestat_ent;

struct prestat {
	const char *(*path)(void *arg, size_t i, char *buf, size_t cap);
	void *arg;
	size_t n;
	int dirfd;
	struct prestat_ent *ent;
	unsigned char *state; /* atomic: who took entry i */
	int stop;             /* atomic */
	int grown;            /* atomic: threads were added for a cold cache */
	struct par_bg bg;
	bool on;
};

/* dirfd becomes the preload's, closed by prestat_stop (at once when n is 0).
 * Nothing starts (and prestat_take says 1) when n is 0 or dirfd < 0. A
 * zeroed struct prestat is a stopped one. */
void prestat_start(struct prestat *p, int dirfd, size_t n,
	const char *(*path)(void *arg, size_t i, char *buf, size_t cap), void *arg, size_t want);
int prestat_take(struct prestat *p, size_t i, struct stat *st);
void prestat_stop(struct prestat *p);

#endif
