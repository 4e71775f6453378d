/* serve.c: vx-watch's daemon (serve.h). */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "watch.h"

#define MAXCLIENTS 64

struct client {
	int fd;
	uint64_t cookie; /* 0: no query yet */
	bool synced;
};

static struct client clients[MAXCLIENTS];
static volatile sig_atomic_t stop;
static size_t nclients;
static uint64_t instance, cookies;
static char *whose; /* " <dev> <ino> <root>\n": which tree the tokens are of */

static void drop(size_t i)
{
	if (clients[i].cookie) {
		char name[64];
		snprintf(name, sizeof(name), "watch-cookie-%" PRIu64, clients[i].cookie);
		unlink(name);
	}
	close(clients[i].fd);
	clients[i] = clients[--nclients];
}

static void on_cookie(void *arg, uint64_t n)
{
	(void)arg;
	for (size_t i = 0; i < nclients; i++)
		if (clients[i].cookie == n)
			clients[i].synced = true;
}

/* Answer every client whose cookie came back (all waiting ones, rebuilt):
 * the token, then the root it is of, so that a vx run finding this socket
 * in another tree's .vx does not take it for its own. */
static void answer(const struct wtree *w, bool all)
{
	char *tok = xasprintf("%016" PRIx64 "-%" PRIu64 "%s", instance, w->gen, whose);
	size_t len = strlen(tok);
	for (size_t i = nclients; i-- > 0;)
		if (clients[i].synced || (all && clients[i].cookie)) {
			if (send(clients[i].fd, tok, len, MSG_NOSIGNAL) < 0) {
				/* gone: nothing to tell */
			}
			drop(i);
		}
	free(tok);
}

/* A query: a line "sync" or "quit". false: stop the daemon. */
static bool query(size_t i)
{
	char line[16];
	ssize_t n = recv(clients[i].fd, line, sizeof(line) - 1, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n > 0 && clients[i].cookie == 0) {
		line[n] = '\0';
		if (strcmp(line, "quit\n") == 0)
			return false;
		if (strcmp(line, "sync\n") == 0) {
			char name[64];
			clients[i].cookie = ++cookies;
			snprintf(name, sizeof(name), "watch-cookie-%" PRIu64, clients[i].cookie);
			int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd >= 0) {
				close(fd);
				return true;
			}
		}
	}
	drop(i);
	return true;
}

static void accept_one(int s)
{
	int fd = accept4(s, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (nclients == MAXCLIENTS || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
		cr.uid != geteuid()) {
		close(fd);
		return;
	}
	clients[nclients++] = (struct client){.fd = fd};
}

static int listen_here(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	strcpy(a.sun_path, "watch.sock");
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		err_die_errno(VX_EXIT_FAIL, "socket");
	unlink(a.sun_path);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 16) != 0)
		err_die_errno(VX_EXIT_FAIL, "unable to listen on 'watch.sock'");
	return s;
}

/* A tree that cannot be watched whole. What lasts (the watch limit, an
 * unreadable directory, a remote file system) is written to watch-off so
 * vx run stops starting vx-watch; what passes (the inotify instance limit,
 * memory) is not, and the next run tries again. */
static void refuse(const char *root, int e)
{
	bool lasts = e == ENOSPC || e == EACCES || e == EPERM || e == EREMOTE;
	FILE *f = lasts ? fopen("watch-off", "w") : NULL;
	if (f) {
		fprintf(f, "vx-watch: unable to watch '%s': %s%s\n", root, strerror(e),
			e == ENOSPC    ? " (the inotify watch limit: raise fs.inotify.max_user_watches, "
					 "then remove this file)"
			: e == EREMOTE ? " (a network or FUSE file system: changes made elsewhere "
					 "send no event; vx run checks every file instead)"
				       : "");
		fclose(f);
	}
	err_die(VX_EXIT_FAIL, "unable to watch '%s': %s", root, strerror(e));
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int serve_run(char *root, const struct stat *rst)
{
	whose = xasprintf(" %ju %ju %s\n", (uintmax_t)rst->st_dev, (uintmax_t)rst->st_ino, root);
	const char *idle_env = getenv("VX_WATCH_IDLE");
	double idle = idle_env && atof(idle_env) > 0 ? atof(idle_env) : 10800;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: poll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	umask(077);

	char *vx = xasprintf("%s/.vx", root);
	if (mkdir(vx, 0777) != 0 && errno != EEXIST)
		err_die_errno(VX_EXIT_FAIL, "unable to make '%s'", vx);
	if (chdir(vx) != 0)
		err_die_errno(VX_EXIT_FAIL, "'%s'", vx);
	free(vx);
	int lock = open("watch.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0)
		err_die_errno(VX_EXIT_FAIL, "unable to open 'watch.lock'");
	if (flock(lock, LOCK_EX | LOCK_NB) != 0)
		return 0; /* another one watches this root */
	if (getrandom(&instance, sizeof(instance), 0) != (ssize_t)sizeof(instance))
		instance = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);

	struct wtree w;
	if (wtree_open(&w, root) != 0)
		refuse(root, errno);
	int s = listen_here();
	double last = now_s();
	bool run = true;
	while (run && !w.gone && !stop) {
		struct pollfd p[MAXCLIENTS + 2];
		p[0] = (struct pollfd){.fd = w.fd, .events = POLLIN};
		p[1] = (struct pollfd){.fd = s, .events = POLLIN};
		for (size_t i = 0; i < nclients; i++)
			p[i + 2] = (struct pollfd){.fd = clients[i].fd, .events = POLLIN};
		size_t np = nclients + 2;
		double left = idle - (now_s() - last);
		if (left <= 0 && nclients == 0)
			break;
		int r = poll(p, np, left > 0 ? (int)(left * 1000) + 1 : 1000);
		if (r < 0 && errno != EINTR)
			err_die_errno(VX_EXIT_FAIL, "poll");
		if (r <= 0)
			continue;
		if (p[0].revents) {
			wtree_read(&w, on_cookie, NULL);
			/* stale watches are set again only when a token is due (a lost
			 * queue may have lost the cookie too: every waiting query) */
			bool due = false;
			for (size_t i = 0; i < nclients; i++)
				due |= clients[i].synced || (w.stale && clients[i].cookie);
			int fresh = due ? wtree_fresh(&w) : 0;
			if (fresh < 0)
				refuse(root, errno);
			answer(&w, fresh == 1);
		}
		/* clients from the last to the first: drop() moves the last one */
		for (size_t i = np; run && i-- > 2;)
			if (p[i].revents && (size_t)(i - 2) < nclients && clients[i - 2].fd == p[i].fd)
				run = query(i - 2);
		if (p[1].revents & POLLIN) {
			accept_one(s);
			last = now_s();
		}
	}
	while (nclients)
		drop(nclients - 1);
	unlink("watch.sock");
	close(s);
	wtree_close(&w);
	free(root);
	free(whose);
	return 0;
}
