#include "watchq.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"
#include "ui.h"

#define WAIT_MS 250

/* Is pid the vx-watch beside this vx? */
static bool ours(pid_t pid, const char *prog)
{
	char exe[64];
	struct stat a, b;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	return stat(exe, &a) == 0 && stat(prog, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Start vx-watch for root, detached: its own session, no fd of ours. */
static void start(const char *prog, const char *root)
{
	pid_t pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		closefrom(3);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		char *argv[] = {"vx-watch", (char *)root, NULL};
		execve(prog, argv, proc_env(PROC_ENV_STAGE, NULL, NULL));
		_exit(VX_EXIT_NOEXEC);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Send "sync", read the answer "<token> <dev> <ino> <root>" within the
 * deadline: 1 with tok set when the tree it is of is root, by path and by
 * the device and inode root has now; 0 else (-1: answered, of another tree). */
static int ask(int s, const char *root, char tok[WATCHQ_TOKEN_MAX])
{
	if (send(s, "sync\n", 5, MSG_NOSIGNAL) != 5)
		return 0;
	char buf[PATH_MAX + 128];
	size_t got = 0;
	char *nl = NULL;
	double deadline = ui_now_ms() + WAIT_MS;
	while (!nl && got < sizeof(buf) - 1) {
		int left = (int)(deadline - ui_now_ms());
		struct pollfd p = {.fd = s, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return 0;
		ssize_t n = recv(s, buf + got, sizeof(buf) - 1 - got, 0);
		if (n <= 0)
			return 0;
		got += (size_t)n;
		buf[got] = '\0';
		nl = strchr(buf, '\n');
	}
	if (!nl)
		return 0;
	*nl = '\0';
	uintmax_t dev, ino;
	int at = 0;
	struct stat st;
	if (sscanf(buf, "%47s %ju %ju %n", tok, &dev, &ino, &at) != 3 || !at)
		return -1;
	if (strcmp(buf + at, root) != 0 || stat(root, &st) != 0 || (uintmax_t)st.st_dev != dev ||
		(uintmax_t)st.st_ino != ino)
		return -1;
	return 1;
}

/* root/.vx is a directory of this user, not a link: what is in it (the
 * socket) was put there by this user. */
static bool own_state(const char *root)
{
	char *vx = xasprintf("%s/.vx", root);
	struct stat st;
	bool ok = lstat(vx, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
	free(vx);
	return ok;
}

int watchq_token(const char *root, char tok[WATCHQ_TOKEN_MAX])
{
	const char *env = getenv("VX_WATCH");
	if (env && strcmp(env, "0") == 0)
		return 0;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/.vx/watch.sock", root) >=
		sizeof(a.sun_path))
		return 0; /* a root too deep for a socket's name */
	char *prog = proc_stage_path("vx-watch");
	int r = 0;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		goto out;
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		if (errno == ENOENT || errno == ECONNREFUSED) {
			char *off = xasprintf("%s/.vx/watch-off", root);
			if (access(off, F_OK) != 0)
				start(prog, root);
			free(off);
		}
		goto out;
	}
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.uid != geteuid())
		goto out;
	if (!ours(cr.pid, prog)) {
		/* another build's vx-watch (an upgrade): let ours take over */
		if (send(s, "quit\n", 5, MSG_NOSIGNAL) < 0) {
			/* gone already */
		}
		goto out;
	}
	if (!own_state(root))
		goto out;
	r = ask(s, root, tok);
	if (r < 0) {
		/* another tree's vx-watch, its socket here (a copied or moved
		 * .vx): its tokens say nothing of this tree. Ours replaces the
		 * socket; the other keeps watching its own tree */
		r = 0;
		start(prog, root);
	}
out:
	if (s >= 0)
		close(s);
	free(prog);
	return r;
}
