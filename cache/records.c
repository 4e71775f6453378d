#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "inputstamp.h"
#include "jsonl.h"
#include "path.h"

/* One stream's state: the graph record's root and the cache it names. */
struct stream {
	const char *dir, *state;
	char *root;
	struct cache *c;
};

static const char *str(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static bool is(const cJSON *rec, const char *type)
{
	const char *t = str(rec, "type");
	return t && strcmp(t, type) == 0;
}

/* The graph record: its root, and the cache opened for it. */
static int take_graph(struct stream *s, const cJSON *rec, const char *where)
{
	const char *root = str(rec, "root");
	if (s->root)
		return 0; /* a second graph record (a concatenation): the first rules */
	if (!root || !*root) {
		err_warn("%s: invalid record: the graph record names no \"root\"; fix: pass vx-graph's "
			 "records through vx-key", where);
		return -1;
	}
	s->root = xstrdup(root);
	char *cdir = s->dir ? xstrdup(s->dir) : path_join(root, ".vx/cache");
	char *sdir = s->state ? xstrdup(s->state) : path_join(root, ".vx");
	s->c = cache_open(cdir, sdir);
	free(cdir);
	free(sdir);
	return 0;
}

static void stream_free(struct stream *s)
{
	if (s->c)
		cache_close(s->c);
	free(s->root);
}

/* A cached exec task's key, or NULL when the task is not cached; -1 in
 * *bad after a message when it should have one and has not. */
static const char *cached_key(const cJSON *rec, const char *where, int *bad)
{
	const char *kind = str(rec, "kind"), *id = str(rec, "id"), *key = str(rec, "key");
	if (!kind || strcmp(kind, "exec") != 0 ||
		!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rec, "cache")))
		return NULL;
	if (!key || !hash_is_hex(key) || !str(rec, "dir")) {
		err_warn("%s: task '%s' has no \"key\" (or no \"dir\"); fix: pipe vx-graph's records "
			 "through vx-key before vx-cache", where, id ? id : "?");
		*bad = -1;
		return NULL;
	}
	return key;
}

/* A hit restored into its project, its log on stderr: 1; a miss: 0. */
static int restore(struct stream *s, const cJSON *rec, const char *key)
{
	struct cache_entry *e;
	const char *why, *id = str(rec, "id");
	if (!cache_lookup(s->c, key, &e, &why)) {
		err_warn("%s: a miss (%s)", id ? id : key, why);
		return 0;
	}
	char *proj = path_join(s->root, str(rec, "dir"));
	size_t len;
	char *log = cache_entry_log(s->c, e, &len);
	int r = log && cache_restore(s->c, e, proj) >= 0;
	if (r) {
		cache_touch(s->c, key);
		fwrite(log, 1, len, stderr);
	}
	free(log);
	free(proj);
	cache_entry_free(e);
	return r;
}

int records_lookup(const char *dir, const char *state)
{
	struct stream s = {.dir = dir, .state = state};
	struct jsonl_reader r;
	jsonl_reader_init(&r, stdin, "<stdin>");
	cJSON *rec;
	int got, rc = VX_EXIT_OK;
	bool missed = false;
	while ((got = jsonl_read(&r, &rec)) != 0) {
		if (got < 0) {
			rc = VX_EXIT_FAIL;
			break;
		}
		char where[64];
		snprintf(where, sizeof(where), "<stdin>:%zu", r.line);
		int bad = 0;
		if (is(rec, "graph")) {
			bad = take_graph(&s, rec, where);
		} else if (is(rec, "task")) {
			const char *key = cached_key(rec, where, &bad);
			if (key && !s.c) {
				err_warn("%s: a task record before the graph record; fix: pass vx-graph's "
					 "graph record first", where);
				bad = -1;
			} else if (key) {
				bool hit = restore(&s, rec, key);
				missed |= !hit;
				cJSON_DeleteItemFromObjectCaseSensitive(rec, "hit");
				cJSON_AddBoolToObject(rec, "hit", hit);
			}
		}
		if (bad) {
			cJSON_Delete(rec);
			rc = VX_EXIT_FAIL;
			break;
		}
		jsonl_write(rec);
		cJSON_Delete(rec);
	}
	jsonl_reader_free(&r);
	stream_free(&s);
	return rc ? rc : missed ? VX_EXIT_FAIL : VX_EXIT_OK;
}

/* What save gathers: the task records, in order, and the verdicts. */
struct gathered {
	cJSON *tasks;    /* array */
	cJSON *verdicts; /* object: id -> verdict */
};

/* Read f's records into g (graph record into s); with echo, write each
 * back. 0 or -1 after a message. */
static int gather(struct stream *s, struct gathered *g, FILE *f, const char *name, bool echo)
{
	struct jsonl_reader r;
	jsonl_reader_init(&r, f, name);
	cJSON *rec;
	int got, rc = 0;
	while (rc == 0 && (got = jsonl_read(&r, &rec)) != 0) {
		if (got < 0) {
			rc = -1;
			break;
		}
		char where[PATH_MAX + 32];
		snprintf(where, sizeof(where), "%s:%zu", name, r.line);
		if (echo)
			jsonl_write(rec);
		const char *id = str(rec, "id");
		if (is(rec, "graph")) {
			rc = take_graph(s, rec, where);
		} else if (is(rec, "task")) {
			cJSON_AddItemToArray(g->tasks, rec);
			rec = NULL;
		} else if (is(rec, "verdict") && id) {
			cJSON_DeleteItemFromObjectCaseSensitive(g->verdicts, id);
			cJSON_AddItemToObject(g->verdicts, id, rec);
			rec = NULL;
		}
		cJSON_Delete(rec);
	}
	jsonl_reader_free(&r);
	return rc;
}

/* Save one task's result, or say why not: 0 saved, 1 not, -1 failed. */
static int save_one(struct stream *s, const struct gathered *g, const cJSON *rec, const char *key,
	const char *log, size_t loglen)
{
	const char *id = str(rec, "id");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(g->verdicts, id);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "hit")))
		return 0; /* restored by lookup: in the cache already */
	if (!v) {
		err_warn("%s: no verdict on stdin; result not saved; fix: pipe vx-report's records "
			 "into vx-cache save", id);
		return 1;
	}
	if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "fail"))) {
		err_warn("%s: the verdict failed it; result not saved", id);
		return 1;
	}
	int same = inputstamp_check(s->root, str(rec, "dir"),
		cJSON_GetObjectItemCaseSensitive(rec, "stamp"));
	if (same != 1) {
		err_warn("%s: inputs changed while the task ran (%s); result not saved; fix: run it "
			 "again from vx-key --stamp", id, same == 0 ? "a stat in its stamp moved"
								 : "no stamp vouches for them");
		return 1;
	}
	int r = cache_save_task(s->c, s->root, str(rec, "dir"), rec, key, log, loglen, 0);
	if (r != 0)
		return -1;
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "type", "saved");
	cJSON_AddStringToObject(out, "id", id);
	cJSON_AddStringToObject(out, "key", key);
	jsonl_write(out);
	cJSON_Delete(out);
	return 0;
}

int records_save(const char *dir, const char *state, const char *request, const char *logfile)
{
	struct stream s = {.dir = dir, .state = state};
	struct gathered g = {cJSON_CreateArray(), cJSON_CreateObject()};
	size_t loglen = 0;
	char *log = NULL;
	int rc = VX_EXIT_OK;
	FILE *f = NULL;
	if (request && strcmp(request, "-") == 0)
		request = NULL; /* stdin is read anyway */
	if (rc == 0 && request) {
		f = fopen(request, "re");
		if (!f) {
			err_warn_errno("unable to open '%s'", request);
			rc = VX_EXIT_FAIL;
		} else if (gather(&s, &g, f, request, false) != 0) {
			rc = VX_EXIT_FAIL;
		}
		if (f)
			fclose(f);
	}
	if (rc == 0 && gather(&s, &g, stdin, "<stdin>", true) != 0)
		rc = VX_EXIT_FAIL;
	/* read once stdin ended: the run writing it (2> FILE) is over then */
	if (rc == 0 && logfile && !(log = fileio_read_at(AT_FDCWD, logfile, &loglen))) {
		err_warn_errno("unable to read '%s'", logfile);
		rc = VX_EXIT_FAIL;
	}
	if (rc == 0 && !s.c) {
		err_warn("%s: no graph record; fix: pass the request (vx-key's records) with "
			 "--request FILE or on stdin", request ? request : "<stdin>");
		rc = VX_EXIT_FAIL;
	}
	const cJSON *rec;
	cJSON_ArrayForEach(rec, g.tasks) {
		if (rc != 0)
			break;
		char where[64];
		snprintf(where, sizeof(where), "%s", request ? request : "<stdin>");
		int bad = 0;
		const char *key = cached_key(rec, where, &bad);
		int r = bad ? -1 : key ? save_one(&s, &g, rec, key, log ? log : "", loglen) : 0;
		if (r)
			rc = VX_EXIT_FAIL;
	}
	cJSON_Delete(g.tasks);
	cJSON_Delete(g.verdicts);
	free(log);
	stream_free(&s);
	return rc;
}
