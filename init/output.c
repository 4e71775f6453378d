#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicw.h"
#include "child.h"
#include "err.h"
#include "fileio.h"

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void put_list(FILE *f, const cJSON *a)
{
	const cJSON *e;
	fputc('[', f);
	cJSON_ArrayForEach(e, a) {
		put_str(f, e->valuestring);
		if (e->next)
			fputs(", ", f);
	}
	fputc(']', f);
}

/* A comment's text on one line: a newline in it would end the comment. */
static void put_comment(FILE *f, const char *indent, const char *s)
{
	fprintf(f, "%s// ", indent);
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
}

static void put_task(FILE *f, const struct otask *o, bool last)
{
	for (size_t i = 0; i < o->ncomments; i++)
		put_comment(f, "    ", o->comments[i]);
	fputs("    ", f);
	put_str(f, o->name);
	fputs(": {", f);
	bool first = true;
	if (!o->group) {
		fputs("\n      \"exec\": { \"command\": ", f);
		put_str(f, o->command);
		if (o->persistent)
			fputs(", \"persistent\": true", f);
		if (o->pass) {
			fputs(", \"passThroughEnv\": ", f);
			put_list(f, o->pass);
		}
		fputs(" }", f);
		first = false;
	}
	if (o->depends && cJSON_GetArraySize(o->depends)) {
		fprintf(f, "%s\n      \"dependsOn\": ", first ? "" : ",");
		put_list(f, o->depends);
		first = false;
	}
	if (o->cached) {
		fprintf(f, "%s\n      \"cache\": {", first ? "" : ",");
		bool in = o->files || o->wfiles || o->env || o->runtime;
		if (in) {
			fputs("\n        \"inputs\": {", f);
			const char *sep = " ";
			const struct {
				const char *k;
				const cJSON *v;
			} parts[] = {{"files", o->files}, {"workspaceFiles", o->wfiles}, {"env", o->env},
				{"runtime", o->runtime}};
			for (size_t i = 0; i < 4; i++)
				if (parts[i].v) {
					fprintf(f, "%s\"%s\": ", sep, parts[i].k);
					put_list(f, parts[i].v);
					sep = ", ";
				}
			fputs(" }", f);
		}
		if (o->outputs) {
			fprintf(f, "%s\n        \"outputs\": { \"files\": ", in ? "," : "");
			put_list(f, o->outputs);
			fputs(" }", f);
		}
		fputs(in || o->outputs ? "\n      }" : "}", f);
		first = false;
	}
	fprintf(f, "%s}%s\n", first ? "" : "\n    ", last ? "" : ",");
}

char *output_render(const struct oproj *op)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	fputs("{\n", f);
	char *from = xstrdup("");
	for (size_t i = 0; i < op->nsources; i++) {
		char *next = xasprintf("%s%s%s", from, i ? ", " : "", op->sources[i]);
		free(from);
		from = next;
	}
	char *head = xasprintf("written by vx init from %s and package.json's scripts", from);
	put_comment(f, "  ", head);
	free(head);
	free(from);
	if (op->env_mode) {
		fputs("  \"envMode\": ", f);
		put_str(f, op->env_mode);
		fputs(",\n", f);
	}
	if (op->pass) {
		fputs("  \"passThroughEnv\": ", f);
		put_list(f, op->pass);
		fputs(",\n", f);
	}
	fputs("  \"tasks\": {\n", f);
	for (size_t i = 0; i < op->ntasks; i++)
		put_task(f, op->tasks[i], i + 1 == op->ntasks);
	fputs("  }\n}\n", f);
	if (fclose(f) != 0)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	return buf;
}

bool output_exists(int rootfd, const char *file)
{
	struct stat st;
	return fstatat(rootfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int output_diff(int rootfd, const char *file, const char *text)
{
	if (!output_exists(rootfd, file)) {
		printf("--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%zu @@\n", file, count_lines(text));
		for (const char *p = text; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			printf("+%.*s\n", (int)n, p);
			p += n + (nl ? 1 : 0);
		}
		return 0;
	}
	/* against the file on disk: diff(1) reads the new text from a pipe */
	fflush(stdout);
	char *la = xasprintf("a/%s", file), *lb = xasprintf("b/%s", file);
	char *argv[] = {"diff", "-u", "--label", la, "--label", lb, "--", (char *)file, "-", NULL};
	struct spawn_opts o = {.cwd_fd = rootfd, .search_path = true};
	int fd = -1;
	pid_t pid = child_start(argv, &o, &fd, NULL);
	if (pid > 0) {
		fileio_write_all(fd, text, strlen(text));
		close(fd);
	}
	int st = child_wait(pid);
	if (st < 0 || st > 1) {
		err_warn("%s: unable to diff against the file on disk (diff exited %d)", file, st);
		free(la);
		free(lb);
		return -1;
	}
	free(la);
	free(lb);
	return 0;
}

/* The directory of file (root-relative), opened one component at a time
 * without following a symlink: a project directory swapped for a link
 * since the workspace was read cannot send the write outside it. *base
 * gets the file's own name. -1 with errno on failure. */
static int open_parent(int rootfd, const char *file, const char **base)
{
	const char *slash = strrchr(file, '/');
	*base = slash ? slash + 1 : file;
	int fd = dup(rootfd);
	if (!slash || fd < 0)
		return fd;
	char *dir = xstrndup(file, (size_t)(slash - file));
	char *save = NULL;
	for (char *c = strtok_r(dir, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		errno = e;
		fd = next;
	}
	free(dir);
	return fd;
}

int output_write(int rootfd, const char *file, const char *text)
{
	const char *base;
	int dirfd = open_parent(rootfd, file, &base);
	if (dirfd < 0) {
		err_warn_errno("%s: unable to open its directory (a symlink?)", file);
		return -1;
	}
	struct atomicw w;
	if (atomicw_openat(&w, dirfd, base, 0644) != 0) {
		err_warn_errno("%s: unable to create a temporary beside it", file);
		close(dirfd);
		return -1;
	}
	w.sync = 1; /* a file a person edits */
	int r = atomicw_write(&w, text, strlen(text));
	if (r == 0)
		r = atomicw_commit(&w);
	else
		atomicw_abort(&w);
	int e = errno;
	close(dirfd);
	if (r != 0) {
		errno = e;
		err_warn_errno("%s: unable to write", file);
		return -1;
	}
	return 0;
}
