/* plan_write.c: write grants: made before the task starts,
 * their shell and tool configs held read-only, the home's start-up files guarded. */
#include "plan.h"
#include "plan_int.h"
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
#include "homegrant.h"
#include "path.h"

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
	dir = path_dirname(path);
	rc = mkdirs(dir);
	free(dir);
	return rc ? rc : (mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1);
}

static void add_placeholder(struct plan *p, const char *path, const char *grant,
	const struct stat *st)
{
	XGROW(p->ph, p->nph + 1, p->phcap);
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

/* a write bind must not make the repository, the cache or a nested
 * project writable. */
static int check_write_dir(const struct ctx *c, const char *g, const char *d)
{
	const struct sb_request *r = c->r;
	char *git = path_join(r->root, ".git"), *vx = path_join(r->root, ".vx");
	const char *cache = getenv("VX_CACHE_DIR");
	int rc = 0;
	if (path_is_within(d, git) || (path_is_within(r->root, d) && plan_names_git(d))) {
		rc = plan_refuse(c, g, "its bind '%s' would make the repository's .git writable; "
			"fix: grant a directory that holds no .git", d);
	} else if (path_is_within(d, vx) || path_is_within(vx, d)) {
		rc = plan_refuse(c, g, "its bind '%s' would make the cache (.vx) writable; "
			"fix: grant a subdirectory for the outputs, such as 'dist/'", d);
	} else if (cache && *cache && *cache != '/') {
		/* resolved from here (the project, under vx run) it would name
		 * another place than the cache vx uses: vx run hands it absolute */
		err_warn("VX_CACHE_DIR '%s' is relative; fix: an absolute path", cache);
		rc = -1;
	} else if (cache && *cache) {
		char *cc = plan_canon_would_be(cache);
		if (path_is_within(d, cc) || path_is_within(cc, d))
			rc = plan_refuse(c, g, "its bind '%s' would make the cache directory "
				"(VX_CACHE_DIR) writable; fix: grant a directory outside it", d);
		free(cc);
	}
	for (size_t i = 0; !rc && i < r->nprojects; i++) {
		const char *pd = r->projects[i].dir;
		if (!strcmp(pd, r->project))
			continue;
		if (path_is_within(d, pd) ||
			(path_is_within(pd, d) && path_is_within(r->project, pd)))
			rc = plan_refuse(c, g, "its bind '%s' would make a nested project writable; "
				"fix: grant the project's own output directory, such as 'dist/'", d);
	}
	if (!rc && path_is_within(r->root, d)) {
		char *dg = path_join(d, ".git");
		struct stat st;
		if (lstat(dg, &st) == 0 && !plan_is_guard(dg, &st, GUARD_FILE_MODE))
			rc = plan_refuse(c, g, "its bind '%s' holds a .git; fix: grant a "
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
bool plan_is_guard(const char *path, const struct stat *st, mode_t fmode)
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
	XGROW(p->guards, p->ng + 1, p->gcap);
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
	plan_add_op(c->p, OP_RO, p)->protect = true;
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
	up = path_dirname(dir);
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
		cp = plan_canon_would_be(lex);
		if (strcmp(cp, d) != 0 && path_is_within(d, cp)) {
			if (lstat(cp, &st) == 0) {
				if (!S_ISLNK(st.st_mode)) {
					plan_add_op(c->p, OP_RO, cp)->protect = true;
					if (plan_is_guard(cp, &st, GUARD_HOME_FILE_MODE))
						add_guard(c->p, cp, S_ISDIR(st.st_mode),
							GUARD_HOME_FILE_MODE);
				}
			} else if (errno == ENOENT) {
				parent = path_dirname(cp);
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

	if (lstat(git, &st) == 0 && !plan_is_guard(git, &st, GUARD_FILE_MODE)) {
		if (inside)
			rc = plan_refuse(c, g, "its bind would make the repository '%s' writable (a "
				"submodule or nested checkout); fix: grant a directory that holds no "
				".git, or its own output directory", git);
		else if (S_ISREG(st.st_mode))
			plan_add_op(c->p, OP_RO, git)->protect = true;
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
				plan_add_op(c->p, OP_RO, p)->protect = true;
				if (inside && plan_is_guard(p, &st, GUARD_FILE_MODE)) /* left by a killed run */
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
	plan_add_op(c->p, OP_RW, d);
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
	if (plan_check_escape(c, g, lex, &canon))
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
			char *parent = path_dirname(canon);
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
	d = S_ISDIR(st.st_mode) ? xstrdup(canon) : path_dirname(canon);
	if (!S_ISDIR(st.st_mode)) {
		strlist_push(&c->p->wfiles, canon);
		strlist_push(&c->p->wfgrant, g);
	} else {
		strlist_push(&c->p->wdirs, d);
	}
	rc = add_write_dir(c, g, d);
	free(d);
	free(canon);
	return rc;
}

/* Issue 35 item 5: the directories bound for a file grant alone (R-26
 * binds the directory: an atomic writer renames its temporary onto the
 * file), which no directory-shaped write grant holds: the tracer reports a
 * write there to anything but a granted file. */
static void file_dirs(struct plan *p)
{
	for (size_t i = 0; i < p->wfiles.n; i++) {
		char *d = path_dirname(p->wfiles.v[i]);
		bool held = false;
		for (size_t k = 0; k < p->wdirs.n && !held; k++)
			held = path_is_within(p->wdirs.v[k], d);
		for (size_t k = 0; k < p->fdirs.n && !held; k++)
			held = !strcmp(p->fdirs.v[k], d);
		if (!held)
			strlist_push(&p->fdirs, d);
		free(d);
	}
}

int plan_check_home_writes(const struct sb_request *r)
{
	struct ctx c = {.r = r};
	struct homegrant h;
	int rc = 0;
	homegrant_init(&h, getenv("HOME"), getenv("PATH"), r->root);
	for (size_t i = 0; i < r->write.n; i++) {
		char *pat = plan_grant_pattern(&c, r->write.v[i]);
		bool file = homegrant_file_shaped(r->write.v[i], pat);
		char *why = homegrant_refusal(&h, pat, file);
		if (why) {
			err_warn("%s: grant '%s' refused: %s", r->task_id, r->write.v[i], why);
			rc = -1;
		}
		free(why);
		free(pat);
	}
	homegrant_free(&h);
	return rc;
}

int plan_add_writes(struct ctx *c)
{
	for (size_t i = 0; i < c->r->write.n; i++) {
		const char *g = c->r->write.v[i];
		size_t n = strlen(g);
		char *pat = plan_grant_pattern(c, g);
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
			if (plan_check_escape(c, g, prefix, &canon))
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
			strlist_push(&c->p->wglobs, pat);
		}
		free(pat);
		if (rc)
			return -1;
	}
	file_dirs(c->p);
	return 0;
}
