#include "vxedit.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "jsonc.h"
#include "jsonl.h"

struct ctx {
	const char *file, *text;
};

/* One line: "vx-init: FILE: KEY: WHY; fix: FIX". */
__attribute__((format(printf, 4, 5))) static void refuse(const struct ctx *c, const char *key,
	const char *fix, const char *fmt, ...)
{
	char *why;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		err_die_errno(VX_EXIT_FAIL, "vasprintf");
	va_end(ap);
	err_warn("%s: %s: %s; fix: %s", c->file, key, why, fix);
	free(why);
}

/* Member name of object obj, whose value must open with want ('{' or '['):
 * 1 with *m, 0 when absent, -1 after refusing (key names it). */
static int step(const struct ctx *c, struct jsonc_span obj, const char *name, const char *key,
	char want, struct jsonc_member *m)
{
	int r = jsonc_find(c->text, obj, name, m);
	if (r == 2) {
		refuse(c, key, "keep one of them", "appears twice (again at line %zu)",
			jsonl_line_of(c->text, m->key));
		return -1;
	}
	if (r < 0) {
		refuse(c, key, "correct the JSON syntax", "not JSON vx init can read");
		return -1;
	}
	if (r == 1 && c->text[m->val.start] != want) {
		refuse(c, key, want == '{' ? "make it an object" : "make it an array",
			"expected %s", want == '{' ? "an object" : "an array");
		return -1;
	}
	return r;
}

struct splice {
	size_t off;
	char *s;
};

/* "\n" and the indent of the key at off when it starts its line, else NULL. */
static char *own_line(const char *text, size_t off)
{
	size_t b = off;
	while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t'))
		b--;
	if (b == 0 || text[b - 1] != '\n')
		return NULL;
	return xasprintf("\n%.*s", (int)(off - b), text + b);
}

/* member as the first (first) or last member of object obj. */
static struct splice add_member(const char *text, struct jsonc_span obj, const char *member,
	bool first)
{
	struct jsonc_member m, e;
	size_t pos = 0;
	int n = 0;
	while (jsonc_next(text, obj, &pos, &e) == 1) {
		m = e;
		n++;
		if (first)
			break;
	}
	if (!n)
		return (struct splice){obj.start + 1, xasprintf(" %s ", member)};
	char *nl = own_line(text, m.key);
	struct splice s;
	if (first)
		s = (struct splice){obj.start + 1, xasprintf("%s%s,", nl ? nl : " ", member)};
	else
		s = (struct splice){m.val.end, xasprintf(",%s%s", nl ? nl : " ", member)};
	free(nl);
	return s;
}

/* The splice that puts the files of list (an array's text) first in the
 * task's cache.inputs.workspaceFiles: 1, 0 when it has no cache (no key to
 * move), -1 after refusing. */
static int add_wfiles(const struct ctx *c, struct jsonc_span task, const char *tkey,
	const char *list, struct splice *sp)
{
	struct jsonc_member cache, in, wf;
	char *key = xasprintf("%s.cache", tkey);
	int r = step(c, task, "cache", key, '{', &cache);
	free(key);
	if (r <= 0)
		return r;
	key = xasprintf("%s.cache.inputs", tkey);
	r = step(c, cache.val, "inputs", key, '{', &in);
	free(key);
	if (r < 0)
		return r;
	if (r == 0) {
		char *m = xasprintf("\"inputs\": { \"workspaceFiles\": %s }", list);
		*sp = add_member(c->text, cache.val, m, true);
		free(m);
		return 1;
	}
	key = xasprintf("%s.cache.inputs.workspaceFiles", tkey);
	r = step(c, in.val, "workspaceFiles", key, '[', &wf);
	free(key);
	if (r < 0)
		return r;
	if (r == 0) {
		char *m = xasprintf("\"workspaceFiles\": %s", list);
		*sp = add_member(c->text, in.val, m, true);
		free(m);
		return 1;
	}
	/* merge: the new entries first */
	bool empty = c->text[jsonc_blank(c->text, wf.val.start + 1)] == ']';
	*sp = (struct splice){wf.val.start + 1,
		xasprintf("%.*s%s", (int)strlen(list) - 2, list + 1, empty ? "" : ", ")};
	return 1;
}

/* Does the text parse as vx-graph parses it? (One line when not.) */
static bool parses(const struct ctx *c)
{
	char *copy = xstrdup(c->text);
	size_t bad;
	const char *end = NULL;
	bool ok = false;
	if (!jsonc_strip(copy, &bad)) {
		refuse(c, "(file)", "close it with */", "a comment that never ends, at line %zu",
			jsonl_line_of(c->text, bad));
	} else {
		cJSON *j = cJSON_ParseWithOpts(copy, &end, 1);
		if (!j)
			refuse(c, "(file)", "correct the JSON syntax", "invalid JSON at line %zu",
				jsonl_line_of(c->text, end ? (size_t)(end - copy) : 0));
		else if (!cJSON_IsObject(j))
			refuse(c, "(file)", "make the file one JSON object", "not a JSON object");
		ok = cJSON_IsObject(j);
		cJSON_Delete(j);
	}
	free(copy);
	return ok;
}

char *vxedit_sandbox(const char *file, const char *text, const char *name, const char *sandbox,
	const char *wfiles)
{
	struct ctx c = {file, text};
	struct jsonc_span root;
	struct jsonc_member tasks, task, exec, sb;
	if (!parses(&c))
		return NULL;
	if (!jsonc_root(text, &root)) {
		refuse(&c, "(file)", "correct the JSON syntax", "not JSON vx init can read");
		return NULL;
	}
	char *tkey = xasprintf("tasks.%s", name), *ekey = xasprintf("%s.exec", tkey);
	char *skey = xasprintf("%s.sandbox", ekey), *out = NULL;
	struct splice sp[2] = {{0, NULL}, {0, NULL}};
	int r;
	if ((r = step(&c, root, "tasks", "tasks", '{', &tasks)) == 0)
		refuse(&c, "tasks", "add the task to its tasks", "not found");
	if (r <= 0)
		goto out;
	if ((r = step(&c, tasks.val, name, tkey, '{', &task)) == 0)
		refuse(&c, tkey, "add the task, then run vx init --sandbox again", "not found");
	if (r <= 0)
		goto out;
	if ((r = step(&c, task.val, "exec", ekey, '{', &exec)) == 0)
		refuse(&c, tkey, "give it an exec.command, or leave it as it is",
			"a group (no exec): nothing runs to sandbox");
	if (r <= 0)
		goto out;
	if ((r = step(&c, exec.val, "sandbox", skey, '{', &sb)) == 1)
		refuse(&c, skey, "edit it by hand, or drop it and run vx init --sandbox again",
			"there already: left as it is");
	if (r != 0)
		goto out;
	sp[0] = add_member(text, exec.val, sandbox, false);
	if (wfiles && (r = add_wfiles(&c, task.val, tkey, wfiles, &sp[1])) < 0)
		goto out;
	/* the later splice first, so the earlier one's offset holds */
	if (sp[1].s && sp[1].off > sp[0].off) {
		struct splice t = sp[0];
		sp[0] = sp[1];
		sp[1] = t;
	}
	out = xstrdup(text);
	for (int i = 0; i < 2 && sp[i].s; i++) {
		char *next = xasprintf("%.*s%s%s", (int)sp[i].off, out, sp[i].s, out + sp[i].off);
		free(out);
		out = next;
	}
out:
	free(sp[0].s);
	free(sp[1].s);
	free(tkey);
	free(ekey);
	free(skey);
	return out;
}
