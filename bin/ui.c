#include "ui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "jsonl.h"
#include "tasklog.h"
#include "termsafe.h"

static const char *const names[UI_NSTATUS] = {"hit", "miss", "fail", "skip", "done", "up"};

/* s among names[0..n), by its index; false after a message */
static bool parse_choice(const char *opt, const char *s, const char *const *choices, int n,
	int *out)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, choices[i]) == 0) {
			*out = i;
			return true;
		}
	char *shown = termsafe_str(s);
	char all[128] = "";
	for (int i = 0; i < n; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? ", " : "",
			choices[i]);
	err_warn("%s '%s': expected one of %s", opt, shown, all);
	free(shown);
	return false;
}

bool ui_parse_order(const char *s, enum ui_order *out)
{
	/* in the enum's order */
	static const char *const v[] = {"auto", "stream", "grouped"};
	int i;
	if (!parse_choice("--log-order", s, v, 3, &i))
		return false;
	*out = (enum ui_order)i;
	return true;
}

bool ui_parse_logs(const char *s, enum ui_logs *out)
{
	static const char *const v[] = {"full", "hash-only", "new-only", "errors-only", "none"};
	int i;
	if (!parse_choice("--output-logs", s, v, 5, &i))
		return false;
	*out = (enum ui_logs)i;
	return true;
}

void ui_init(struct ui *u, const struct ui_opts *o)
{
	memset(u, 0, sizeof(*u));
	u->json = o->json;
	u->logs = o->logs;
	u->stream = !o->json && (o->order == UI_ORDER_STREAM ||
		(o->order == UI_ORDER_AUTO && isatty(STDOUT_FILENO)));
	u->tty = !o->json && isatty(STDERR_FILENO) && getenv("TERM") &&
		 strcmp(getenv("TERM"), "dumb");
	u->prefix_fmt = o->no_prefix ? "" : "%s: ";
	/* vx's lines reach stdout whole (termsafe_lines flushes before a line
	 * that would not fit), so a stage's warning written to the same file
	 * (2>&1) lands between two lines, never inside one */
	static char outbuf[2 * TERMSAFE_WHOLE];
	fflush(stdout);
	setvbuf(stdout, outbuf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof(outbuf));
}

/* a task line's prefix: "<id>: ", or none with --log-prefix=none */
static void task_prefix(const struct ui *u, const char *id, char *buf, size_t size)
{
	if (*u->prefix_fmt)
		snprintf(buf, size, "%s: ", id);
	else
		*buf = '\0';
}

/* a running task's output is shown as it comes */
static bool shows_running(const struct ui *u)
{
	return !u->json && (u->logs == UI_LOGS_FULL || u->logs == UI_LOGS_NEW);
}

bool ui_live(const struct ui *u)
{
	return u->stream && shows_running(u);
}

/* a finished task's output is shown at its line */
static bool shows_log(const struct ui *u, const struct ui_result *r)
{
	if (r->streamed)
		return false;
	if (r->status == UI_FAIL && r->exit_code < 0)
		return true; /* vx's own word on why it failed, not the task's output */
	switch (u->logs) {
	case UI_LOGS_FULL:
		return true;
	case UI_LOGS_NEW:
		return r->status != UI_HIT;
	case UI_LOGS_ERRORS:
		return r->status == UI_FAIL;
	default:
		return false;
	}
}

bool ui_interactive(const struct ui *u)
{
	return u->tty;
}

static void clear_progress(struct ui *u)
{
	if (u->progress_shown) {
		fflush(stdout);
		fputs("\r\033[K", stderr);
		u->progress_shown = false;
	}
}

/* a task's output, each line as "<id>: <line>", unable to rewrite ours */
static void print_task_lines(const struct ui *u, const char *id, const char *s, size_t n)
{
	char prefix[512];
	task_prefix(u, id, prefix, sizeof(prefix));
	termsafe_lines(stdout, prefix, s, n);
}

/* text lines as a JSON array of strings */
void ui_json_lines(cJSON *j, const char *name, const char *s, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(j, name);
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;
		char *line = xstrndup(s, k);
		cJSON_AddItemToArray(a, cJSON_CreateString(line));
		free(line);
		k += nl ? 1 : 0;
		s += k;
		n -= k;
	}
}

double ui_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* x as "%.2f" prints it, in buf: a hit takes under 5 ms, and "0.00" costs no
 * float formatting (x < 0.005 as a double is exactly what rounds to 0.00:
 * the double nearest 0.005 is above it, so "%.2f" rounds that one up). */
static const char *two_places(char buf[32], double x)
{
	if (!signbit(x) && x < 0.005) /* not -0.0, which prints "-0.00" */
		return "0.00";
	snprintf(buf, 32, "%.2f", x);
	return buf;
}

void ui_result(struct ui *u, const struct ui_result *r)
{
	u->counts[r->status]++;
	if (u->json) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "result");
		cJSON_AddStringToObject(j, "id", r->id);
		cJSON_AddStringToObject(j, "status", names[r->status]);
		cJSON_AddNumberToObject(j, "ms", (double)(long)(r->ms * 10) / 10);
		if (r->key)
			cJSON_AddStringToObject(j, "key", r->key);
		else
			cJSON_AddNullToObject(j, "key");
		if (r->status == UI_FAIL || r->status == UI_MISS)
			cJSON_AddNumberToObject(j, "exit", r->exit_code);
		if (r->blocked_by)
			cJSON_AddStringToObject(j, "blockedBy", r->blocked_by);
		cJSON_AddStringToObject(j, "log", r->log ? r->log : "");
		if (r->violations && r->vlen)
			ui_json_lines(j, "violations", r->violations, r->vlen);
		if (r->untraced)
			cJSON_AddFalseToObject(j, "traced");
		jsonl_write(j);
		cJSON_Delete(j);
		return;
	}
	clear_progress(u);
	char prefix[512];
	task_prefix(u, r->id, prefix, sizeof(prefix));
	if (!shows_log(u, r))
		; /* shown as it came, or not asked for */
	else if (r->full && tasklog_print(r->full, stdout, prefix))
		; /* every byte, from its file */
	else if (r->log && r->loglen)
		print_task_lines(u, r->id, r->log, r->loglen);
	if (u->logs == UI_LOGS_HASH && r->key) {
		char *line = xasprintf("key %s", r->key);
		print_task_lines(u, r->id, line, strlen(line));
		free(line);
	}
	/* an id is a project's name: the workspace's to choose, shown as text */
	char *id = termsafe_str(r->id);
	switch (r->status) {
	case UI_SKIP: {
		char *by = termsafe_str(r->blocked_by ? r->blocked_by : "");
		if (r->stopped)
			printf("%-4s %s (the run stopped: %s failed)\n", names[r->status], id, by);
		else
			printf("%-4s %s (dependency %s failed)\n", names[r->status], id, by);
		free(by);
		break;
	}
	case UI_STARTED:
		printf("%-4s %s (persistent, runs until the run ends)\n", names[r->status], id);
		break;
	case UI_FAIL:
		if (r->exit_code >= 0)
			printf("%-4s %s %.2fs (exit %d)\n", names[r->status], id, r->ms / 1e3,
				r->exit_code);
		else
			printf("%-4s %s\n", names[r->status], id);
		break;
	default: {
		char secs[32];
		printf("%-4s %s %ss\n", names[r->status], id, two_places(secs, r->ms / 1e3));
	}
	}
	if (r->violations && r->vlen) {
		/* the paths in them are the task's to choose */
		printf("SANDBOX VIOLATIONS %s\n", id);
		termsafe_lines(stdout, "  ", r->violations, r->vlen);
	}
	free(id);
	if (ui_now_ms() - u->flushed >= 100)
		ui_flush(u);
}

void ui_flush(struct ui *u)
{
	fflush(stdout);
	u->flushed = ui_now_ms();
}

void ui_progress(struct ui *u, size_t done, size_t total, size_t hits, const char *running)
{
	if (!u->tty)
		return;
	fflush(stdout);
	char *names_shown = termsafe_str(running);
	char *line = xasprintf("[%zu/%zu done, %zu hit]%s%s", done, total, hits,
		*running ? " running: " : "", names_shown);
	free(names_shown);
	/* one row, or the erase before the next line leaves the rest behind */
	struct winsize ws;
	size_t len = strlen(line);
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && len >= ws.ws_col) {
		len = ws.ws_col - 1;
		while (len && ((unsigned char)line[len] & 0xc0) == 0x80)
			len--; /* not within a character */
		/* nor within a colour an id kept: an ESC [ with no m after it */
		char *esc = memrchr(line, '\033', len);
		if (esc && !memchr(esc, 'm', len - (size_t)(esc - line)))
			len = (size_t)(esc - line);
	}
	if (u->progress_shown && len < sizeof(u->shown) && strncmp(u->shown, line, len) == 0 &&
	    !u->shown[len]) {
		free(line);
		return; /* the same: a redraw would only flicker */
	}
	snprintf(u->shown, sizeof(u->shown), "%.*s", (int)(len < sizeof(u->shown) ? len : 0), line);
	/* a colour an id kept (termsafe.h) ends with the line, cut or not */
	fprintf(stderr, "\r\033[K%.*s%s", (int)len, line, strchr(line, '\033') ? "\033[0m" : "");
	free(line);
	u->progress_shown = true;
}

void ui_stream(struct ui *u, const char *id, struct strbuf *pending, const char *s, size_t n)
{
	strbuf_add(pending, s, n);
	/* up to the last line end: "\n", or a "\r" (termsafe.h ends a line
	 * there too) but the very last byte, which may begin a "\r\n" */
	size_t upto = pending->len > 0 ? pending->len - 1 : 0;
	while (upto && pending->buf[upto - 1] != '\n' &&
	       !(pending->buf[upto - 1] == '\r' && upto < pending->len))
		upto--;
	if (pending->len && pending->buf[pending->len - 1] == '\n')
		upto = pending->len;
	if (!upto && pending->len < 65536)
		return;
	if (!upto) {
		/* a line too long to hold: a piece, not cut within a character */
		upto = pending->len;
		for (size_t k = 1; k <= 3 && k < upto; k++)
			if (((unsigned char)pending->buf[upto - k] & 0xc0) != 0x80) {
				if ((unsigned char)pending->buf[upto - k] >= 0xc0)
					upto -= k;
				break;
			}
	}
	if (shows_running(u)) {
		clear_progress(u);
		print_task_lines(u, id, pending->buf, upto);
		fflush(stdout);
	}
	memmove(pending->buf, pending->buf + upto, pending->len - upto);
	strbuf_setlen(pending, pending->len - upto);
}

void ui_stream_flush(struct ui *u, const char *id, struct strbuf *pending)
{
	if (pending->len && shows_running(u)) {
		clear_progress(u);
		print_task_lines(u, id, pending->buf, pending->len);
	}
	strbuf_reset(pending);
}

void ui_note(struct ui *u, const char *id, const char *msg)
{
	clear_progress(u);
	fflush(stdout);
	char *shown = termsafe_str(id), *said = termsafe_str(msg);
	err_warn("%s: %s", shown, said);
	free(shown);
	free(said);
}

void ui_warn(struct ui *u, const char *msg)
{
	clear_progress(u);
	fflush(stdout);
	char *said = termsafe_str(msg);
	err_warn("%s", said);
	free(said);
}

void ui_summary(struct ui *u, size_t total, double ms)
{	if (u->json) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "summary");
		cJSON_AddNumberToObject(j, "tasks", (double)total);
		for (int i = 0; i < UI_NSTATUS; i++)
			cJSON_AddNumberToObject(j, names[i], (double)u->counts[i]);
		cJSON_AddNumberToObject(j, "ms", (double)(long)ms);
		if (u->replayed)
			cJSON_AddTrueToObject(j, "replayed");
		jsonl_write(j);
		cJSON_Delete(j);
		return;
	}
	clear_progress(u);
	printf("vx: %zu task%s: %zu hit, %zu miss, %zu failed, %zu skipped (%.2fs)\n", total,
		total == 1 ? "" : "s", u->counts[UI_HIT], u->counts[UI_MISS], u->counts[UI_FAIL],
		u->counts[UI_SKIP], ms / 1e3);
}

void ui_interrupted(struct ui *u, int sig)
{
	clear_progress(u);
	fflush(stdout);
	err_warn("interrupted by %s: every task stopped, nothing saved",
		sig == 2 ? "SIGINT" : "SIGTERM");
}

void ui_dry_line(const char *id, const char *status, const char *key, bool final, bool json)
{
	if (!json) {
		printf("%-7s %-32s %-11s %s\n", status, key ? key : "-",
			key ? (final ? "final" : "provisional") : "-", id);
		return;
	}
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "type", "dry");
	cJSON_AddStringToObject(r, "id", id);
	cJSON_AddStringToObject(r, "status", status);
	if (key)
		cJSON_AddStringToObject(r, "key", key);
	else
		cJSON_AddNullToObject(r, "key");
	cJSON_AddBoolToObject(r, "final", key && final);
	jsonl_write(r);
	cJSON_Delete(r);
}
