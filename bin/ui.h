/* ui.h: what vx run prints. Off a terminal, one line per finished
 * task, its captured output first, each line prefixed with the task id; on a
 * terminal, also a progress line on stderr (done/total and the running
 * tasks). With --json, one result record per task and a summary instead.
 * Notes and warnings go to stderr as "vx: <id>: <msg>". */
#ifndef VX_BIN_UI_H
#define VX_BIN_UI_H

#include <stdbool.h>
#include <stddef.h>

enum ui_status { UI_HIT, UI_MISS, UI_FAIL, UI_SKIP, UI_DONE, UI_STARTED, UI_NSTATUS };

struct tasklog;

struct ui_buf {
	char *data;
	size_t len, cap;
};
void ui_buf_add(struct ui_buf *b, const char *s, size_t n);
void ui_buf_free(struct ui_buf *b);

struct ui {
	bool json, tty, progress_shown;
	size_t counts[UI_NSTATUS];
	double flushed; /* ms, monotonic: when the lines were last flushed */
	bool replayed;  /* the run replayed whole (replay.h): the JSON summary says so */
};

struct ui_result {
	const char *id;
	enum ui_status status;
	double ms;
	const char *key;        /* may be NULL */
	int exit_code;          /* -1: failed before running */
	const char *log;        /* captured output (or a failure message) */
	size_t loglen;
	/* when it holds the whole output (tasklog.h), that is shown instead of
	 * log (which then holds its head); may be NULL */
	const struct tasklog *full;
	const char *blocked_by; /* UI_SKIP: the dependency that failed */
	/* a sandboxed task's violations and hints, one per line ("deny
	 * file-read packages/a/secret.txt (EACCES)", "deny network-outbound
	 * evil.test:443 (not in allow.network)", hint lines); printed after the
	 * task line as a block headed "SANDBOX VIOLATIONS <id>", and in --json
	 * as the result's "violations" array. NULL or empty: none. */
	const char *violations;
	size_t vlen;
};

void ui_init(struct ui *u, bool json);
bool ui_interactive(const struct ui *u);
void ui_result(struct ui *u, const struct ui_result *r);
/* Lines are buffered (a terminal's by the line): the run flushes them
 * before it waits, and ui_result at most 100 ms after the last flush, so a
 * pipe or a file sees each one by then, and an all-hit rerun writes a
 * thousand lines in a few calls, not one each. */
void ui_flush(struct ui *u);
/* The monotonic clock in ms: the run's timings and the flushes. */
double ui_now_ms(void);
void ui_progress(struct ui *u, size_t done, size_t total, const char *running);
/* A persistent task's output, printed as it comes, whole lines only (a
 * line longer than 64 KiB in pieces: pending stays that small). */
void ui_stream(struct ui *u, const char *id, struct ui_buf *pending, const char *s, size_t n);
void ui_stream_flush(struct ui *u, const char *id, struct ui_buf *pending);
void ui_note(struct ui *u, const char *id, const char *msg);
void ui_summary(struct ui *u, size_t tasks, double ms);
void ui_interrupted(struct ui *u, int sig);

#endif
