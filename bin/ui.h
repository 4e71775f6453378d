/* ui.h: what vx run prints. One line per finished task, each line
 * of a task's output before it prefixed with the task id ("<id>: <line>").
 * --log-order (turbo's flag): grouped, a task's whole output just before
 * its line, as it ends; stream, each line as the task writes it, whole
 * lines only, so parallel tasks never mix within a line; auto (the
 * default), stream when stdout is a terminal. --output-logs (turbo's
 * values) says whose output is shown: full, every task's (a hit replays
 * its log); new-only, misses' only; errors-only, failed tasks' only (whole,
 * at their end, even when streaming); hash-only, each task's key instead;
 * none, no task output. vx's own lines (task lines, SANDBOX VIOLATIONS
 * blocks, a failure vx explains itself, the summary) show under every one.
 * On a terminal (stderr), a status line too: done/total, hits and the
 * running tasks, redrawn in place, erased before any other line and at the
 * end. With --json, one result record per task and a summary instead.
 * Notes and warnings go to stderr as "vx: <id>: <msg>". */
#ifndef VX_BIN_UI_H
#define VX_BIN_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

enum ui_status { UI_HIT, UI_MISS, UI_FAIL, UI_SKIP, UI_DONE, UI_STARTED, UI_NSTATUS };

struct tasklog;


enum ui_order { UI_ORDER_AUTO, UI_ORDER_STREAM, UI_ORDER_GROUPED };
enum ui_logs { UI_LOGS_FULL, UI_LOGS_HASH, UI_LOGS_NEW, UI_LOGS_ERRORS, UI_LOGS_NONE };

/* how a run is shown: its options */
struct ui_opts {
	bool json;
	enum ui_order order;
	enum ui_logs logs;
	bool no_prefix; /* --log-prefix=none: a task's lines as it wrote them */
};
/* --log-order and --output-logs values; false after a message naming the
 * option and its values */
bool ui_parse_order(const char *s, enum ui_order *out);
bool ui_parse_logs(const char *s, enum ui_logs *out);

struct ui {
	bool json, tty, progress_shown;
	bool stream;          /* one-shot tasks' lines as they come */
	char shown[512];      /* the status line on screen, not drawn again */
	enum ui_logs logs;
	const char *prefix_fmt; /* "%s: ", or "" with --log-prefix=none */
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
	bool stopped;           /* UI_SKIP: not a dependent; blocked_by's failure stopped the run */
	bool streamed;          /* its output was shown as it came (ui_live) */
	/* a sandboxed task's violations and hints, one per line ("deny
	 * file-read packages/a/secret.txt (EACCES)", "deny network-outbound
	 * evil.test:443 (not in allow.network)", hint lines); printed after the
	 * task line as a block headed "SANDBOX VIOLATIONS <id>", and in --json
	 * as the result's "violations" array. NULL or empty: none. */
	const char *violations;
	size_t vlen;
	/* a sandboxed task the kernel refused to trace (R-10a): --json's
	 * "traced":false */
	bool untraced;
};

void ui_init(struct ui *u, const struct ui_opts *o);
bool ui_interactive(const struct ui *u);
void ui_result(struct ui *u, const struct ui_result *r);
/* Lines are buffered (a terminal's by the line): the run flushes them
 * before it waits, and ui_result at most 100 ms after the last flush, so a
 * pipe or a file sees each one by then, and an all-hit rerun writes a
 * thousand lines in a few calls, not one each. */
void ui_flush(struct ui *u);
/* The monotonic clock in ms: the run's timings and the flushes. */
double ui_now_ms(void);
void ui_progress(struct ui *u, size_t done, size_t total, size_t hits, const char *running);
/* A one-shot task's output is shown as it comes (ui_stream): streaming,
 * and --output-logs may show a miss's output before it ends. */
bool ui_live(const struct ui *u);
/* A task's output, printed as it comes, whole lines only (a line longer
 * than 64 KiB in pieces: pending stays that small); nothing under
 * --output-logs that shows no running task's output, or --json. A
 * persistent task's goes through here in either order: it never ends. */
void ui_stream(struct ui *u, const char *id, struct strbuf *pending, const char *s, size_t n);
void ui_stream_flush(struct ui *u, const char *id, struct strbuf *pending);
void ui_note(struct ui *u, const char *id, const char *msg);
/* Text of lines (the last may lack its end) as j's array member name, one
 * string a line: --json's violations, and the run summary's (summary.h). */
struct cJSON;
void ui_json_lines(struct cJSON *j, const char *name, const char *s, size_t n);
/* A line of the run's, no task's: "vx: <msg>" on stderr. */
void ui_warn(struct ui *u, const char *msg);
void ui_summary(struct ui *u, size_t tasks, double ms);
void ui_interrupted(struct ui *u, int sig);
/* vx run --dry's line for one task (a "dry" record with json); key NULL
 * when none was taken; shared by the dry run and its replay. */
void ui_dry_line(const char *id, const char *status, const char *key, bool final, bool json);

#endif
