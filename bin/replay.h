/* replay.h: a whole run remembered, and replayed while vx-watch vouches that
 * nothing under the root changed since (watchq.h).
 *
 * replay_save is called after a run in which every task was a hit with its
 * outputs in place (the cache's memo then holds each), with the token
 * vx-watch gave before vx-graph read anything. It writes <root>/.vx/run-<16 hex of the arguments> (the 8
 * latest kept): the token, a digest of the vx programs' stats and of the
 * environment the run read (each task's env names, every VX_ variable,
 * HOME), then per task in the order the run finished them its kind, key,
 * project and id. Nothing is saved when a task has runtime commands (their
 * output moves with no file changing), when a package.json, a root lockfile
 * or a project is reached through a symlink (its target may be outside the
 * watched tree), or when an output glob names node_modules, .git or .vx (not
 * watched).
 *
 * replay_try, given the token vx-watch gives now, replays when the file
 * holds that very token, the same programs and environment, and every
 * cached task is still a hit in place by the cache's memo (its manifest and
 * log unchanged; its outputs vouched by the token): the same report, from
 * neither vx-graph nor vx-key (with dry: each task's --dry line, a hit). The
 * exit code, or -1 with nothing printed (the full run follows).
 */
#ifndef VX_BIN_REPLAY_H
#define VX_BIN_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "ui.h"

void replay_save(const char *root, char *const *args, int nargs, const char *tok,
	cJSON *const *recs, size_t n);
int replay_try(const char *root, char *const *args, int nargs, const char *tok,
	const struct ui_opts *show, bool dry);

#endif
