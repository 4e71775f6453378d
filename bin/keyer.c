#include "keyer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"

static long send_line(struct keyer *k, const cJSON *rec)
{
	char *s = cJSON_PrintUnformatted(rec);
	size_t n = strlen(s);
	s[n] = '\n';
	size_t off = 0;
	while (off < n + 1) {
		ssize_t w = write(k->to, s + off, n + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			cJSON_free(s);
			err_warn_errno("unable to write to vx-key");
			return -1;
		}
		off += (size_t)w;
	}
	cJSON_free(s);
	return (long)n + 1;
}

int keyer_spawn(struct keyer *k)
{
	char *prog = proc_stage_path("vx-key");
	char *argv[] = {prog, "--live", "--explain", NULL};
	struct spawn_opts o = {0};
	int from;
	memset(k, 0, sizeof(*k));
	k->pid = proc_spawn(argv, &o, &k->to, &from);
	if (k->pid < 0) {
		err_warn_errno("unable to run '%s'", prog);
		free(prog);
		return -1;
	}
	free(prog);
	k->from = fdopen(from, "r");
	jsonl_reader_init(&k->r, k->from, "vx-key");
	return 0;
}

int keyer_begin(struct keyer *k, const cJSON *graph)
{
	if (send_line(k, graph) < 0)
		return -1;
	k->echo = true;
	return 0;
}

long keyer_send(struct keyer *k, const cJSON *task)
{
	return send_line(k, task);
}

int keyer_rescan(struct keyer *k)
{
	static const char line[] = "{\"type\":\"rescan\"}\n";
	return write(k->to, line, sizeof(line) - 1) == (ssize_t)sizeof(line) - 1 ? 0 : -1;
}

cJSON *keyer_key(struct keyer *k, const cJSON *task)
{
	if (send_line(k, task) < 0)
		return NULL;
	return keyer_recv(k);
}

cJSON *keyer_recv(struct keyer *k)
{
	cJSON *out = NULL;
	int r;
	if (k->echo) {
		if (jsonl_read(&k->r, &out) != 1) {
			err_warn("vx-key did not answer");
			return NULL;
		}
		cJSON_Delete(out);
		out = NULL;
		k->echo = false;
	}
	r = jsonl_read(&k->r, &out);
	if (r != 1) {
		if (r == 0)
			err_warn("vx-key ended before answering");
		return NULL;
	}
	return out;
}

int keyer_stop(struct keyer *k)
{
	int st;
	if (k->pid <= 0)
		return -1;
	close(k->to);
	while (waitpid(k->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	jsonl_reader_free(&k->r);
	fclose(k->from);
	k->pid = 0;
	return err_wait_status(st);
}
