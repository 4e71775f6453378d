/* plan.c: grants to mounts (R-20..R-29), on the host, before the namespaces. */
#include "plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "glob.h"
#include "path.h"

/* where tools keep credentials, relative to $HOME (the reference's
 * list, exactly, macOS paths included: they cost nothing where absent). */
static const char *const cred_stores[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".config/gcloud", ".config/gh",
	".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".yarnrc.yml",
	".pypirc", ".bunfig.toml", ".config/.bunfig.toml", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".config/hub",
	".config/containers/auth.json", ".terraform.d/credentials.tfrc.json",
	".vault-token", ".pgpass", ".config/configstore/firebase-tools.json",
	".local/share/com.vercel.cli/auth.json",
	"Library/Application Support/com.vercel.cli/auth.json", ".netlify/config.json",
	".config/netlify/config.json", "Library/Preferences/netlify/config.json",
	".wrangler/config", ".config/.wrangler/config",
	"Library/Preferences/.wrangler/config", ".fly/config.yml",
	".supabase/access-token", ".config/doctl", "Library/Application Support/doctl",
	".config/stripe/config.toml", ".config/op", ".expo/state.json",
	".claude/.credentials.json", ".codex/auth.json",
};

/* shell and tool configs kept read-only inside a write grant: a task
 * that could write them would run code in the user's next shell or editor. */
static const char *const protected_names[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".profile", ".gitconfig",
	".gitmodules", ".ripgreprc", ".mcp.json", ".vscode", ".idea",
	".claude/commands", ".claude/agents", ".git/hooks", ".git/config",
};
#define PROTECT_LEVELS 3

/* Issue 20 item 10: from $HOME, what a program of the user's executes or
 * sources when it starts, so that a task granted ~/ or ~/.config/ could
 * run code outside the sandbox through it: shells (rc files, aliases,
 * completion, fish's whole config, readline, tmux), the directories on PATH
 * ahead of the system's (Debian's .profile adds ~/bin and ~/.local/bin;
 * rustup, bun, deno, volta and go install there), what a login or desktop
 * session and systemd's user manager start (pam_env, environment.d,
 * autostart, user units, X session scripts), python's user site (a .pth
 * file there runs at every start), git's config and attributes (core.
 * fsmonitor, filters: commands), tools whose config names a command (cargo,
 * yarn, direnv, vim, neovim, emacs) and the agents' and editors' settings
 * (MCP servers, hooks, extensions). Held read-only inside a write grant
 * that holds them, absent ones held by a guard. A trailing slash marks a
 * directory. */
static const char *const home_protected[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
	".bash_completion", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
	".zlogout", ".oh-my-zsh/", ".config/fish/", ".inputrc", ".tmux.conf",
	".config/tmux/",
	".local/bin/", "bin/", ".cargo/bin/", ".bun/bin/", ".deno/bin/", ".volta/bin/",
	"go/bin/",
	".pam_environment", ".config/environment.d/", ".config/autostart/",
	".config/systemd/", ".local/share/systemd/", ".xprofile", ".xinitrc",
	".xsession", ".xsessionrc",
	".local/lib/",
	".gitconfig", ".config/git/", ".ripgreprc", ".cargo/config.toml", ".cargo/config",
	".yarnrc", ".config/direnv/", ".vimrc", ".vim/", ".exrc", ".config/nvim/", ".emacs",
	".emacs.d/", ".config/emacs/",
	".mcp.json", ".claude.json", ".claude/settings.json", ".claude/commands/",
	".claude/agents/", ".cursor/", ".codex/config.toml", ".gemini/settings.json",
	".vscode/", ".config/Code/User/",
};

struct ctx {
	const struct sb_request *r;
	struct plan *p;
	char *home; /* canonical $HOME, or NULL */
	struct strlist named; /* canonical paths the grants name */
	struct strlist real_dirs; /* directories whose realpath is themselves */
	struct strlist nested; /* the projects nested in the task's */
	struct strlist empty_globs; /* a write glob matching nothing: its
	                             * directory, then the grant as written */
};

int plan_path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = *a == '/' ? 1 : (unsigned char)*a;
		unsigned char y = *b == '/' ? 1 : (unsigned char)*b;
		if (x != y || !x)
			return x - y;
	}
}

/* An op for path, its inode from st (lstat of path), or none when st is NULL. */
static struct op *add_op_st(struct plan *p, enum op_kind kind, const char *path,
	const struct stat *st)
{
	struct op *o;
	if (p->nops == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 32;
		p->ops = xrealloc(p->ops, p->cap * sizeof(*p->ops));
	}
	o = &p->ops[p->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->path = xstrdup(path);
	o->parent = -1;
	o->isdir = kind != OP_MASK_FILE;
	if (st) {
		o->isdir = S_ISDIR(st->st_mode);
		o->dev = st->st_dev;
		o->ino = st->st_ino;
	}
	return o;
}

static struct op *add_op(struct plan *p, enum op_kind kind, const char *path)
{
	struct stat st;
	return add_op_st(p, kind, path, lstat(path, &st) == 0 ? &st : NULL);
}

static char *dirname_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s || s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

/* The canonical form of path, resolving its longest existing ancestor and
 * appending the rest lexically: where a path not made yet would land. */
static char *canon_would_be(const char *path)
{
	char *c = path_canonical(path), *dir, *rest, *out;
	const char *base;
	if (c || strcmp(path, "/") == 0)
		return c ? c : xstrdup("/");
	dir = dirname_of(path);
	base = strrchr(path, '/');
	base = base ? base + 1 : path; /* a relative name: callers pass absolute paths */
	rest = canon_would_be(dir);
	out = path_join(rest, base);
	free(dir);
	free(rest);
	return out;
}

static int refuse(const struct ctx *c, const char *grant, const char *fmt, const char *path)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), fmt, path);
	err_warn("%s: grant '%s' refused: %s", c->r->task_id, grant, msg);
	return -1;
}

/* A grant spelled inside the project must stay there once links resolve. */
static int check_escape(const struct ctx *c, const char *grant, const char *lex, char **canon)
{
	char *w = canon_would_be(lex);
	if (path_is_within(c->r->project, lex) && !path_is_within(c->r->project, w)) {
		refuse(c, grant, "it leaves the project through a symlink (to '%s'); "
			"fix: grant the target itself, spelled as the path it is", w);
		free(w);
		return -1;
	}
	*canon = w;
	return 0;
}

/* ---- glob expansion (R-21) ---- */

static void walk_matches(const char *base, const char *rel, const char *rest,
	struct strlist *out)
{
	char *dir = rel[0] ? path_join(base, rel) : xstrdup(base);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d) {
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		char *r;
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		r = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		if (glob_match(rest, r)) {
			/* a matched directory brings its subtree: nothing to walk */
			char *full = path_join(base, r);
			strlist_push(out, full);
			free(full);
		} else if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(st.st_mode) && glob_may_match_under(rest, r)) {
			walk_matches(base, r, rest, out);
		}
		free(r);
	}
	closedir(d);
	free(dir);
}

void plan_expand(const char *pat, struct strlist *out)
{
	char *prefix, *lit;
	const char *rest = pat;
	struct stat st;
	if (!glob_has_magic(pat)) {
		lit = glob_unescape(pat);
		if (lstat(lit, &st) == 0)
			strlist_push(out, lit);
		free(lit);
		return;
	}
	/* the static prefix's segments are skipped in the pattern itself */
	prefix = glob_static_prefix(pat);
	for (const char *q = pat; *q; q++) {
		if (*q == '\\' && q[1]) {
			q++;
			continue;
		}
		if (*q == '*' || *q == '?' || *q == '[')
			break;
		if (*q == '/')
			rest = q + 1;
	}
	walk_matches(prefix[0] ? prefix : "/", "", rest, out);
	free(prefix);
}

/* The grant as an absolute pattern: "~/" from $HOME, relative from the
 * project, the R-21 collapse applied. */
static char *grant_pattern(const struct ctx *c, const char *g)
{
	char *col = glob_collapse(g), *home, *abs;
	if (col[0] == '~' && (col[1] == '\0' || col[1] == '/')) {
		home = path_expand_home(col);
		free(col);
		return home;
	}
	abs = path_join(c->r->project, col);
	free(col);
	return abs;
}

static bool names_git(const char *g)
{
	const char *s = strstr(g, ".git");
	for (; s; s = strstr(s + 1, ".git")) {
		bool start = s == g || s[-1] == '/';
		bool end = s[4] == '\0' || s[4] == '/';
		if (start && end)
			return true;
	}
	return false;
}

/* ---- read grants ---- */

/* Is dir (absolute, normalized) its own canonical form? Known answers are
 * kept for the plan: read grants are mostly siblings (../lib1 .. ../lib50),
 * so their parent is resolved once, not once per grant. */
static bool real_dir(struct ctx *c, const char *dir)
{
	char *cd;
	bool same;
	for (size_t i = 0; i < c->real_dirs.n; i++)
		if (!strcmp(c->real_dirs.v[i], dir))
			return true;
	cd = path_canonical(dir);
	same = cd && !strcmp(cd, dir);
	if (same)
		strlist_push(&c->real_dirs, dir);
	free(cd);
	return same;
}

/* One existing path a read grant names (lexical, absolute, normalized; st
 * its lstat). Where its parent is canonical and the path itself no symlink,
 * it is canonical as it stands and st is the op's inode: no more calls.
 * Else realpath as before. (The sandbox re-opens every source refusing
 * symlinks and compares the inode: what is decided here is checked again at
 * the mount.) */
static int read_path(struct ctx *c, const char *g, const char *lex, const struct stat *st)
{
	const char *leaf = strrchr(lex, '/');
	char *canon;
	if (lex[0] == '/' && !S_ISLNK(st->st_mode) && leaf && leaf[1] &&
		strcmp(leaf, "/.") != 0 && strcmp(leaf, "/..") != 0) {
		char *dir = dirname_of(lex);
		bool fast = real_dir(c, dir);
		free(dir);
		if (fast) {
			add_op_st(c->p, OP_RO, lex, st);
			strlist_push(&c->named, lex);
			strlist_push(&c->p->readable, lex);
			return 0;
		}
	}
	if (check_escape(c, g, lex, &canon))
		return -1;
	if (access(canon, F_OK) == 0) {
		add_op(c->p, OP_RO, canon);
		strlist_push(&c->named, canon);
		strlist_push(&c->p->readable, canon);
	}
	free(canon);
	return 0;
}

/* Issue 19 item 2: does path lie in a project nested in the task's, which a
 * glob whose static prefix is outside it does not reach? */
static bool beyond_nested(const struct ctx *c, const char *prefix, const char *path)
{
	for (size_t i = 0; i < c->nested.n; i++)
		if (path_is_within(c->nested.v[i], path) && !path_is_within(c->nested.v[i], prefix))
			return true;
	return false;
}

static int add_reads(struct ctx *c)
{
	for (size_t i = 0; i < c->r->read.n; i++) {
		const char *g = c->r->read.v[i];
		char *pat = grant_pattern(c, g);
		struct strlist m = {0};
		struct stat st;
		int rc = 0;
		if (!glob_has_magic(pat)) {
			/* plan_expand's own test of a literal, its lstat kept */
			char *lit = glob_unescape(pat);
			if (lstat(lit, &st) == 0)
				rc = read_path(c, g, lit, &st);
			free(lit);
		} else {
			plan_expand(pat, &m);
		}
		char *prefix = glob_static_prefix(pat);
		for (size_t j = 0; !rc && j < m.n; j++)
			if (!beyond_nested(c, prefix, m.v[j]) && lstat(m.v[j], &st) == 0)
				rc = read_path(c, g, m.v[j], &st);
		free(prefix);
		strlist_free(&m);
		free(pat);
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- write grants ---- */

/* mkdir -p of a path whose existing part is already checked. */
static int mkdirs(const char *path)
{
	char *dir;
	int rc;
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	dir = dirname_of(path);
	rc = mkdirs(dir);
	free(dir);
	return rc ? rc : (mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1);
}

static void add_placeholder(struct plan *p, const char *path, const char *grant,
	const struct stat *st)
{
	if (p->nph == p->phcap) {
		p->phcap = p->phcap ? 2 * p->phcap : 8;
		p->ph = xrealloc(p->ph, p->phcap * sizeof(*p->ph));
	}
	p->ph[p->nph].path = xstrdup(path);
	p->ph[p->nph].grant = xstrdup(grant);
	p->ph[p->nph].mtime = st->st_mtim;
	p->nph++;
}

/* The modes that mark a guard: a file nobody may open, a directory anyone
 * may list (git status walks it without a warning), both unusual enough
 * for a user's own. */
#define GUARD_FILE_MODE 0000
#define GUARD_DIR_MODE 0555
/* in $HOME a guard file stays readable: git, cargo and others read these
 * at start and fail on EACCES (the task's and the user's own, meanwhile),
 * while an empty config is a valid one to each */
#define GUARD_HOME_FILE_MODE 0404

static bool is_guard(const char *path, const struct stat *st, mode_t fmode);

/* a write bind must not make the repository, the cache or a nested
 * project writable. */
static int check_write_dir(const struct ctx *c, const char *g, const char *d)
{
	const struct sb_request *r = c->r;
	char *git = path_join(r->root, ".git"), *vx = path_join(r->root, ".vx");
	const char *cache = getenv("VX_CACHE_DIR");
	int rc = 0;
	if (path_is_within(d, git) || (path_is_within(r->root, d) && names_git(d))) {
		rc = refuse(c, g, "its bind '%s' would make the repository's .git writable; "
			"fix: grant a directory that holds no .git", d);
	} else if (path_is_within(d, vx) || path_is_within(vx, d)) {
		rc = refuse(c, g, "its bind '%s' would make the cache (.vx) writable; "
			"fix: grant a subdirectory for the outputs, such as 'dist/'", d);
	} else if (cache && *cache && *cache != '/') {
		/* resolved from here (the project, under vx run) it would name
		 * another place than the cache vx uses: vx run hands it absolute */
		err_warn("VX_CACHE_DIR '%s' is relative; fix: an absolute path", cache);
		rc = -1;
	} else if (cache && *cache) {
		char *cc = canon_would_be(cache);
		if (path_is_within(d, cc) || path_is_within(cc, d))
			rc = refuse(c, g, "its bind '%s' would make the cache directory "
				"(VX_CACHE_DIR) writable; fix: grant a directory outside it", d);
		free(cc);
	}
	for (size_t i = 0; !rc && i < r->nprojects; i++) {
		const char *pd = r->projects[i].dir;
		if (!strcmp(pd, r->project))
			continue;
		if (path_is_within(d, pd) ||
			(path_is_within(pd, d) && path_is_within(r->project, pd)))
			rc = refuse(c, g, "its bind '%s' would make a nested project writable; "
				"fix: grant the project's own output directory, such as 'dist/'", d);
	}
	if (!rc && path_is_within(r->root, d)) {
		char *dg = path_join(d, ".git");
		struct stat st;
		if (lstat(dg, &st) == 0 && !is_guard(dg, &st, GUARD_FILE_MODE))
			rc = refuse(c, g, "its bind '%s' holds a .git; fix: grant a "
				"directory that holds no repository", d);
		free(dg);
	}
	free(git);
	free(vx);
	return rc;
}

static bool is_protected_name(const char *rel)
{
	for (size_t i = 0; i < sizeof(protected_names) / sizeof(*protected_names); i++)
		if (!strcmp(rel, protected_names[i]))
			return true;
	return false;
}

/* Protected names that are directories; the rest are files. */
static bool protected_is_dir(const char *name)
{
	static const char *const dirs[] = {
		".vscode", ".idea", ".claude/commands", ".claude/agents", ".git/hooks",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		if (!strcmp(name, dirs[i]))
			return true;
	return false;
}

/* A guard vx-sandbox made (or left behind when killed): empty, its mode
 * (fmode for a file: GUARD_HOME_FILE_MODE in $HOME, else GUARD_FILE_MODE). */
static bool is_guard(const char *path, const struct stat *st, mode_t fmode)
{
	DIR *d;
	struct dirent *e;
	bool empty = true;
	if (S_ISREG(st->st_mode))
		return (st->st_mode & 07777) == fmode && st->st_size == 0;
	if ((st->st_mode & 07777) != GUARD_DIR_MODE)
		return false;
	if (!S_ISDIR(st->st_mode) || !(d = opendir(path)))
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

static void add_guard(struct plan *p, const char *path, bool isdir, mode_t fmode)
{
	if (p->ng == p->gcap) {
		p->gcap = p->gcap ? 2 * p->gcap : 16;
		p->guards = xrealloc(p->guards, p->gcap * sizeof(*p->guards));
	}
	p->guards[p->ng].path = xstrdup(path);
	p->guards[p->ng].isdir = isdir;
	p->guards[p->ng].fmode = fmode;
	p->ng++;
}

/* Make the guard at p (absent: its parent checked already), bound
 * read-only and swept afterwards. 0, or -1 after one line. */
static int hold_name(struct ctx *c, const char *p, bool isdir, mode_t fmode)
{
	int fd, rc = 0;
	if (isdir)
		fd = mkdir(p, 0700) ? -1 : open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	else
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		/* where the caller may not create it, neither may the task */
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			return 0;
		err_warn_errno("%s: unable to hold the protected name '%s'", c->r->task_id, p);
		return -1;
	}
	add_guard(c->p, p, isdir, fmode);
	/* mkdir and open apply the umask: the mode is set after, through the
	 * fd, never by a path another task could swap meanwhile */
	if (fchmod(fd, isdir ? GUARD_DIR_MODE : fmode)) {
		err_warn_errno("%s: unable to hold the protected name '%s'", c->r->task_id, p);
		rc = -1;
	}
	close(fd);
	add_op(c->p, OP_RO, p)->protect = true;
	return rc;
}

/* R-25 for a config absent at start: hold its name with an empty file (mode
 * 0000) or directory (0555), bound read-only (so creating, writing, renaming onto or
 * removing it all fail), and sweep it afterwards. Where the name's parent is
 * missing too (.git/hooks without .git, .claude/agents without .claude) the
 * parent is the one held. 0, or -1 after one line. */
static int guard_missing(struct ctx *c, const char *dir, const char *name)
{
	const char *slash = strchr(name, '/');
	char *first = slash ? xstrndup(name, (size_t)(slash - name)) : xstrdup(name);
	char *p = path_join(dir, first), *leaf = NULL;
	struct stat st;
	bool isdir = true;
	int rc = 0;

	if (lstat(p, &st) == 0) {
		/* the parent exists: hold the leaf inside it (a real directory
		 * only; a symlinked one leads elsewhere) */
		if (!slash || !S_ISDIR(st.st_mode) || (st.st_mode & 07777) == GUARD_DIR_MODE)
			goto out; /* (a parent with the guard's mode is one already) */
		leaf = path_join(dir, name);
		free(p);
		p = leaf;
		leaf = NULL;
		isdir = protected_is_dir(name);
		if (lstat(p, &st) == 0)
			goto out;
	} else {
		isdir = slash != NULL || protected_is_dir(name);
	}
	if (errno == ENOENT)
		rc = hold_name(c, p, isdir, GUARD_FILE_MODE);
out:
	free(leaf);
	free(first);
	free(p);
	return rc;
}

/* mkdir -p of dir below an existing directory, each one made recorded for
 * the sweep (removed when the task left it empty). */
static int make_parents(struct plan *p, const char *dir)
{
	struct stat st;
	char *up;
	int rc;
	if (lstat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -1;
	if (errno != ENOENT)
		return -1;
	up = dirname_of(dir);
	rc = make_parents(p, up);
	free(up);
	if (rc || mkdir(dir, 0777))
		return -1;
	strlist_push(&p->made, dir);
	return 0;
}

/* Is the first component of home_protected entry e a symlink in $HOME? */
static bool home_link(const struct ctx *c, const char *e)
{
	char *first = xstrndup(e, strcspn(e, "/")), *p = path_join(c->home, first);
	struct stat st;
	bool link = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
	free(p);
	free(first);
	return link;
}

/* Issue 20 item 10: the home_protected names a write bind of d holds
 * (d itself excepted: a grant naming one frees it), by their canonical
 * path: read-only where they exist, held by a guard where not (its
 * missing parents made as ordinary directories). 0, or -1 after a line. */
static int protect_home(struct ctx *c, const char *d)
{
	int rc = 0;
	/* a bind neither in $HOME nor holding it reaches an entry of $HOME
	 * only through a link $HOME holds itself (a ~/.config leading out):
	 * then one lstat a name, not a realpath (a dist/ grant costs no
	 * readlink) */
	bool near = c->home && (path_is_within(c->home, d) || path_is_within(d, c->home));
	if (!c->home)
		return 0;
	for (size_t i = 0; !rc && i < sizeof(home_protected) / sizeof(*home_protected); i++) {
		const char *e = home_protected[i];
		size_t n = strlen(e);
		bool isdir = e[n - 1] == '/';
		char *name, *lex, *cp, *parent;
		struct stat st;
		if (!near && !home_link(c, e))
			continue;
		name = xstrndup(e, isdir ? n - 1 : n);
		lex = path_join(c->home, name);
		cp = canon_would_be(lex);
		if (strcmp(cp, d) != 0 && path_is_within(d, cp)) {
			if (lstat(cp, &st) == 0) {
				if (!S_ISLNK(st.st_mode)) {
					add_op(c->p, OP_RO, cp)->protect = true;
					if (is_guard(cp, &st, GUARD_HOME_FILE_MODE))
						add_guard(c->p, cp, S_ISDIR(st.st_mode),
							GUARD_HOME_FILE_MODE);
				}
			} else if (errno == ENOENT) {
				parent = dirname_of(cp);
				if (make_parents(c->p, parent) == 0)
					rc = hold_name(c, cp, isdir, GUARD_HOME_FILE_MODE);
				free(parent);
			}
		}
		free(cp);
		free(lex);
		free(name);
	}
	return rc;
}

/* Where a created config takes effect: a shell, an editor, an agent or git
 * picks these up from the folder it is opened in (a project, the workspace
 * root), never from an output directory such as dist/ — where a guard would
 * only break the tools that empty their output entry by entry (EBUSY). */
static bool takes_effect(const struct ctx *c, const char *dir)
{
	if (!strcmp(dir, c->r->root) || !strcmp(dir, c->r->project))
		return true;
	for (size_t i = 0; i < c->r->nprojects; i++)
		if (!strcmp(dir, c->r->projects[i].dir))
			return true;
	return false;
}

/* in dir, levels deep at most, hold the protected configs
 * read-only (holding absent ones too in a project directory or the
 * workspace root, where they would take effect) and refuse a repository (a .git directory or gitfile, as a
 * submodule has) inside the workspace. A .git found outside the workspace
 * keeps its pointer file, hooks and config read-only. */
static int scan_protected(struct ctx *c, const char *g, const char *dir, int levels, bool inside)
{
	DIR *d;
	struct dirent *e;
	char *git = path_join(dir, ".git");
	struct stat st;
	int rc = 0;

	if (lstat(git, &st) == 0 && !is_guard(git, &st, GUARD_FILE_MODE)) {
		if (inside)
			rc = refuse(c, g, "its bind would make the repository '%s' writable (a "
				"submodule or nested checkout); fix: grant a directory that holds no "
				".git, or its own output directory", git);
		else if (S_ISREG(st.st_mode))
			add_op(c->p, OP_RO, git)->protect = true;
	}
	free(git);
	for (size_t i = 0; !rc && i < sizeof(protected_names) / sizeof(*protected_names); i++) {
		const char *name = protected_names[i];
		char *p;
		if (c->r->git_config && !strcmp(name, ".git/config"))
			continue;
		p = path_join(dir, name);
		if (lstat(p, &st) == 0) {
			if (!S_ISLNK(st.st_mode)) {
				add_op(c->p, OP_RO, p)->protect = true;
				if (inside && is_guard(p, &st, GUARD_FILE_MODE)) /* left by a killed run */
					add_guard(c->p, p, S_ISDIR(st.st_mode), GUARD_FILE_MODE);
			}
		} else if (inside && takes_effect(c, dir)) {
			rc = guard_missing(c, dir, name);
		}
		free(p);
	}
	if (rc || levels <= 0 || !(d = opendir(dir)))
		return rc;
	while (!rc && (e = readdir(d))) {
		char *sub;
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (!strcmp(e->d_name, "node_modules") || !strcmp(e->d_name, ".git") ||
			is_protected_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		sub = path_join(dir, e->d_name);
		rc = scan_protected(c, g, sub, levels - 1, inside);
		free(sub);
	}
	closedir(d);
	return rc;
}

static int depth_below(const char *root, const char *p)
{
	char *rel = path_under(root, p);
	int n = 0;
	if (!rel)
		return -1;
	if (strcmp(rel, ".") != 0)
		for (const char *s = rel, *t; s; s = (t = strchr(s, '/')) ? t + 1 : NULL)
			n++;
	free(rel);
	return n;
}

static int add_write_dir(struct ctx *c, const char *g, const char *d)
{
	int depth;
	if (check_write_dir(c, g, d))
		return -1;
	add_op(c->p, OP_RW, d);
	strlist_push(&c->named, d);
	if (protect_home(c, d))
		return -1;
	depth = depth_below(c->r->root, d);
	if (depth < 0)
		return scan_protected(c, g, d, PROTECT_LEVELS, false);
	if (depth <= PROTECT_LEVELS)
		return scan_protected(c, g, d, PROTECT_LEVELS - depth, true);
	return 0;
}

/* One matched or literal path of a write grant: its directory is bound
 * (a rename onto a file mount fails, and every atomic writer renames). */
static int write_path(struct ctx *c, const char *g, const char *lex, bool dir_shape)
{
	struct stat st;
	char *canon, *d;
	bool inside = path_is_within(c->r->project, lex);
	int rc;
	if (check_escape(c, g, lex, &canon))
		return -1;
	if (lstat(canon, &st) != 0) {
		if (dir_shape) {
			if (mkdirs(canon)) {
				err_warn_errno("%s: unable to create '%s' for write grant '%s'",
					c->r->task_id, canon, g);
				free(canon);
				return -1;
			}
		} else if (!inside) {
			err_warn("%s: write grant '%s' names nothing yet and lies outside the "
				"project, where only directories are made; spell it '%s/' if it is "
				"one", c->r->task_id, g, g);
			free(canon);
			return 0;
		} else {
			char *parent = dirname_of(canon);
			int fd;
			if (mkdirs(parent) ||
				(fd = open(canon, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					0666)) < 0) {
				err_warn_errno("%s: unable to create '%s' for write grant '%s'",
					c->r->task_id, canon, g);
				free(parent);
				free(canon);
				return -1;
			}
			fstat(fd, &st);
			close(fd);
			add_placeholder(c->p, canon, g, &st);
			free(parent);
		}
		if (lstat(canon, &st) != 0) {
			free(canon);
			return -1;
		}
	}
	d = S_ISDIR(st.st_mode) ? xstrdup(canon) : dirname_of(canon);
	if (!S_ISDIR(st.st_mode))
		strlist_push(&c->p->wfiles, canon);
	rc = add_write_dir(c, g, d);
	free(d);
	free(canon);
	return rc;
}

static int add_writes(struct ctx *c)
{
	for (size_t i = 0; i < c->r->write.n; i++) {
		const char *g = c->r->write.v[i];
		size_t n = strlen(g);
		char *pat = grant_pattern(c, g);
		/* a glob's static prefix is a directory (also where the R-21
		 * collapse left no magic: a grant ending in two stars, R-22) */
		bool dir_shape = (n > 0 && g[n - 1] == '/') || glob_has_magic(g);
		int rc = 0;
		if (!glob_has_magic(pat)) {
			char *lit = glob_unescape(pat);
			rc = write_path(c, g, lit, dir_shape);
			free(lit);
		} else {
			/* the static prefix is made a directory, then matched */
			char *prefix = glob_static_prefix(pat), *canon = NULL;
			struct strlist m = {0};
			if (check_escape(c, g, prefix, &canon))
				rc = -1;
			else if (mkdirs(canon))
				rc = -1, err_warn_errno("%s: unable to create '%s' for write grant '%s'",
					c->r->task_id, canon, g);
			if (!rc) {
				plan_expand(pat, &m);
				if (m.n == 0) {
					/* judged once every op is known */
					strlist_push(&c->empty_globs, canon);
					strlist_push(&c->empty_globs, g);
				}
			}
			for (size_t j = 0; !rc && j < m.n; j++) {
				struct stat st;
				rc = write_path(c, g, m.v[j], lstat(m.v[j], &st) == 0 && S_ISDIR(st.st_mode));
			}
			strlist_free(&m);
			free(canon);
			free(prefix);
		}
		free(pat);
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- allow.gitConfig (R-25) ---- */

static bool is_named(const struct ctx *c, const char *p);

/* git writes its config as every atomic writer does: config.lock made
 * beside it, then renamed onto it. So the repository's .git directory (the
 * first found from the project up, a real directory) is bound writable and
 * every entry in it but config keeps the view it had: read-only where a
 * grant names the repository or it lies outside the workspace, masked
 * where not. A mount point cannot be removed, replaced or renamed onto, so
 * HEAD, refs, objects, hooks and index stay as they were; new names may be
 * made beside them (config.lock; what they could do config already can). */
static void add_git_config(struct ctx *c)
{
	char *dir = xstrdup(c->r->project), *git = NULL, *up;
	struct stat st;
	bool readable;
	DIR *d;
	struct dirent *e;
	for (;;) {
		git = path_join(dir, ".git");
		if (lstat(git, &st) == 0 || !strcmp(dir, "/"))
			break;
		free(git);
		git = NULL;
		up = dirname_of(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	if (!git || lstat(git, &st) != 0 || !S_ISDIR(st.st_mode) || !(d = opendir(git))) {
		free(git);
		return;
	}
	readable = is_named(c, git) || !path_is_within(c->r->root, git);
	add_op_st(c->p, OP_RW, git, &st);
	strlist_push(&c->named, git);
	c->p->git_discovery = true;
	while ((e = readdir(d))) {
		char *p;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "config"))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || S_ISLNK(st.st_mode))
			continue;
		p = path_join(git, e->d_name);
		if (readable)
			add_op_st(c->p, OP_RO, p, &st)->protect = true;
		else
			add_op_st(c->p, S_ISDIR(st.st_mode) ? OP_MASK : OP_MASK_FILE, p, &st);
		free(p);
	}
	closedir(d);
	free(git);
}

/* ---- node_modules (R-28) ---- */

static bool keyed_dir(const struct ctx *c, const char *t)
{
	const struct sb_request *r = c->r;
	for (size_t i = 0; i < r->nprojects; i++) {
		if (strcmp(r->projects[i].dir, t) != 0)
			continue;
		for (size_t k = 0; k < r->keyed.n; k++)
			if (!strcmp(r->keyed.v[k], r->projects[i].name))
				return true;
	}
	return false;
}

static void scan_links(struct ctx *c, const char *nm, bool deeper);

static void consider_link(struct ctx *c, const char *link, bool deeper)
{
	struct stat st;
	char *t, *sub;
	if (lstat(link, &st) || !S_ISLNK(st.st_mode) || !(t = path_canonical(link)))
		return;
	/* never the task's own project or a directory holding it (rule 1);
	 * outside the root the link grants nothing the root does not (rule 2);
	 * a cached task only what its key answers for (rule 4) */
	if (stat(t, &st) || !S_ISDIR(st.st_mode) || path_is_within(t, c->r->project) ||
		!path_is_within(c->r->root, t) || (c->r->cached && !keyed_dir(c, t))) {
		if (!stat(t, &st) && S_ISDIR(st.st_mode) && !path_is_within(t, c->r->project) &&
			path_is_within(c->r->root, t)) {
			strlist_push(&c->p->withheld, link);
			strlist_push(&c->p->withheld, t);
		}
		free(t);
		return;
	}
	add_op(c->p, OP_RO, t);
	strlist_push(&c->p->readable, t);
	if (deeper) {
		sub = path_join(t, "node_modules");
		scan_links(c, sub, false);
		free(sub);
	}
	free(t);
}

/* Depth 0 and inside @scope/ only (the reference's linkedDeps). */
static void scan_links(struct ctx *c, const char *nm, bool deeper)
{
	DIR *d = opendir(nm);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;
		if (e->d_name[0] == '.')
			continue;
		p = path_join(nm, e->d_name);
		if (e->d_name[0] == '@') {
			DIR *s = opendir(p);
			struct dirent *f;
			struct stat st;
			if (s && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
				while ((f = readdir(s))) {
					char *q;
					if (f->d_name[0] == '.')
						continue;
					q = path_join(p, f->d_name);
					consider_link(c, q, deeper);
					free(q);
				}
			}
			if (s)
				closedir(s);
		} else {
			consider_link(c, p, deeper);
		}
		free(p);
	}
	closedir(d);
}

static void add_node_modules(struct ctx *c)
{
	const char *dirs[2] = {c->r->project, c->r->root};
	for (int i = 0; i < 2; i++) {
		char *nm, *cn;
		struct stat st;
		if (i == 1 && !strcmp(dirs[0], dirs[1]))
			break;
		nm = path_join(dirs[i], "node_modules");
		/* mostly absent: one lstat, not realpath's readlink a component */
		cn = lstat(nm, &st) == 0 ? path_canonical(nm) : NULL;
		if (cn && path_is_within(c->r->root, cn)) {
			add_op(c->p, OP_RO, cn);
			strlist_push(&c->p->readable, cn);
			scan_links(c, cn, true);
		}
		free(cn);
		free(nm);
	}
}

/* ---- walls and masks ---- */

static bool is_named(const struct ctx *c, const char *p)
{
	for (size_t i = 0; i < c->named.n; i++)
		if (path_is_within(p, c->named.v[i]))
			return true;
	return false;
}

static void add_walls(struct ctx *c)
{
	/* .git and .vx under a bind of the root stay hidden unless named */
	const char *walls[] = {".git", ".vx"};
	for (size_t i = 0; i < 2; i++) {
		char *p = path_join(c->r->root, walls[i]);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && !is_named(c, p))
			add_op(c->p, OP_MASK, p);
		free(p);
	}
	/* issue 19 item 2: a project nested in the task's is a wall its grants
	 * do not reach (its files fold into its own tasks' keys, never this
	 * one's): masked under a grant of an ancestor ('.'), while a grant
	 * spelled inside it, or its link under node_modules, binds over
	 * the mask */
	for (size_t i = 0; i < c->nested.n; i++) {
		struct stat st;
		if (lstat(c->nested.v[i], &st) == 0 && S_ISDIR(st.st_mode))
			add_op(c->p, OP_MASK, c->nested.v[i]);
	}
	if (!c->home)
		return;
	for (size_t i = 0; i < sizeof(cred_stores) / sizeof(*cred_stores); i++) {
		char *p = path_join(c->home, cred_stores[i]), *cp, *dir;
		struct stat st;
		bool real;
		if (lstat(p, &st) != 0) {
			free(p);
			continue;
		}
		/* no symlink on the way: canonical as it stands, st its own */
		dir = dirname_of(p);
		real = !S_ISLNK(st.st_mode) && real_dir(c, dir);
		free(dir);
		if (real) {
			cp = xstrdup(p);
		} else if (!(cp = path_canonical(p)) || stat(cp, &st) != 0) {
			free(cp);
			free(p);
			continue;
		}
		/* a grant naming the store, or a path inside it, frees that path */
		bool exact = false;
		for (size_t k = 0; k < c->named.n; k++)
			if (!strcmp(c->named.v[k], cp))
				exact = true;
		if (!exact)
			add_op_st(c->p, S_ISDIR(st.st_mode) ? OP_MASK : OP_MASK_FILE, cp, &st);
		free(cp);
		free(p);
	}
}

/* ---- the private /tmp (issue 19 item 9) ---- */

/* Paths outside the workspace stay readable, but the task's /tmp is
 * its own: a $HOME or a toolchain on PATH under the host's /tmp would
 * vanish. Each is bound back read-only (the credential stores in $HOME
 * masked as anywhere). Nothing else of the host's /tmp shows: other users'
 * and other tasks' files there (vx run's proxy sockets) stay out of reach;
 * another path there is granted by naming it (allow.read). */
static void keep_under_tmp(struct ctx *c, const char *path)
{
	/* as spelled: a PATH of /usr/bin costs no realpath */
	char *cp = path && path_is_within("/tmp", path) ? path_canonical(path) : NULL;
	struct stat st;
	if (cp && strcmp(cp, "/tmp") != 0 && path_is_within("/tmp", cp) &&
		!path_is_within(c->r->root, cp) && lstat(cp, &st) == 0 && S_ISDIR(st.st_mode))
		add_op_st(c->p, OP_RO, cp, &st);
	free(cp);
}

static void add_tmp_keeps(struct ctx *c)
{
	const char *path = getenv("PATH");
	keep_under_tmp(c, c->home);
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *dir = xstrndup(path, n);
		keep_under_tmp(c, dir);
		free(dir);
		path = colon ? colon + 1 : NULL;
	}
}

/* ---- write globs matching nothing (issue 19 item 9) ---- */

/* The reference's rule for a write glob that matches nothing when the task
 * starts, by what holds its directory: a mask (no grant shows it) makes it
 * the task's own scratch, where the task may create, write and remove what
 * the glob matches (anything else too) and nothing outlives the task: right
 * for a tool's temp directory (the schema's Bun example); a read-only bind
 * (a read grant, the host's /) leaves the task's write there EROFS, so that
 * is said
 * once, before the task runs, with the directory to grant; a writable one
 * needs nothing. */
static void judge_empty_globs(struct ctx *c)
{
	for (size_t i = 0; i + 1 < c->empty_globs.n; i += 2) {
		const char *d = c->empty_globs.v[i], *g = c->empty_globs.v[i + 1];
		const struct op *best = NULL;
		for (size_t k = 0; k < c->p->nops; k++) {
			const struct op *o = &c->p->ops[k];
			if (o->kind != OP_DIR && path_is_within(o->path, d) &&
				(!best || strlen(o->path) > strlen(best->path)))
				best = o;
		}
		if (best && best->kind == OP_MASK) {
			add_op(c->p, OP_TEMP, d);
		} else if (!best || best->kind == OP_RO || best->protect) {
			char *hint = glob_static_prefix(g);
			err_warn("%s: write grant '%s' matches nothing when the task "
				"starts, so a write under it is refused; fix: grant the "
				"directory, allow: { write: ['%s/'] }", c->r->task_id, g,
				hint[0] ? hint : ".");
			free(hint);
		}
	}
}

/* ---- ordering ---- */

static int rank(const struct op *o)
{
	if (o->protect)
		return 7;
	switch (o->kind) {
	case OP_RW: return 6;
	case OP_RO: return 5;
	case OP_SCRATCH: return 4;
	case OP_TEMP: return 4;
	case OP_MASK: return 3;
	case OP_MASK_FILE: return 3;
	case OP_DIR: return 1;
	}
	return 0;
}

static int op_cmp(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	int c = plan_path_cmp(x->path, y->path);
	return c ? c : rank(y) - rank(x);
}

static void link_parents(struct plan *p)
{
	int stack[512], n = 0;
	for (size_t i = 0; i < p->nops; i++) {
		while (n > 0 && !path_is_within(p->ops[stack[n - 1]].path, p->ops[i].path))
			n--;
		p->ops[i].parent = n > 0 ? stack[n - 1] : -1;
		/* a DIR is only a mount point: what lies under it belongs to the
		 * mask or bind that holds it */
		if (n < 512 && p->ops[i].kind != OP_DIR)
			stack[n++] = (int)i;
	}
}

/* Is o already what its parent shows? */
static bool redundant(const struct plan *p, const struct op *o)
{
	const struct op *par = o->parent >= 0 ? &p->ops[o->parent] : NULL;
	enum op_kind pk = par ? par->kind : OP_RO; /* the host root: read-only */
	bool pbind = !par || pk == OP_RO || pk == OP_RW;
	switch (o->kind) {
	case OP_RO:
		if (o->protect)
			return par && par->kind == OP_RO;
		return pbind;
	case OP_RW:
		return par && pk == OP_RW && !par->protect;
	case OP_MASK:
	case OP_MASK_FILE:
		/* under the writable scratch a mask still makes writes fail */
		return par && pk == OP_MASK;
	case OP_DIR:
		return pbind;
	case OP_SCRATCH:
	case OP_TEMP:
		return false;
	}
	return false;
}

static void order(struct plan *p)
{
	bool changed = true;
	qsort(p->ops, p->nops, sizeof(*p->ops), op_cmp);
	/* one op per path, the strongest (sorted first) */
	size_t w = 0;
	for (size_t i = 0; i < p->nops; i++) {
		if (w > 0 && !strcmp(p->ops[w - 1].path, p->ops[i].path)) {
			free(p->ops[i].path);
			continue;
		}
		p->ops[w++] = p->ops[i];
	}
	p->nops = w;
	while (changed) {
		bool *drop = xcalloc(p->nops + 1, sizeof(bool));
		changed = false;
		link_parents(p);
		/* judge every op against the same parents, then compact */
		for (size_t i = 0; i < p->nops; i++)
			changed |= drop[i] = redundant(p, &p->ops[i]);
		w = 0;
		for (size_t i = 0; i < p->nops; i++) {
			if (drop[i])
				free(p->ops[i].path);
			else
				p->ops[w++] = p->ops[i];
		}
		p->nops = w;
		free(drop);
	}
	link_parents(p);
}

int plan_build(const struct sb_request *r, struct plan *p)
{
	struct ctx c = {.r = r, .p = p};
	const char *home = getenv("HOME");
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->nested = r->weaker_nested;
	if (home && *home)
		c.home = path_canonical(home);
	for (size_t i = 0; i < r->nprojects; i++)
		if (strcmp(r->projects[i].dir, r->project) != 0 &&
			path_is_within(r->project, r->projects[i].dir))
			strlist_push(&c.nested, r->projects[i].dir);
	add_op(p, OP_SCRATCH, "/tmp");
	add_op(p, OP_MASK, r->root);
	add_op(p, OP_DIR, r->project);
	for (size_t i = 0; i < r->read.n; i++)
		if (names_git(r->read.v[i]))
			p->git_discovery = true;
	for (size_t i = 0; i < r->write.n; i++)
		if (names_git(r->write.v[i]))
			p->git_discovery = true;
	if (add_writes(&c) || add_reads(&c))
		goto out;
	if (r->git_config)
		add_git_config(&c);
	add_node_modules(&c);
	add_tmp_keeps(&c);
	add_walls(&c);
	judge_empty_globs(&c);
	order(p);
	if (getenv("VX_SANDBOX_DEBUG"))
		for (size_t i = 0; i < p->nops; i++)
			fprintf(stderr, "vx-sandbox: plan: %d %s%s (parent %d)\n", p->ops[i].kind,
				p->ops[i].path, p->ops[i].protect ? " protect" : "", p->ops[i].parent);
	rc = 0;
out:
	free(c.home);
	strlist_free(&c.named);
	strlist_free(&c.real_dirs);
	strlist_free(&c.empty_globs);
	strlist_free(&c.nested);
	return rc;
}

bool plan_placeholder_untouched(const struct placeholder *ph)
{
	struct stat st;
	return !lstat(ph->path, &st) && S_ISREG(st.st_mode) && st.st_size == 0 &&
	       st.st_mtim.tv_sec == ph->mtime.tv_sec && st.st_mtim.tv_nsec == ph->mtime.tv_nsec;
}

void plan_sweep(const struct plan *p, bool failed)
{
	/* the guards, deepest first (a held .git before its parent's turn) */
	for (size_t i = p->ng; i-- > 0;) {
		struct stat st;
		if (lstat(p->guards[i].path, &st) ||
			!is_guard(p->guards[i].path, &st, p->guards[i].fmode))
			continue;
		if (p->guards[i].isdir)
			rmdir(p->guards[i].path);
		else
			unlink(p->guards[i].path);
	}
	/* the parents made for $HOME's guards, deepest first, where left empty */
	for (size_t i = p->made.n; i-- > 0;)
		rmdir(p->made.v[i]);
	for (size_t i = 0; i < p->nph; i++) {
		const struct placeholder *ph = &p->ph[i];
		if (!plan_placeholder_untouched(ph))
			continue;
		unlink(ph->path);
		if (failed)
			err_warn("write grant '%s' was made an empty file the task never wrote, "
				"now removed; fix: if it names a directory, spell it '%s/'",
				ph->grant, ph->grant);
	}
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->ng; i++)
		free(p->guards[i].path);
	free(p->guards);
	for (size_t i = 0; i < p->nops; i++)
		free(p->ops[i].path);
	free(p->ops);
	for (size_t i = 0; i < p->nph; i++) {
		free(p->ph[i].path);
		free(p->ph[i].grant);
	}
	free(p->ph);
	strlist_free(&p->readable);
	strlist_free(&p->wfiles);
	strlist_free(&p->withheld);
	strlist_free(&p->made);
	memset(p, 0, sizeof(*p));
}
