#include "canon.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "grantkind.h"

/* The sandbox member at path, by its row of grantkind.h (contract §4:
 * the macOS-only members; the lists whose empty spelling is the default). */
static bool has_flag(const char *path, unsigned flag)
{
	const struct grantkind *g = grantkind_at(path);
	return g && (g->flags & flag);
}

static bool is_hosts(const char *path)
{
	const struct grantkind *g = grantkind_at(path);
	return g && (g->shape == GRANT_HOSTS || g->shape == GRANT_HOSTS_OR_TRUE);
}

/* A network entry as it is matched: lowercase, no trailing dot. */
static char *host_canon(const char *s)
{
	char *k = xstrdup(s);
	for (char *p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	char *colon = strrchr(k, ':');
	size_t n = strlen(k);
	if (colon && colon > k && colon[-1] == '.')
		memmove(colon - 1, colon, strlen(colon) + 1);
	else if (n > 1 && k[n - 1] == '.')
		k[n - 1] = '\0';
	return k;
}

static int cmp_item(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	/* numbers before strings before anything else, each in its own order */
	int tx = cJSON_IsNumber(x) ? 0 : cJSON_IsString(x) ? 1 : 2;
	int ty = cJSON_IsNumber(y) ? 0 : cJSON_IsString(y) ? 1 : 2;
	if (tx != ty)
		return tx - ty;
	if (tx == 0)
		return (x->valuedouble > y->valuedouble) - (x->valuedouble < y->valuedouble);
	if (tx == 1)
		return strcmp(x->valuestring, y->valuestring);
	return 0;
}

static cJSON *canon_value(const cJSON *v, const char *path);

/* A list as a set: its items canonical, sorted, repeats dropped. */
static cJSON *canon_list(const cJSON *v, const char *path)
{
	size_t n = (size_t)cJSON_GetArraySize(v), k = 0;
	cJSON **items = xcalloc(n + 1, sizeof(*items));
	const cJSON *e;
	bool net = is_hosts(path);
	cJSON_ArrayForEach(e, v) {
		if (net && cJSON_IsString(e)) {
			char *h = host_canon(e->valuestring);
			items[k++] = cJSON_CreateString(h);
			free(h);
		} else {
			items[k++] = canon_value(e, path);
		}
	}
	qsort(items, k, sizeof(*items), cmp_item);
	cJSON *out = cJSON_CreateArray();
	const cJSON *last = NULL;
	for (size_t i = 0; i < k; i++) {
		if (last && cJSON_Compare(last, items[i], 1)) {
			cJSON_Delete(items[i]); /* a repeat: a set holds it once */
			continue;
		}
		cJSON_AddItemToArray(out, items[i]);
		last = items[i];
	}
	free(items);
	return out;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static cJSON *canon_object(const cJSON *v, const char *path)
{
	size_t n = (size_t)cJSON_GetArraySize(v), k = 0;
	const cJSON **m = xcalloc(n + 1, sizeof(*m));
	const cJSON *e;
	cJSON_ArrayForEach(e, v) m[k++] = e;
	qsort(m, k, sizeof(*m), cmp_name);
	cJSON *out = cJSON_CreateObject();
	for (size_t i = 0; i < k; i++) {
		char *sub = *path ? xasprintf("%s.%s", path, m[i]->string) : xstrdup(m[i]->string);
		bool drop = has_flag(sub, GRANT_MACOS_ONLY) || cJSON_IsFalse(m[i]) ||
			    (cJSON_IsArray(m[i]) && !cJSON_GetArraySize(m[i]) &&
			     has_flag(sub, GRANT_EMPTY_DEFAULT));
		cJSON *c = drop ? NULL : canon_value(m[i], sub);
		free(sub);
		if (c && cJSON_IsObject(c) && !c->child) {
			cJSON_Delete(c); /* an empty object says nothing */
			c = NULL;
		}
		if (c)
			cJSON_AddItemToObject(out, m[i]->string, c);
	}
	free(m);
	return out;
}

static cJSON *canon_value(const cJSON *v, const char *path)
{
	if (cJSON_IsObject(v))
		return canon_object(v, path);
	if (cJSON_IsArray(v))
		return canon_list(v, path);
	return cJSON_Duplicate(v, 1);
}

char *canon_sandbox(const cJSON *sb)
{
	if (!sb || cJSON_IsNull(sb))
		return NULL;
	cJSON *c = canon_value(sb, "");
	char *text = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	char *out = xstrdup(text);
	cJSON_free(text);
	return out;
}
