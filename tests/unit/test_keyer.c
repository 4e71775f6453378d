/* keyer.h's keyer_send_line: a task record's line as vx-graph printed it
 * goes to vx-key as it is, "explainedKey" added as the record's last member
 * (what adding it to the parsed record and printing that again gives), and
 * a line it cannot send so is left to the caller. keyer_recv writes what is
 * queued only when it must wait for the answer. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "keyer.h"
#include "unit.h"

#define KEY "0123456789abcdef0123456789abcdef"

/* What keyer_send_line(line, explained) queues, without its newline; NULL
 * when it queued nothing. */
static char *queued(struct keyer *k, const char *line, const char *explained, long *n)
{
	strbuf_reset(&k->st.out);
	*n = keyer_send_line(k, line, explained);
	if (!k->st.out.len)
		return NULL;
	CHECK(k->st.out.buf[k->st.out.len - 1] == '\n' && *n == (long)k->st.out.len);
	return strndup(k->st.out.buf, k->st.out.len - 1);
}

/* The line keyer_send would queue for rec with explainedKey added. */
static char *printed(const char *line, const char *explained)
{
	cJSON *rec = cJSON_Parse(line);
	cJSON_AddStringToObject(rec, "explainedKey", explained);
	char *text = cJSON_PrintUnformatted(rec);
	cJSON_Delete(rec);
	return text;
}

int main(void)
{
	struct keyer k;
	int p[2];
	long n;
	char *got, *want;
	err_init("test_keyer");
	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(p) == 0);
	memset(&k, 0, sizeof(k));
	stage_attach(&k.st, "vx-key", 0, p[1], -1);

	const char *line = "{\"type\":\"task\",\"id\":\"a#build\",\"deps\":[],\"cache\":{\"outputs\":"
			   "{\"files\":[\"dist/**\"]}},\"sandbox\":null}";
	/* no key known: the line itself */
	got = queued(&k, line, NULL, &n);
	CHECK_STR(got, line);
	free(got);
	/* a key known: the same bytes as the record printed with it */
	got = queued(&k, line, KEY, &n);
	want = printed(line, KEY);
	CHECK_STR(got, want);
	free(got);
	cJSON_free(want);
	/* a line ending in blanks, an object with no members */
	got = queued(&k, "{\"id\":\"b\"} \r", KEY, &n);
	CHECK_STR(got, "{\"id\":\"b\",\"explainedKey\":\"" KEY "\"}");
	free(got);
	got = queued(&k, "{ }", KEY, &n);
	CHECK_STR(got, "{ \"explainedKey\":\"" KEY "\"}");
	free(got);
	/* what it cannot send so: nothing queued, 0 for the caller */
	CHECK(queued(&k, line, "0123\"56789abcdef0123456789abcdef", &n) == NULL && n == 0);
	CHECK(queued(&k, line, "short", &n) == NULL && n == 0);
	CHECK(queued(&k, "[1]", NULL, &n) == NULL && n == 0);
	CHECK(queued(&k, "{\"id\":\"b\"", KEY, &n) == NULL && n == 0);
	CHECK(queued(&k, "}", KEY, &n) == NULL && n == 0);
	CHECK(queued(&k, "", NULL, &n) == NULL && n == 0);
	/* a stage that is gone: -1 */
	k.st.broken = true;
	CHECK(queued(&k, line, KEY, &n) == NULL && n == -1);
	strbuf_release(&k.st.out);
	close(p[0]);
	close(p[1]);

	/* answers read in one go: the records queued meanwhile are held until
	 * an answer must be waited for, then go down together */
	int in[2], out[2];
	CHECK(pipe(in) == 0 && pipe(out) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execl("/bin/sh", "sh", "-c", "read a; printf '{\"a\":1}\\n{\"a\":2}\\n';"
			" read b; read c; echo \"{\\\"got\\\":[$b,$c]}\"", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	stage_attach(&k.st, "vx-key", pid, in[1], out[0]);
	cJSON *ans;
	CHECK(keyer_send_line(&k, "{\"n\":1}", NULL) > 0);
	CHECK((ans = keyer_recv(&k)) && cJSON_GetObjectItem(ans, "a")->valueint == 1);
	cJSON_Delete(ans);
	CHECK(k.st.out.len == 0); /* it had to wait: written */
	CHECK(keyer_send_line(&k, "{\"n\":2}", NULL) > 0);
	CHECK((ans = keyer_recv(&k)) && cJSON_GetObjectItem(ans, "a")->valueint == 2);
	cJSON_Delete(ans);
	CHECK(k.st.out.len == 8); /* the answer was read already: held */
	CHECK(keyer_send_line(&k, "{\"n\":3}", NULL) > 0);
	CHECK((ans = keyer_recv(&k)) && cJSON_GetArraySize(cJSON_GetObjectItem(ans, "got")) == 2);
	cJSON_Delete(ans);
	CHECK(k.st.out.len == 0);
	CHECK(keyer_stop(&k) == 0);
	return UNIT_END("keyer");
}
