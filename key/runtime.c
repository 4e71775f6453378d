#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "child.h"
#include "err.h"
#include "fileio.h"
#include "path.h"
#include "taskreq.h"

/* vx-sandbox's path beside this program. */
static char *sandbox_path(void)
{
	char *p = path_beside_self("vx-sandbox");
	return p ? p : xstrdup("vx-sandbox");
}

/* The request vx-sandbox reads: the graph record, then the task's record
 * running cmd instead of its command. A memfd, rewound, or -1 with errno. */
static int request_fd(const char *graph, const cJSON *task, const char *cmd)
{
	cJSON *t = cJSON_Duplicate(task, 1);
	taskreq_drop_key_members(t);
	cJSON_DeleteItemFromObjectCaseSensitive(t, "proxySocket");
	cJSON_DeleteItemFromObjectCaseSensitive(t, "command");
	cJSON_AddStringToObject(t, "command", cmd);
	char *line = cJSON_PrintUnformatted(t);
	cJSON_Delete(t);
	int fd = memfd_create("vx-key-runtime", MFD_CLOEXEC);
	int ok = fd >= 0 && fileio_write_all(fd, graph, strlen(graph)) == 0 && fileio_write_all(fd, "\n", 1) == 0 &&
		 fileio_write_all(fd, line, strlen(line)) == 0 && fileio_write_all(fd, "\n", 1) == 0 &&
		 lseek(fd, 0, SEEK_SET) == 0;
	int e = errno;
	cJSON_free(line);
	if (!ok) {
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int runtime_exec(const char *root, const char *dir, const char *cmd, const char *graph,
	const cJSON *task, uint8_t hash[16], int *code)
{
	char *sandbox = NULL;
	int req = -1;
	if (task) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(task, "id"));
		sandbox = sandbox_path();
		if (access(sandbox, X_OK) != 0) {
			err_warn("%s: inputs.runtime '%s' must run in the task's sandbox, and '%s' "
				 "cannot run (%s); fix: install vx-sandbox beside vx-key (make install)",
				id ? id : "?", cmd, sandbox, strerror(errno));
			free(sandbox);
			return -1;
		}
		if ((req = request_fd(graph, task, cmd)) < 0) {
			err_warn_errno("%s: inputs.runtime '%s': unable to hand its sandbox request "
				       "to vx-sandbox", id ? id : "?", cmd);
			free(sandbox);
			return -1;
		}
	}
	char *cwd = path_join(root, dir);
	XXH3_state_t s;
	XXH3_128bits_reset(&s);
	char *shargv[] = {"sh", "-c", (char *)cmd, NULL};
	/* the request is the sandbox's fd 3, open across the exec, and only it */
	char *sbargv[] = {"vx-sandbox", "--request", "/dev/fd/3", NULL};
	struct spawn_opts o = {.cwd = cwd, .null_stdin = true, .pass_fd = sandbox ? req : 0,
		.path = sandbox ? sandbox : "/bin/sh"};
	int out;
	pid_t pid = child_start(sandbox ? sbargv : shargv, &o, NULL, &out);
	*code = 127;
	if (pid > 0) {
		char buf[8192];
		ssize_t n;
		while ((n = read(out, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			XXH3_128bits_update(&s, buf, (size_t)n);
		}
		close(out);
		*code = child_wait(pid);
	}
	if (*code != 0) {
		char tail[32];
		int n = snprintf(tail, sizeof(tail), "%cexit %d", 0, *code);
		XXH3_128bits_update(&s, tail, (size_t)n);
	}
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&s));
	memcpy(hash, c.digest, 16);
	if (req >= 0)
		close(req);
	free(sandbox);
	free(cwd);
	return 0;
}
