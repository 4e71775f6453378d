#include "keyer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "hash.h"
#include "proc.h"

static long send_line(struct keyer *k, const cJSON *rec)
{
	long n = stage_send(&k->st, rec);
	if (n < 0)
		err_warn_errno("unable to write to vx-key");
	return n;
}

int keyer_spawn(struct keyer *k)
{
	char *prog = proc_stage_path("vx-key");
	char *argv[] = {prog, "--live", "--explain", NULL};
	struct spawn_opts o = {0};
	int to, from;
	memset(k, 0, sizeof(*k));
	pid_t pid = proc_spawn(argv, &o, &to, &from);
	if (pid < 0) {
		err_warn_errno("unable to run '%s'", prog);
		free(prog);
		return -1;
	}
	free(prog);
	stage_attach(&k->st, "vx-key", pid, to, from);
	/* a bigger pipe lets more tasks be in flight: vx-key keys the first
	 * while the driver still reads the graph, and runs ahead of it */
	(void)fcntl(from, F_SETPIPE_SZ, KEYER_PIPE);
	(void)fcntl(to, F_SETPIPE_SZ, KEYER_PIPE);
	int cap = fcntl(to, F_GETPIPE_SZ);
	k->room = cap > 0 ? cap / 2 : KEYER_INFLIGHT;
	return 0;
}

int keyer_flush(struct keyer *k)
{
	if (stage_flush(&k->st) != 0) {
		err_warn_errno("unable to write to vx-key");
		return -1;
	}
	return 0;
}

int keyer_begin(struct keyer *k, const cJSON *graph)
{
	return send_line(k, graph) < 0 ? -1 : 0;
}

long keyer_send(struct keyer *k, const cJSON *task)
{
	long n = stage_queue(&k->st, task);
	if (n < 0)
		err_warn_errno("unable to write to vx-key");
	return n;
}

long keyer_send_line(struct keyer *k, const char *line, const char *explained)
{
	size_t n = strlen(line);
	while (n && strchr(" \t\r", line[n - 1]))
		n--;
	if (n < 2 || line[0] != '{' || line[n - 1] != '}' || (explained && !hash_is_hex(explained)))
		return 0;
	size_t last = n - 1; /* past its last member: the '{' of an empty one */
	while (strchr(" \t\r", line[last - 1]))
		last--;
	long sent;
	if (!explained) {
		sent = stage_queue_text(&k->st, line, n);
	} else {
		/* a key is 32 hex digits: nothing in it wants escaping */
		static const char member[] = "\"explainedKey\":\"";
		struct strbuf b = STRBUF_INIT;
		strbuf_add(&b, line, n - 1);
		if (line[last - 1] != '{')
			strbuf_addch(&b, ',');
		strbuf_add(&b, member, sizeof(member) - 1);
		strbuf_add(&b, explained, 32);
		strbuf_add(&b, "\"}", 2);
		sent = stage_queue_text(&k->st, b.buf, b.len);
		strbuf_release(&b);
	}
	if (sent < 0)
		err_warn_errno("unable to write to vx-key");
	return sent;
}

int keyer_rescan(struct keyer *k)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "rescan");
	long n = stage_send(&k->st, rec);
	cJSON_Delete(rec);
	return n < 0 ? -1 : 0;
}

cJSON *keyer_key(struct keyer *k, const cJSON *task)
{
	if (send_line(k, task) < 0)
		return NULL;
	return keyer_recv(k);
}

/* A whole line is read and not taken yet. */
static bool answer_read(const struct stage *s)
{
	return s->in.len > s->at && memchr(s->in.buf + s->at, '\n', s->in.len - s->at);
}

/* The next answer: answers pair with tasks by order, so a line that is no
 * record ends the hop (the run stops keying) rather than shifting them. */
cJSON *keyer_recv(struct keyer *k)
{
	cJSON *out = NULL;
	int r;
	/* what keyer_send queued goes down in one write, and only when this
	 * answer is not read yet: while the driver works through answers that
	 * came in one read, the tasks they release pile up and go down together
	 * once it must wait (a write a task woke vx-key a task). Nothing waits
	 * on what is held: the answer is here, and the next wait flushes. */
	if (!answer_read(&k->st) && stage_flush(&k->st) != 0) {
		err_warn_errno("unable to write to vx-key");
		return NULL;
	}
	r = stage_wait(&k->st, &out, -1);
	if (r != 1) {
		if (r == -1)
			err_warn("vx-key ended before answering");
		return NULL;
	}
	return out;
}

int keyer_stop(struct keyer *k)
{
	if (k->st.pid <= 0)
		return -1;
	return stage_finish(&k->st);
}
