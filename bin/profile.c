/* The Chrome trace of vx run --profile (profile.h): spans kept as JSON text,
 * written whole at the end. */
#include "profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicw.h"
#include "err.h"
#include "jsonw.h"
#include "ui.h"

/* a lane's tid: the main lane 1, slot k (from 0) 2+k, restore k 10000+k */
#define TID_MAIN 1
#define TID_SLOT 2
#define TID_RESTORE 10000

static struct {
	bool on;
	int pid;
	char *path;
	double t0;
	struct jsonw ev;   /* the events so far, each after a comma but the first */
	bool *held[2];     /* per pool: lane k is held */
	size_t nlanes[2];  /* lanes each pool has used */
} P;

bool profile_check(const char *path)
{
	if (!*path) {
		err_warn("--profile wants a file name; fix: --profile trace.json");
		return false;
	}
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	struct stat st;
	bool ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	if (!ok)
		err_warn("--profile '%s': no directory '%s'; fix: create it, or name a file in an "
			 "existing directory", path, dir);
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_warn("--profile '%s': a directory; fix: name a file, such as %s/profile.json",
			path, path);
		ok = false;
	}
	free(dir);
	return ok;
}

void profile_open(const char *path)
{
	P.on = true;
	P.pid = (int)getpid();
	P.path = xstrdup(path);
	P.t0 = ui_now_ms();
	jsonw_reset(&P.ev);
}

bool profile_on(void)
{
	return P.on;
}

static int tid_of(int lane)
{
	if (lane == PROFILE_MAIN)
		return TID_MAIN;
	return lane > 0 ? TID_SLOT + lane - 1 : TID_RESTORE - lane - 1;
}

/* lanes: slot k is k+1, restore k is -(k+1), the main lane 0 */
int profile_take(enum profile_pool pool)
{
	if (!P.on)
		return PROFILE_MAIN;
	size_t k = 0;
	while (k < P.nlanes[pool] && P.held[pool][k])
		k++;
	if (k == P.nlanes[pool]) {
		P.held[pool] = xrealloc(P.held[pool], (k + 1) * sizeof(bool));
		P.nlanes[pool]++;
	}
	P.held[pool][k] = true;
	return pool == PROFILE_SLOT ? (int)k + 1 : -(int)k - 1;
}

void profile_give(int lane)
{
	if (!P.on || lane == PROFILE_MAIN)
		return;
	if (lane > 0)
		P.held[PROFILE_SLOT][lane - 1] = false;
	else
		P.held[PROFILE_RESTORE][-lane - 1] = false;
}

/* µs since the profile began, whole (the format's unit; sub-µs is noise) */
static double us(double ms)
{
	double v = (ms - P.t0) * 1000;
	return v > 0 ? (double)(long long)v : 0;
}

static void event_head(struct jsonw *w, const char *ph, const char *name, int tid)
{
	jsonw_open(w, '{');
	jsonw_key(w, "name");
	jsonw_str(w, name);
	jsonw_key(w, "ph");
	jsonw_str(w, ph);
	jsonw_key(w, "pid");
	jsonw_num(w, P.pid);
	jsonw_key(w, "tid");
	jsonw_num(w, tid);
}

void profile_span(int lane, const char *cat, const char *name, double t0, double t1, ...)
{
	if (!P.on)
		return;
	struct jsonw *w = &P.ev;
	event_head(w, "X", name, tid_of(lane));
	jsonw_key(w, "cat");
	jsonw_str(w, cat);
	double ts = us(t0), end = us(t1);
	jsonw_key(w, "ts");
	jsonw_num(w, ts);
	jsonw_key(w, "dur");
	jsonw_num(w, end > ts ? end - ts : 0);
	jsonw_key(w, "args");
	jsonw_open(w, '{');
	va_list ap;
	va_start(ap, t1);
	for (const char *k; (k = va_arg(ap, const char *));) {
		const char *v = va_arg(ap, const char *);
		jsonw_key(w, k);
		jsonw_str(w, v);
	}
	va_end(ap);
	jsonw_close(w, '}');
	jsonw_close(w, '}');
}

/* an "M" event: the process's or a lane's name, and the lanes' order */
static void meta(struct jsonw *w, const char *what, int tid, const char *name)
{
	event_head(w, "M", what, tid);
	jsonw_key(w, "ts");
	jsonw_num(w, 0);
	jsonw_key(w, "args");
	jsonw_open(w, '{');
	jsonw_key(w, "name");
	jsonw_str(w, name);
	jsonw_close(w, '}');
	jsonw_close(w, '}');
	event_head(w, "M", strcmp(what, "process_name") == 0 ? "process_sort_index"
							      : "thread_sort_index", tid);
	jsonw_key(w, "ts");
	jsonw_num(w, 0);
	jsonw_key(w, "args");
	jsonw_open(w, '{');
	jsonw_key(w, "sort_index");
	jsonw_num(w, tid);
	jsonw_close(w, '}');
	jsonw_close(w, '}');
}

int profile_write(void)
{
	if (!P.on)
		return 0;
	struct jsonw w = {0};
	jsonw_open(&w, '{');
	jsonw_key(&w, "traceEvents");
	jsonw_open(&w, '[');
	meta(&w, "process_name", TID_MAIN, "vx run");
	meta(&w, "thread_name", TID_MAIN, "vx (graph, keys, hits)");
	for (size_t k = 0; k < P.nlanes[PROFILE_SLOT]; k++) {
		char name[32];
		snprintf(name, sizeof(name), "slot %zu", k + 1);
		meta(&w, "thread_name", TID_SLOT + (int)k, name);
	}
	for (size_t k = 0; k < P.nlanes[PROFILE_RESTORE]; k++) {
		char name[32];
		snprintf(name, sizeof(name), "restore %zu", k + 1);
		meta(&w, "thread_name", TID_RESTORE + (int)k, name);
	}
	if (P.ev.sb.len) {
		strbuf_addch(&w.sb, ',');
		strbuf_add(&w.sb, P.ev.sb.buf, P.ev.sb.len);
	}
	jsonw_close(&w, ']');
	jsonw_key(&w, "displayTimeUnit");
	jsonw_str(&w, "ms");
	jsonw_close(&w, '}');
	strbuf_addch(&w.sb, '\n');
	struct atomicw aw;
	int rc = atomicw_open(&aw, P.path, 0666);
	if (rc == 0 && atomicw_write(&aw, w.sb.buf, w.sb.len) != 0) {
		int e = errno;
		atomicw_abort(&aw);
		errno = e;
		rc = -1;
	}
	if (rc == 0)
		rc = atomicw_commit(&aw);
	if (rc != 0)
		err_warn_errno("--profile: unable to write '%s'", P.path);
	jsonw_free(&w);
	return rc;
}
