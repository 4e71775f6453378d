/* fuzz_config: vx-graph's vx.json checker (graph/config.c) on any bytes as
 * one project's vx.json: every problem must be a config error line, never a
 * crash. On a text that parses, jsonc.h's offset walk must see what cJSON
 * sees (the same members, in order, each value's span parsing to the same
 * value), and vx init --sandbox's splice (init/vxedit.c), when it does not
 * refuse, must give a text that parses to the same with the block in the
 * first task's exec and the file first in its cache's workspaceFiles. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "err.h"
#include "jsonc.h"
#include "vxedit.h"

/* text as vx-graph parses it (comments stripped), or NULL */
static cJSON *parse(const char *text, size_t len)
{
	char *copy = xstrndup(text, len);
	size_t bad;
	cJSON *j = jsonc_strip(copy, &bad) ? cJSON_ParseWithOpts(copy, NULL, 1) : NULL;
	free(copy);
	return j;
}

/* a and b the same, members in the same order (cJSON_Compare looks members
 * up by name, which a repeated key defeats) */
static bool same(const cJSON *a, const cJSON *b)
{
	if (!a || !b || (a->type & 0xFF) != (b->type & 0xFF))
		return false;
	if (!cJSON_IsObject(a) && !cJSON_IsArray(a))
		return cJSON_Compare(a, b, 1);
	for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
		if ((a->string || b->string) &&
			(!a->string || !b->string || strcmp(a->string, b->string) != 0))
			return false;
		else if (!same(a, b))
			return false;
	return !a && !b;
}

/* item, named name, as the first member of obj */
static cJSON *put_first(cJSON *obj, const char *name, cJSON *item)
{
	item->string = xstrdup(name);
	cJSON_InsertItemInArray(obj, 0, item);
	return item;
}

static void walk_agrees(const char *text, struct jsonc_span v, const cJSON *j, int depth)
{
	if (!cJSON_IsObject(j) || depth > 6)
		return;
	struct jsonc_member m;
	size_t pos = 0;
	const cJSON *c = j->child;
	int r;
	while ((r = jsonc_next(text, v, &pos, &m)) == 1) {
		if (!c || !jsonc_key_is(text, m.key, c->string))
			abort();
		cJSON *val = parse(text + m.val.start, m.val.end - m.val.start);
		if (!same(val, c))
			abort();
		cJSON_Delete(val);
		walk_agrees(text, m.val, c, depth + 1);
		c = c->next;
	}
	if (r != 0 || c)
		abort();
}

static void edit_agrees(const char *text, const cJSON *j)
{
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks");
	if (!cJSON_IsObject(tasks) || !tasks->child)
		return;
	const char *name = tasks->child->string;
	char *out = vxedit_sandbox("vx.json", text, name, "\"sandbox\": {\"allow\": {}}", "[\"f\"]");
	if (!out)
		return;
	cJSON *want = cJSON_Duplicate(j, 1);
	cJSON *task = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, "tasks"), name);
	cJSON *exec = cJSON_GetObjectItemCaseSensitive(task, "exec"), *cache, *in, *wf;
	cJSON_AddItemToObject(cJSON_AddObjectToObject(exec, "sandbox"), "allow", cJSON_CreateObject());
	if ((cache = cJSON_GetObjectItemCaseSensitive(task, "cache"))) {
		if (!(in = cJSON_GetObjectItemCaseSensitive(cache, "inputs")))
			in = put_first(cache, "inputs", cJSON_CreateObject());
		if (!(wf = cJSON_GetObjectItemCaseSensitive(in, "workspaceFiles")))
			wf = put_first(in, "workspaceFiles", cJSON_CreateArray());
		cJSON_InsertItemInArray(wf, 0, cJSON_CreateString("f"));
	}
	cJSON *got = parse(out, strlen(out));
	if (!same(got, want))
		abort();
	cJSON_Delete(got);
	cJSON_Delete(want);
	free(out);
}

/* graph/main.c's, without the printing: the harness only counts */
void diag_config(struct workspace *ws, const char *file, const char *key, const char *fix,
	const char *fmt, ...)
{
	(void)file;
	(void)key;
	(void)fix;
	(void)fmt;
	ws->errors++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	struct workspace ws = {.root = "/ws"};
	strmap_init(&ws.by_name);
	strmap_init(&ws.by_id);
	struct project p = {.name = "@fuzz/p", .dir = "p", .abs = "/ws/p"};
	p.vx_text = xstrndup((const char *)data, size);
	char *text = xstrndup((const char *)data, size);
	cJSON *j = parse(text, strlen(text));
	struct jsonc_span root;
	if (j) {
		if (!jsonc_root(text, &root))
			abort();
		walk_agrees(text, root, j, 0);
		edit_agrees(text, j);
	}
	cJSON_Delete(j);
	free(text);
	config_load(&ws, &p);
	for (size_t i = 0; i < p.ntasks; i++) {
		struct task *t = p.tasks[i];
		free(t->id);
		free(t->depends_on);
		free(t->fold_filter);
		free(t);
	}
	free(p.tasks);
	free(p.config);
	free(p.vx_text);
	cJSON_Delete(p.json);
	strmap_free(&ws.by_name);
	strmap_free(&ws.by_id);
	return 0;
}
