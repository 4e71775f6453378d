#include "taskenv.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "path.h"

extern char **environ;

/* Each is safe to hand unkeyed: PATH finds the tools (their versions are
 * cache.inputs.runtime's to key; vx puts node_modules/.bin first), HOME
 * finds their caches and configs (inside a sandbox its credential stores
 * stay hidden, R-24), USER, LOGNAME and SHELL name who runs and their shell
 * (what getpwuid(3) answers anyway), TMPDIR is scratch (vx-sandbox sets its
 * own). Locale (LANG, LC_*) and TZ are left out on purpose: they change
 * what sort, date and printf write, so a task that wants them keys them. */
const char *const taskenv_base[] = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", NULL};

void taskenv_of(const cJSON *rec, struct taskenv *te)
{
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(rec, "envMode");
	const cJSON *cache = cJSON_GetObjectItemCaseSensitive(rec, "cache");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(cache, "inputs");
	te->loose = cJSON_IsString(mode) && strcmp(mode->valuestring, "loose") == 0;
	te->keyed = cJSON_GetObjectItemCaseSensitive(in, "env");
	te->pass = cJSON_GetObjectItemCaseSensitive(rec, "passThroughEnv");
}

bool taskenv_is_pattern(const char *entry)
{
	return strchr(entry, '*') != NULL;
}

/* '*' matches any run, every other byte itself (the usual greedy walk with
 * one backtrack point: linear enough for names). */
bool taskenv_match(const char *p, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, back = 0;
	while (i < n) {
		if (*p == '*') {
			star = ++p;
			back = i;
		} else if (*p && *p == s[i]) {
			p++;
			i++;
		} else if (star) {
			p = star;
			i = ++back;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

bool taskenv_selects(const cJSON *list, const char *name, size_t n)
{
	bool in = false;
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsString(e))
			continue;
		const char *s = e->valuestring;
		if (*s == '!') {
			if (taskenv_match(s + 1, name, n))
				return false;
		} else if (!in) {
			in = taskenv_match(s, name, n);
		}
	}
	return in;
}

bool taskenv_allows(const struct taskenv *te, const char *entry)
{
	if (te->loose)
		return true;
	size_t n = strcspn(entry, "=");
	for (size_t i = 0; taskenv_base[i]; i++)
		if (strlen(taskenv_base[i]) == n && memcmp(taskenv_base[i], entry, n) == 0)
			return true;
	return taskenv_selects(te->keyed, entry, n) || taskenv_selects(te->pass, entry, n);
}

const char *taskenv_check(const char *s)
{
	const char *p = *s == '!' ? s + 1 : s;
	if (!*p)
		return "an empty name|write a variable name after '!'";
	if (strcmp(p, "*") == 0)
		return "matches every variable|name the variables, or set envMode: \"loose\"";
	for (const char *q = p; *q; q++)
		if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || *q == '_' || *q == '*' ||
			    (q != p && *q >= '0' && *q <= '9')))
			return "not an environment variable name or pattern|use letters, digits, '_' "
			       "and '*', not starting with a digit, with an optional leading '!'";
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool negated(const cJSON *list, const char *name, size_t n)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, list) if (cJSON_IsString(e) && e->valuestring[0] == '!' &&
					taskenv_match(e->valuestring + 1, name, n)) return true;
	return false;
}

char **taskenv_keyed_names(const cJSON *list, size_t *n)
{
	size_t cap = 8, k = 0;
	char **v = xcalloc(cap, sizeof(char *));
	const cJSON *e;
	bool patterns = false;
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '!')
			continue;
		if (taskenv_is_pattern(e->valuestring)) {
			patterns = true;
			continue;
		}
		if (negated(list, e->valuestring, strlen(e->valuestring)))
			continue;
		if (k == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(char *));
		v[k++] = xstrdup(e->valuestring);
	}
	for (char **env = environ; patterns && *env; env++) {
		size_t len = strcspn(*env, "=");
		if (!taskenv_selects(list, *env, len))
			continue;
		if (k == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(char *));
		v[k++] = xstrndup(*env, len);
	}
	qsort(v, k, sizeof(char *), cmp_name);
	size_t u = 0;
	for (size_t i = 0; i < k; i++) {
		if (u && strcmp(v[u - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[u++] = v[i];
	}
	*n = u;
	return v;
}

void taskenv_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *taskenv_path(const char *root, const char *project)
{
	const char *path = getenv("PATH");
	return xasprintf("PATH=%s/node_modules/.bin:%s/node_modules/.bin:%s", project, root,
		path ? path : "/usr/bin:/bin");
}

char **taskenv_environ(const struct taskenv *te, char *path)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = xcalloc(n + 2, sizeof(char *)), **o = envp;
	if (path)
		*o++ = path;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "VX_", 3) != 0 && !(path && strncmp(*e, "PATH=", 5) == 0) &&
			(!te || taskenv_allows(te, *e)))
			*o++ = *e;
	*o = NULL;
	return envp;
}
