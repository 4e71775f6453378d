/* R-25a (homegrant.h): every spelling of a write grant that reaches $HOME,
 * ~/.config, ~/.local or a PATH directory is refused; a tool's cache under
 * $HOME and the workspace's own directories are not. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "homegrant.h"
#include "path.h"
#include "unit.h"

static struct homegrant h;

static void refused(const char *pat, const char *why)
{
	char *r = homegrant_refusal(&h, pat, false);
	if (r && strstr(r, why)) {
		unit_passed++;
	} else {
		unit_failed++;
		fprintf(stderr, "'%s': got '%s', want one naming '%s'\n", pat, r ? r : "(allowed)", why);
	}
	free(r);
}

static void allowed(const char *pat)
{
	char *r = homegrant_refusal(&h, pat, false);
	if (!r) {
		unit_passed++;
	} else {
		unit_failed++;
		fprintf(stderr, "'%s': refused: %s\n", pat, r);
	}
	free(r);
}

int main(void)
{
	char tmpl[] = "/tmp/vx-homegrant-XXXXXX";
	char *t = mkdtemp(tmpl);
	CHECK(t != NULL);
	char *home = path_join(t, "home"), *ws = path_join(t, "home/src/ws");
	char *cmd = xasprintf("mkdir -p %s/.local/share %s/.cargo/bin %s/bin %s/packages/app "
			      "%s/node_modules/.bin %s/.cache && ln -s %s %s/alias",
		home, home, home, ws, ws, home, home, t);
	CHECK(system(cmd) == 0);
	char *path = xasprintf("%s/.cargo/bin:%s/bin:/usr/local/bin:/usr/bin:%s/node_modules/.bin"
			       "::relative/bin:%s/.nvm/versions/node/v20/bin",
		home, home, ws, home);
	homegrant_init(&h, home, path, ws);

	char *s;
#define HOME_(x) (free(s), s = xasprintf("%s%s", home, x))
	s = NULL;
	refused(HOME_(""), "$HOME itself");
	refused(HOME_("/"), "$HOME itself");
	refused(HOME_("/."), "$HOME itself");
	refused(HOME_("/x/.."), "$HOME itself");
	refused(HOME_("/*"), "$HOME itself");
	refused(HOME_("/**"), "$HOME itself");
	refused(HOME_("/.*"), "$HOME itself");
	refused("/", "$HOME itself");
	refused(t, "$HOME itself");
	refused(HOME_("/.config"), "~/.config");
	refused(HOME_("/.config/fish/"), "~/.config");
	refused(HOME_("/.local/share/x"), "~/.local");
	refused(HOME_("/.local/*"), "~/.local");
	refused(HOME_("/bin"), "on PATH");
	refused(HOME_("/bin/tool"), "on PATH");
	refused(HOME_("/.cargo"), "on PATH");
	refused(HOME_("/.cargo/bin/*"), "on PATH");
	refused(HOME_("/.nvm"), "on PATH");
	refused(HOME_("/.nvm/versions/node/v20/bin/node"), "on PATH");
	refused("/usr/local/bin", "on PATH");
	refused("/usr/local", "on PATH");
	refused("/usr", "on PATH");
	refused("/usr/bin/x/../", "on PATH");
	/* a file grant binds its directory */
	char *r = homegrant_refusal(&h, HOME_("/tool.cfg"), true);
	CHECK(r && strstr(r, "$HOME itself") && strstr(r, "binds its directory"));
	free(r);
	r = homegrant_refusal(&h, HOME_("/.tool/tool.cfg"), true);
	CHECK(r == NULL);
	r = homegrant_refusal(&h, HOME_("/.local/bin/x"), true);
	CHECK(r && strstr(r, "~/.local"));
	free(r);
	/* through a symlink to $HOME */
	free(s);
	s = xasprintf("%s/alias", t);
	refused(s, "$HOME itself");
	free(s);
	s = xasprintf("%s/alias/.local/bin", t);
	refused(s, "~/.local");
	free(s);
	s = xasprintf("%s/alias/.cache/tool", t);
	allowed(s);
	free(s);
	s = NULL;
	/* the allow-list: a tool's cache; the workspace's own dirs */
	allowed(HOME_("/.cache/tool"));
	allowed(HOME_("/.cache/**"));
	allowed(HOME_("/.npm/"));
	allowed(HOME_("/.cargo/registry"));
	allowed(HOME_("/.nvm/versions/node/v20/lib"));
	allowed(HOME_("/.localx"));
	allowed(HOME_("/src/ws/packages/app/dist"));
	allowed(HOME_("/src/ws/node_modules"));
	allowed("/tmp/out");
	allowed("/usr/local/share/x");
	free(s);
	homegrant_free(&h);

	/* no PATH: $HOME's rules alone */
	homegrant_init(&h, "/nonexistent/home", NULL, NULL);
	allowed("/usr/local/bin");
	refused("/nonexistent", "$HOME itself");
	homegrant_free(&h);

	free(cmd);
	cmd = xasprintf("rm -rf %s", t);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(path);
	free(home);
	free(ws);
	return UNIT_END("homegrant");
}
