#include "wsroot.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "fileio.h"
#include "jsonc.h"
#include "path.h"

const char *const wsroot_fingerprint[WSROOT_NFINGERPRINT] = {
	"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
	"pnpm-workspace.yaml",
};

int wsroot_find(const char *start, const char *override, bool loud, char **root)
{
	if (override && *override) {
		char *r = path_canonical(override);
		struct stat st;
		if (!r || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
			if (loud)
				err_warn("--root '%s': not a directory", override);
			free(r);
			return -1;
		}
		*root = r;
		return 0;
	}
	char *dir = path_canonical(start);
	if (!dir) {
		if (loud)
			err_warn_errno("unable to resolve '%s'", start);
		return -1;
	}
	for (;;) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		bool found = false;
		if (fd >= 0) {
			cJSON *j;
			char *text = fileio_read_at(fd, "package.json", NULL);
			if (text && (j = cJSON_Parse(text))) {
				found = cJSON_GetObjectItemCaseSensitive(j, "workspaces") != NULL;
				cJSON_Delete(j);
			}
			free(text);
			if (!found)
				found = faccessat(fd, "pnpm-workspace.yaml", F_OK, 0) == 0;
			if (!found && (text = fileio_read_at(fd, "vx.json", NULL))) {
				size_t bad;
				if (jsonc_strip(text, &bad) && (j = cJSON_Parse(text))) {
					found = cJSON_GetObjectItemCaseSensitive(j, "projects") != NULL;
					cJSON_Delete(j);
				}
				free(text);
			}
			close(fd);
		}
		if (found) {
			*root = dir;
			return 0;
		}
		if (strcmp(dir, "/") == 0)
			break;
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	if (!loud)
		return -1;
	err_warn("no workspace found above '%s'; fix: run inside one (a package.json with "
		 "\"workspaces\", a pnpm-workspace.yaml, or a vx.json with \"projects\") "
		 "or pass --root DIR",
		start);
	return -1;
}

bool wsroot_is_fingerprint(const char *rel)
{
	for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++)
		if (strcmp(rel, wsroot_fingerprint[i]) == 0)
			return true;
	return false;
}
