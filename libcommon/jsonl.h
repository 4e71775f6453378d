/* jsonl.h: the one JSON-lines reader and writer (cJSON underneath).
 *
 * Reader: one record per '\n'-terminated line, at most JSONL_MAX_LINE bytes;
 * blank lines are skipped; a malformed or over-long line is reported as
 * "prog: <file>:<line>: <what>" and returned as an error. Each record must be
 * a JSON object. The caller owns the returned cJSON and frees it.
 *
 * Writer: whole records, one line each, to stdout. When stdout is a pipe or a
 * socket it is flushed after every line, so a downstream stage never stalls.
 * SIGPIPE is ignored; a write that fails ends the program with exit 1: EPIPE
 * silently (the reader chose to stop), anything else as
 * "prog: write error: <strerror>". jsonl_out_finish() flushes and closes
 * stdout and returns the exit code a main should end with, so no stage exits 0
 * after a failed write.
 */
#ifndef VX_JSONL_H
#define VX_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define JSONL_MAX_LINE (16u << 20)

struct jsonl_reader {
	FILE *f;
	const char *name; /* shown in errors: a path or "<stdin>" */
	size_t line;      /* number of the line last read, 1-based */
	char *buf;
	size_t cap;
	size_t max; /* bytes per line; JSONL_MAX_LINE unless changed */
};

void jsonl_reader_init(struct jsonl_reader *r, FILE *f, const char *name);
void jsonl_reader_free(struct jsonl_reader *r);
/* 1: *out is a record; 0: end of input; -1: a malformed line (reported). */
int jsonl_read(struct jsonl_reader *r, cJSON **out);
/* jsonl_read in two steps, for a caller that may not need a line parsed
 * (the same bytes seen before): the next non-blank line's text, without
 * the blanks (' ', '\t', '\r') at its ends, in r's buffer until the next
 * read (NUL-terminated at the line's end, so trailing blanks may follow
 * *len): 1, 0 at the end, -1 (reported); then that text parsed as
 * jsonl_read would. */
int jsonl_read_text(struct jsonl_reader *r, const char **text, size_t *len);
int jsonl_parse_text(const struct jsonl_reader *r, const char *text, cJSON **out);

/* Set up stdout for records; call once at the start of main. */
void jsonl_out_init(void);
/* Write one record as one line; exits 1 on a failed write. */
void jsonl_write(const cJSON *rec);
/* Write an already-serialised record (no newline inside); exits 1 on failure. */
void jsonl_write_raw(const char *line, size_t len);
/* From now on also keep a copy of every line written (vx-graph's cache);
 * jsonl_out_kept hands the copy over (malloc'd, *len bytes; NULL when no
 * line was kept) and stops. */
void jsonl_out_keep(void);
char *jsonl_out_kept(size_t *len);
/* A stage that answers what it reads (vx-key --live): lines on a pipe are
 * no longer flushed one by one but by JSONL_BATCH bytes, and the stage
 * calls jsonl_out_flush before it would wait for input
 * (jsonl_reader_buffered false): answers to what came in one write go back
 * in a few writes, the reader busy with the first while the rest are
 * made, and none waits. */
#define JSONL_BATCH 4096
void jsonl_out_batch(void);
void jsonl_out_flush(void);
/* Does r hold input already read from its fd (a record may be whole)? */
bool jsonl_reader_buffered(const struct jsonl_reader *r);
/* Flush and close stdout: VX_EXIT_OK, or VX_EXIT_FAIL after reporting. */
int jsonl_out_finish(void);

/* The 1-based line of byte offset off in text (for cJSON parse errors). */
size_t jsonl_line_of(const char *text, size_t off);

#endif
