/* learn.c: the learning run's overlay over the workspace root (learn.h). */
#include "learn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "path.h"

/* the walls laid again over the overlay: what the baseline keeps from
 * every task at the root (plan_walls.c) */
static const char *const walls[] = {".git", ".vx"};

static char *scratch, *ws_root;
static int overlay = -1;

bool learn_on(void)
{
	return scratch != NULL;
}

static int fail(const char *what, const char *path)
{
	err_warn_errno("learning run: %s '%s'", what, path);
	return -1;
}

int learn_setup(const char *dir, const char *root)
{
	struct stat st;
	char *canon = path_canonical(dir);
	const char *home = getenv("HOME");
	char *chome = home && *home ? path_canonical(home) : NULL;
	int rc = -1;
	if (!canon || lstat(canon, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		(st.st_mode & 077)) {
		err_warn("--learn '%s': not a directory of yours that only you can enter; fix: "
			 "give a fresh mkdtemp directory", dir);
	} else if (path_is_within(root, canon) || path_is_within(canon, root)) {
		err_warn("--learn '%s': inside the workspace root '%s' or holding it; fix: give "
			 "a directory outside the workspace", dir, root);
	} else if (chome && path_is_within(root, chome)) {
		/* the overlay shows the whole root: credential stores too */
		err_warn("--learn: the workspace root '%s' holds $HOME, whose credential stores "
			 "the learning run would show; fix: learn in a workspace below $HOME",
			root);
	} else {
		char *up = path_join(canon, "upper"), *wk = path_join(canon, "work");
		if (mkdir(up, 0755) || mkdir(wk, 0700))
			fail("unable to make the scratch layers in", canon);
		else
			rc = 0;
		free(up);
		free(wk);
	}
	free(chome);
	if (rc) {
		free(canon);
		return -1;
	}
	scratch = canon;
	ws_root = xstrdup(root);
	return 0;
}

/* path opened without following any symlink, as "/proc/self/fd/N" (the
 * overlay takes its layers by path): the fd in *fd. */
static char *layer(const char *path, int *fd)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	*fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	return *fd < 0 ? NULL : xasprintf("/proc/self/fd/%d", *fd);
}

int learn_open(void)
{
	char *up = path_join(scratch, "upper"), *wk = path_join(scratch, "work");
	int fds[3] = {-1, -1, -1}, fs = -1, rc = -1;
	char *lp = layer(ws_root, &fds[0]), *upp = layer(up, &fds[1]), *wkp = layer(wk, &fds[2]);
	if (!lp || !upp || !wkp) {
		fail("unable to open a layer without following a symlink", !lp ? ws_root : !upp ? up : wk);
		goto out;
	}
	/* userxattr: in a user namespace the overlay keeps its own marks in
	 * user.overlay.* (trusted.* is the host root's) */
	fs = fsopen("overlay", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir+", lp, 0) ||
		fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", upp, 0) ||
		fsconfig(fs, FSCONFIG_SET_STRING, "workdir", wkp, 0) ||
		fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) ||
		fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		fail("the kernel refuses an overlay over", ws_root);
		goto out;
	}
	overlay = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (overlay < 0)
		fail("unable to mount the overlay over", ws_root);
	else
		rc = 0;
out:
	if (fs >= 0)
		close(fs);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(lp);
	free(upp);
	free(wkp);
	free(up);
	free(wk);
	return rc;
}

static int attach_at(int m, int newroot, const char *abs)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	int t = (int)syscall(SYS_openat2, newroot, abs[1] ? abs + 1 : ".", &how, sizeof(how));
	int rc;
	if (t < 0)
		return fail("unable to reach the mount point", abs);
	rc = move_mount(m, "", t, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	close(t);
	return rc ? fail("unable to mount over", abs) : 0;
}

int learn_attach(int newroot)
{
	if (attach_at(overlay, newroot, ws_root))
		return -1;
	close(overlay);
	overlay = -1;
	for (size_t i = 0; i < sizeof(walls) / sizeof(*walls); i++) {
		char *w = path_join(ws_root, walls[i]);
		struct stat st;
		int fs, m = -1, rc = 0;
		if (fstatat(newroot, w + 1, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode)) {
			free(w);
			continue;
		}
		/* an empty read-only tmpfs, as the baseline's mask */
		struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
		fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
		if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) ||
			fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) ||
			(m = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0 ||
			mount_setattr(m, "", AT_EMPTY_PATH, &ro, sizeof(ro)))
			rc = fail("unable to make the wall", w);
		else
			rc = attach_at(m, newroot, w);
		if (fs >= 0)
			close(fs);
		if (m >= 0)
			close(m);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}
