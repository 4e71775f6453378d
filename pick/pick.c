#include "pick.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Which entry of want picks rec: its index, or -1. */
static long picked_by(const cJSON *rec, char **want, size_t nwant)
{
	const char *id = str(rec, "id"), *name = str(rec, "name");
	for (size_t i = 0; i < nwant; i++) {
		if (id && strcmp(id, want[i]) == 0)
			return (long)i;
		if (name && !strchr(want[i], '#') && strcmp(name, want[i]) == 0)
			return (long)i;
	}
	return -1;
}

/* The records kept, in order, written once the input ended: the graph
 * record's "tasks" then counts the tasks kept (vx-sandbox runs a request
 * of one task and refuses one whose graph record counts more). */
struct kept {
	cJSON **v;
	size_t n, cap;
	size_t ntasks;
};

static void keep(struct kept *k, cJSON *rec)
{
	k->v = xgrow(k->v, k->n + 1, &k->cap, sizeof(*k->v));
	k->v[k->n++] = rec;
}

static void write_kept(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++) {
		const char *type = str(k->v[i], "type");
		if (type && strcmp(type, "graph") == 0 &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(k->v[i], "tasks")))
			cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(k->v[i], "tasks"),
				(double)k->ntasks);
		jsonl_write(k->v[i]);
		cJSON_Delete(k->v[i]);
	}
	free(k->v);
}

int pick_stream(FILE *in, const char *name, char **want, size_t nwant)
{
	struct jsonl_reader rd;
	struct kept k = {0};
	cJSON *rec;
	int got, rc = 0;
	bool *hit = xcalloc(nwant ? nwant : 1, sizeof(*hit));
	jsonl_reader_init(&rd, in, name);
	while ((got = jsonl_read(&rd, &rec)) == 1) {
		const char *type = str(rec, "type");
		long i;
		if (type && strcmp(type, "graph") == 0) {
			keep(&k, rec);
			continue;
		}
		if (type && strcmp(type, "task") == 0 && (i = picked_by(rec, want, nwant)) >= 0) {
			hit[i] = true;
			k.ntasks++;
			keep(&k, rec);
			continue;
		}
		cJSON_Delete(rec);
	}
	write_kept(&k);
	if (got < 0)
		rc = 1;
	for (size_t i = 0; got == 0 && i < nwant; i++)
		if (!hit[i]) {
			err_warn("no task '%s' in the records read from %s; fix: name a task id "
				 "(project#name) or a task name that vx-graph printed", want[i], name);
			rc = 1;
		}
	jsonl_reader_free(&rd);
	free(hit);
	return rc;
}
