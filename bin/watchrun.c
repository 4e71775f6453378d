/* vx watch: the loop around vx run (watchrun.h). */
#include "watchrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "jsonl.h"
#include "run.h"
#include "ui.h"
#include "watchq.h"
#include "wsroot.h"

#define POLL_MS 150   /* how often the token is asked for while idle */
#define QUIET_MS 100  /* the debounce: no move for this long */
#define SELF_RERUNS 3 /* reruns in a row for a token moved during the run */
#define TOKEN_WAIT_MS 10000

static const char watch_usage[] =
	"usage: vx watch TASK... [vx run's options]\n"
	"\n"
	"Run the tasks as vx run does, then again on each change under the root\n"
	"(not node_modules, .git or .vx), as vx-watch sees it: the tasks a change\n"
	"does not affect are cache hits. Changes made during a run give one rerun\n"
	"after it. Persistent tasks (servers) are started once and kept running;\n"
	"a rerun does not restart them, even when their own inputs changed (stop\n"
	"and start vx watch for that); one that exited starts again on the next\n"
	"rerun. A failing run does not end the watch. --force, --no-cache and --dry\n"
	"are refused: a rerun must be able to find its tasks unchanged.\n"
	"\n"
	"Exit status: 2 refused (usage, config, before the first run's work),\n"
	"1 the workspace cannot be watched (VX_WATCH=0, .vx/watch-off): after\n"
	"one run of the tasks, servers left out,\n"
	"130/143 stopped by SIGINT/SIGTERM.\n";

static int sigfds[2] = {-1, -1};
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	int e = errno;
	got_signal = sig;
	unsigned char b = (unsigned char)sig;
	if (write(sigfds[1], &b, 1) < 0) {
		/* full: got_signal is set */
	}
	errno = e;
}

static void rerun_header(size_t n)
{
	printf("vx watch: change seen, rerunning %zu task%s\n", n, n == 1 ? "" : "s");
	fflush(stdout);
}

/* Sleep up to ms, or until a signal: false when one came. */
static bool nap(int ms)
{
	struct pollfd p = {.fd = sigfds[0], .events = POLLIN};
	if (!got_signal)
		poll(&p, 1, ms);
	return !got_signal;
}

/* The token now, retried while vx-watch starts: false after TOKEN_WAIT_MS
 * without one, or on a signal. */
static bool token(const char *root, char tok[WATCHQ_TOKEN_MAX])
{
	double until = ui_now_ms() + TOKEN_WAIT_MS;
	char t[WATCHQ_TOKEN_MAX];
	while (!got_signal) {
		if (watchq_token(root, t)) {
			memcpy(tok, t, WATCHQ_TOKEN_MAX);
			return true;
		}
		if (ui_now_ms() > until)
			return false;
		nap(100);
	}
	return false;
}

/* tok is set to the token when vx-watch answers, and left as it was when not */
static void ask_token(const char *root, char tok[WATCHQ_TOKEN_MAX])
{
	char t[WATCHQ_TOKEN_MAX];
	if (watchq_token(root, t))
		memcpy(tok, t, WATCHQ_TOKEN_MAX);
}

struct child {
	pid_t pid;
	int fd; /* its done_fd's other end */
};

static struct child start_run(int argc, char **argv, bool serve, bool rerun)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		err_die_errno(VX_EXIT_FAIL, "pipe");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		err_die_errno(VX_EXIT_FAIL, "fork");
	if (pid == 0) {
		close(p[0]);
		close(sigfds[0]);
		close(sigfds[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		struct run_watch w = {.on = true, .serve = serve, .done_fd = p[1],
			.header = rerun ? rerun_header : NULL};
		run_watch_set(&w);
		exit(run_main(argc, argv));
	}
	close(p[1]);
	return (struct child){.pid = pid, .fd = p[0]};
}

/* Wait for the run's word on its done pipe, which is closed after: the
 * bytes read (2 with "s" second: its work is done, its servers run on;
 * 0 or -1: it exited), or -2 on a signal. */
static ssize_t await_run(struct child c, unsigned char done[2])
{
	struct pollfd p[2] = {{.fd = sigfds[0], .events = POLLIN},
		{.fd = c.fd, .events = POLLIN}};
	ssize_t n = -2;
	while (!got_signal) {
		poll(p, 2, -1);
		if (got_signal)
			break;
		n = read(c.fd, done, 2);
		if (n >= 0 || errno != EINTR)
			break;
		n = -2;
	}
	close(c.fd);
	return got_signal ? -2 : n;
}

/* The exit code of pid, waited for. */
static int reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return VX_EXIT_FAIL;
	return err_wait_status(st);
}

/* Stop the run and the server, wait for both, give the signal's code. */
static int stop(pid_t run, pid_t server)
{
	int sig = got_signal;
	if (run > 0)
		kill(run, sig);
	if (server > 0)
		kill(server, sig);
	if (run > 0)
		reap(run);
	if (server > 0)
		reap(server);
	return sig == SIGINT ? VX_EXIT_SIGINT : VX_EXIT_SIGTERM;
}

/* --root DIR or --root=DIR among run's options, else VX_ROOT */
static const char *root_option(int argc, char **argv)
{
	const char *root = getenv("VX_ROOT");
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
		else if (strncmp(argv[i], "--root=", 7) == 0)
			root = argv[i] + 7;
	}
	return root && *root ? root : NULL;
}

static bool refused(int argc, char **argv)
{
	static const char *const no[] = {"--force", "--no-cache", "--dry", "--dry=", "--cache"};
	/* after "--": the tasks' arguments, not vx's */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (size_t k = 0; k < sizeof(no) / sizeof(*no); k++) {
			size_t n = strlen(no[k]);
			bool eq = argv[i][n] == '\0' || (argv[i][n] == '=' && no[k][n - 1] != '=');
			if (strncmp(argv[i], no[k], n) != 0 || !(no[k][n - 1] == '=' || eq))
				continue;
			/* --cache that restores from the local cache is fine */
			if (strcmp(no[k], "--cache") == 0) {
				const char *v = argv[i][n] == '=' ? argv[i] + n + 1 : i + 1 < argc ? argv[i + 1] : "";
				if (strstr(v, "local:r"))
					continue;
			}
			err_warn("vx watch: %s is not for watching: a rerun must find "
				 "its unchanged tasks as hits; use vx run %s", argv[i], argv[i]);
			return true;
		}
	return false;
}

int watch_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(watch_usage, stdout);
			return jsonl_out_finish();
		}
	if (argc < 2) {
		err_warn("name a task to watch: vx watch TASK...");
		fputs(watch_usage, stderr);
		return VX_EXIT_USAGE;
	}
	if (refused(argc, argv))
		return VX_EXIT_USAGE;
	/* held until the process ends, in the runs forked off it too: kept
	 * where LeakSanitizer sees it held, as it is */
	static char *root;
	if (wsroot_find(".", root_option(argc, argv), true, &root) != 0)
		return VX_EXIT_USAGE;

	if (pipe2(sigfds, O_CLOEXEC | O_NONBLOCK) != 0)
		err_die_errno(VX_EXIT_FAIL, "pipe");
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	char before[WATCHQ_TOKEN_MAX], now[WATCHQ_TOKEN_MAX];
	char *off = xasprintf("%s/.vx/watch-off", root);
	const char *env = getenv("VX_WATCH");
	bool unwatched = (env && strcmp(env, "0") == 0) || access(off, F_OK) == 0;
	free(off);
	if (unwatched || !token(root, before)) {
		if (got_signal)
			return stop(0, 0);
		/* one run all the same: a refusal (a config error) is told as in
		 * a watched run, and the user sees the tasks' state; no server is
		 * started, as nothing would keep it */
		struct child c = start_run(argc, argv, false, false);
		unsigned char done[2];
		if (await_run(c, done) == -2)
			return stop(c.pid, 0);
		int code = reap(c.pid);
		if (code == VX_EXIT_USAGE)
			return code;
		err_warn("vx watch: vx-watch gives no token for %s (VX_WATCH=0, the "
			 "inotify instance limit, or %s/.vx/watch-off says why it cannot "
			 "watch it)", root, root);
		return VX_EXIT_FAIL;
	}
	pid_t server = 0; /* the run that serves the persistent tasks */
	int self_reruns = 0;
	for (bool first = true;; first = false) {
		if (server > 0 && waitpid(server, NULL, WNOHANG) == server)
			server = 0; /* its servers all exited: the next run starts them */
		bool serve = server == 0;
		struct child c = start_run(argc, argv, serve, !first);
		unsigned char done[2];
		ssize_t n = await_run(c, done);
		if (n == -2)
			return stop(c.pid, server);
		if (n == 2 && done[1] == 's') {
			server = c.pid; /* serving on: reaped when its servers exit */
		} else {
			int code = reap(c.pid);
			if (n <= 0 && first && code == VX_EXIT_USAGE)
				return code; /* refused before it ran anything */
		}
		if (!token(root, now)) {
			if (got_signal)
				return stop(0, server);
			/* none for 10 s: anything may have changed; rerun */
			err_warn("vx watch: no token from vx-watch for %s; running again", root);
			snprintf(now, sizeof(now), "?");
		}
		if (strcmp(now, before) != 0 && ++self_reruns <= SELF_RERUNS) {
			/* changed during the run, by an edit or the run's own
			 * outputs: rerun; all hits in place, it moves nothing */
			memcpy(before, now, sizeof(now));
			continue;
		}
		if (self_reruns > SELF_RERUNS)
			printf("vx watch: the tasks keep changing files under the root "
			       "(%d reruns in a row); waiting for the next change\n", SELF_RERUNS);
		self_reruns = 0;
		printf("vx watch: watching for changes (Ctrl-C to stop)\n");
		fflush(stdout);
		/* wait for a move, then for QUIET_MS without one */
		memcpy(before, now, sizeof(now));
		while (strcmp(now, before) == 0) {
			if (!nap(POLL_MS))
				return stop(0, server);
			/* no answer this time (vx-watch busy or restarting): ask again;
			 * a restarted one gives a new instance, which is a move */
			ask_token(root, now);
			if (server > 0 && waitpid(server, NULL, WNOHANG) == server)
				server = 0;
		}
		do {
			memcpy(before, now, sizeof(now));
			if (!nap(QUIET_MS))
				return stop(0, server);
			ask_token(root, now);
		} while (strcmp(now, before) != 0);
	}
}
