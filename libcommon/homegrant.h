/* homegrant.h: R-25a, home writes by allow-list (issue 34 item 5).
 *
 * A write grant is refused when what it can bind is $HOME itself (or holds
 * it), or covers or lies inside ~/.config, ~/.local or a directory on PATH:
 * a task could plant there code the user runs later, outside any sandbox.
 * What remains under $HOME (a tool's cache directory) is allowed, with the
 * read-only guards of R-25. A grant is judged by its static prefix (a glob
 * reaches at most that subtree), both as spelled (lexically normalised:
 * "~/x/.." is $HOME) and as it resolves on disk (links followed, the longest
 * existing ancestor), against HOME and PATH as the caller hands them: the
 * environment of the vx that loads the config, or in vx-sandbox the one the
 * task gets. PATH entries that are relative or inside the workspace root
 * (vx run's node_modules/.bin) are not the user's and are skipped.
 * homegrant_init owns its copies; homegrant_free releases them.
 */
#ifndef VX_HOMEGRANT_H
#define VX_HOMEGRANT_H

#include <stdbool.h>
#include <stddef.h>

#include "canonmemo.h"

struct homegrant {
	char **dirs;  /* the refused directories, each as spelled and canonical */
	char **names; /* how each is named in a refusal ("~/.local", "PATH's '/usr/bin'") */
	size_t n;
	char *home; /* normalised; NULL when HOME is unset or not absolute */
	struct canonmemo canon; /* a thousand projects' dist/ share their parents */
};

/* home, path: $HOME and $PATH (home NULL or "": the password entry's, as
 * path_expand_home takes it; path NULL: none); root: the workspace root,
 * absolute (NULL: none). */
void homegrant_init(struct homegrant *h, const char *home, const char *path, const char *root);
/* pat: the write grant as an absolute pattern ("~/" expanded, a relative
 * one joined to its project, the R-21 collapse applied); file: it is a
 * literal naming no directory (no trailing '/'), so that its directory is
 * what the sandbox binds, and is judged in its place. NULL when it
 * may be granted; else why not, malloc'd, as "it reaches ...; fix: ..."
 * with no leading program or grant name. */
char *homegrant_refusal(struct homegrant *h, const char *pat, bool file);
/* Is grant g (as spelled; pat as above) file-shaped: no glob, no trailing
 * '/', and no directory on disk now (a stat)? */
bool homegrant_file_shaped(const char *g, const char *pat);
void homegrant_free(struct homegrant *h);

#endif
