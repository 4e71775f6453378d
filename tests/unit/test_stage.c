/* stage.h on a real child: records both ways, a bad line skipped, no read
 * blocking, the exit status, a record's line kept. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "stage.h"
#include "unit.h"

static pid_t start(const char *script, int *to, int *from)
{
	int in[2], out[2];
	pid_t pid;
	if (pipe(in) || pipe(out))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to = in[1];
	*from = out[0];
	return pid;
}

int main(void)
{
	struct stage s;
	cJSON *rec, *hi = cJSON_Parse("{\"type\":\"hi\"}");
	int to, from;
	pid_t pid;
	err_init("test_stage");
	signal(SIGPIPE, SIG_IGN);

	/* it answers only once it got a record: nothing to read before */
	pid = start("read l; echo \"{\\\"got\\\":$l}\"; echo 'not json'; echo '[1]'; echo;"
		    " printf '{\"last\":true}'; exit 3", &to, &from);
	CHECK(pid > 0);
	stage_attach(&s, "child", pid, to, from);
	CHECK(stage_fd(&s) == from);
	CHECK(stage_fill(&s) == 0);
	CHECK(stage_next(&s, &rec) == 0 && !rec);
	CHECK(stage_wait(&s, &rec, 50) == 0 && !rec); /* the time ran out */
	CHECK(stage_send(&s, hi) == (long)strlen("{\"type\":\"hi\"}\n"));
	CHECK(stage_wait(&s, &rec, 5000) == 1);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "got"), "type")), "hi");
	cJSON_Delete(rec);
	/* 'not json' and '[1]' are named and reported, a blank line skipped;
	 * the unterminated last line counts */
	CHECK(stage_wait(&s, &rec, 5000) == STAGE_BAD && !rec && s.line == 2);
	CHECK(stage_wait(&s, &rec, 5000) == STAGE_BAD && s.line == 3);
	CHECK(stage_wait(&s, &rec, 5000) == 1 && cJSON_IsTrue(cJSON_GetObjectItem(rec, "last")));
	CHECK(s.line == 5);
	cJSON_Delete(rec);
	CHECK(stage_wait(&s, &rec, 5000) == -1 && stage_fd(&s) == -1);
	CHECK(stage_finish(&s) == 3);

	/* queued records wait for the flush, and go down in order with a
	 * stage_send after them */
	pid = start("read a; read b; read c; echo \"{\\\"n\\\":[$a,$b,$c]}\"", &to, &from);
	stage_attach(&s, "queued", pid, to, from);
	CHECK(stage_queue(&s, hi) == (long)strlen("{\"type\":\"hi\"}\n"));
	CHECK(stage_queue(&s, hi) > 0);
	CHECK(s.out.len == 2 * strlen("{\"type\":\"hi\"}\n"));
	CHECK(stage_wait(&s, &rec, 50) == 0); /* nothing was written yet */
	CHECK(stage_send(&s, hi) > 0 && s.out.len == 0);
	CHECK(stage_wait(&s, &rec, 5000) == 1 && cJSON_GetArraySize(cJSON_GetObjectItem(rec, "n")) == 3);
	cJSON_Delete(rec);
	CHECK(stage_queue(&s, hi) > 0); /* left queued: stage_finish flushes it */
	CHECK(stage_finish(&s) == 0);

	/* keep_text: each record's line as it came, in text; a line already
	 * printed queues as it is, after what was queued before it */
	pid = start("read a; read b; echo \"$a\"; echo \"  $b \"", &to, &from);
	stage_attach(&s, "kept", pid, to, from);
	s.keep_text = true;
	CHECK(stage_queue(&s, hi) > 0);
	CHECK(stage_queue_text(&s, "{\"n\": 2}", 8) == 9 && s.out.len == 14 + 9);
	CHECK(stage_flush(&s) == 0);
	CHECK(stage_wait(&s, &rec, 5000) == 1);
	CHECK(s.text.len == 13 && strcmp(s.text.buf, "{\"type\":\"hi\"}") == 0);
	cJSON_Delete(rec);
	CHECK(stage_wait(&s, &rec, 5000) == 1 && cJSON_GetObjectItem(rec, "n")->valueint == 2);
	CHECK_STR(s.text.buf, "  {\"n\": 2} ");
	cJSON_Delete(rec);
	CHECK(stage_finish(&s) == 0 && !s.text.buf);

	/* a stage that is gone: the send fails, never a SIGPIPE */
	pid = start("exec 0<&-; exit 0", &to, &from);
	stage_attach(&s, "gone", pid, to, from);
	CHECK(stage_wait(&s, &rec, 5000) == -1);
	usleep(20000);
	int sent = 0;
	for (int i = 0; i < 100 && sent == 0; i++)
		sent = stage_send(&s, hi);
	CHECK(sent == -1 && s.broken);
	CHECK(stage_finish(&s) == 0);
	cJSON_Delete(hi);
	return UNIT_END("stage");
}
