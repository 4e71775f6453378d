#include "homegrant.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canonmemo.h"
#include "err.h"
#include "glob.h"
#include "path.h"

enum { HOLDS_HOME = 0 }; /* names[0] when HOME is set: refused only at or above it */

static void add(struct homegrant *h, const char *dir, const char *name)
{
	char *lex = path_normalize(dir), *canon = canonmemo_get(&h->canon, lex);
	h->dirs = xrealloc(h->dirs, (h->n + 1) * 2 * sizeof(char *));
	h->names = xrealloc(h->names, (h->n + 1) * sizeof(char *));
	h->dirs[2 * h->n] = lex;
	h->dirs[2 * h->n + 1] = canon;
	h->names[h->n++] = xstrdup(name);
}

void homegrant_init(struct homegrant *h, const char *home, const char *path, const char *root)
{
	memset(h, 0, sizeof(*h));
	canonmemo_init(&h->canon);
	char *rootc = root ? path_canonical_would_be(root) : NULL;
	if (!home || !*home) {
		/* where path_expand_home takes "~" from then */
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (home && home[0] == '/') {
		h->home = path_normalize(home);
		char *name = xasprintf("$HOME itself ('%s')", h->home);
		add(h, h->home, name);
		free(name);
		static const char *const sub[] = {".config", ".local"};
		for (size_t i = 0; i < sizeof(sub) / sizeof(*sub); i++) {
			char *d = path_join(h->home, sub[i]);
			name = xasprintf("~/%s ('%s')", sub[i], d);
			add(h, d, name);
			free(name);
			free(d);
		}
	}
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *dir = xstrndup(path, n);
		path = colon ? colon + 1 : NULL;
		/* "" and relative entries name the cwd of whoever runs: none is a
		 * place the user's shell finds, nor are vx's own in the workspace */
		if (dir[0] == '/') {
			char *lex = path_normalize(dir), *canon = canonmemo_get(&h->canon, lex);
			bool ours = rootc && (path_is_within(rootc, canon) ||
						     (root && path_is_within(root, lex)));
			if (!ours) {
				char *name = xasprintf("'%s', a directory on PATH", lex);
				add(h, lex, name);
				free(name);
			}
			free(lex);
			free(canon);
		}
		free(dir);
	}
	free(rootc);
}

/* Does grant a (a directory it binds whole) reach dir d: d is a, inside a,
 * or holds a? For $HOME only the first two: a tool's cache below it is
 * the allow-list. */
static bool reaches(const char *a, const char *d, bool home)
{
	return path_is_within(a, d) || (!home && path_is_within(d, a));
}

char *homegrant_refusal(struct homegrant *h, const char *pat, bool file)
{
	char *prefix = glob_static_prefix(pat);
	char *lex = path_normalize(prefix[0] ? prefix : "/");
	if (file && !glob_has_magic(pat)) {
		char *d = path_dirname(lex);
		free(lex);
		lex = d;
	}
	char *canon = canonmemo_get(&h->canon, lex);
	const char *hit = NULL;
	for (size_t i = 0; i < h->n && !hit; i++) {
		bool home = h->home && i == HOLDS_HOME;
		const char *dl = h->dirs[2 * i], *dc = h->dirs[2 * i + 1];
		if (reaches(lex, dl, home) || reaches(lex, dc, home) || reaches(canon, dl, home) ||
			reaches(canon, dc, home))
			hit = h->names[i];
	}
	free(prefix);
	free(lex);
	free(canon);
	if (!hit)
		return NULL;
	return xasprintf("it reaches %s%s, where a task could plant code the user runs later, "
			 "outside any sandbox (R-25a); fix: grant only the tool's own cache "
			 "directory, such as '~/.cache/<tool>/' (vx init --sandbox names the "
			 "writes a task makes)",
		hit, file ? " (a file grant binds its directory)" : "");
}

bool homegrant_file_shaped(const char *g, const char *pat)
{
	size_t n = strlen(g);
	struct stat st;
	if (glob_has_magic(g) || (n && g[n - 1] == '/'))
		return false;
	char *lit = glob_unescape(pat);
	bool dir = stat(lit, &st) == 0 && S_ISDIR(st.st_mode);
	free(lit);
	return !dir;
}

void homegrant_free(struct homegrant *h)
{
	for (size_t i = 0; i < 2 * h->n; i++)
		free(h->dirs[i]);
	for (size_t i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->dirs);
	free(h->names);
	free(h->home);
	canonmemo_free(&h->canon);
	memset(h, 0, sizeof(*h));
}
