#include "proc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "path.h"
#include "taskenv.h"

extern char **environ;

void proc_env_resolve(void)
{
	static const char *const names[] = {"VX_CACHE_DIR", "TMPDIR"};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const char *v = getenv(names[i]);
		if (!v || !*v || *v == '/')
			continue;
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			err_die_errno(VX_EXIT_FAIL, "%s '%s' is relative and the working directory "
				"is unknown; fix: an absolute path", names[i], v);
		char *abs = path_join(cwd, v);
		if (setenv(names[i], abs, 1) != 0)
			err_die_errno(VX_EXIT_FAIL, "setenv %s", names[i]);
		free(abs);
		free(cwd);
	}
}

/* "NAME=value": one of vx's own credentials? */
static bool credential(const char *e)
{
	static const char *const ends[] = {"_TOKEN", "_KEY", "_SECRET", "_PASSWORD"};
	/* the remote cache's, on Turborepo's API (remote.h): a task holding
	 * them could forge entries */
	if (strncmp(e, "TURBO_TOKEN=", 12) == 0 ||
		strncmp(e, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=", 33) == 0)
		return true;
	if (strncmp(e, "VX_", 3) != 0)
		return false;
	if (strncmp(e, "VX_REMOTE_", 10) == 0)
		return true;
	const char *eq = strchr(e, '=');
	size_t n = eq ? (size_t)(eq - e) : strlen(e);
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t k = strlen(ends[i]);
		if (n >= k && memcmp(e + n - k, ends[i], k) == 0)
			return true;
	}
	return false;
}

char **proc_env(enum proc_env_for who, char *path, const struct taskenv *te)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = xcalloc(n + 2, sizeof(char *)), **o = envp;
	if (who != PROC_ENV_STAGE && path)
		*o++ = path;
	for (char **e = environ; *e; e++) {
		bool vx = strncmp(*e, "VX_", 3) == 0;
		if (credential(*e) || (vx && who == PROC_ENV_TASK) ||
			(who == PROC_ENV_TASK && te && !taskenv_allows(te, *e)) ||
			(who != PROC_ENV_STAGE && path && strncmp(*e, "PATH=", 5) == 0))
			continue;
		*o++ = *e;
	}
	*o = NULL;
	return envp;
}

char *proc_stage_path(const char *name)
{
	char *p = path_beside_self(name);
	if (!p)
		err_die_errno(VX_EXIT_FAIL, "unable to find the vx program");
	return p;
}

pid_t proc_spawn(char *const argv[], const struct spawn_opts *o, int *to_child, int *from_child)
{
	struct spawn_opts so = *o;
	char **stage = o->envp ? NULL : proc_env(PROC_ENV_STAGE, NULL, NULL);
	if (stage)
		so.envp = stage;
	pid_t pid = child_start(argv, &so, to_child, from_child);
	int e = errno;
	free(stage);
	errno = e;
	return pid;
}
