#include "explain.h"

#include <string.h>

static const char *label(const char *member)
{
	static const char *const map[][2] = {
		{"files", "file"}, {"env", "env"}, {"runtime", "runtime"}, {"deps", "dependency key"},
		{"package", "package.json"}, {"workspace", "root lockfiles"}, {"command", "command"},
		{"sandbox", "exec.sandbox"}, {"envMode", "envMode"},
		{"passThroughEnv", "passThroughEnv"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (strcmp(map[i][0], member) == 0)
			return map[i][1];
	return member;
}

/* Print one line per difference between two explain objects; count them. */
size_t explain_diff(const cJSON *was, const cJSON *now, FILE *out, const char *indent)
{
	size_t n = 0;
	const cJSON *m;
	cJSON_ArrayForEach(m, now) {
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(was, m->string);
		if (cJSON_IsObject(m)) {
			const cJSON *e;
			cJSON_ArrayForEach(e, m) {
				const cJSON *o = old ? cJSON_GetObjectItemCaseSensitive(old, e->string) : NULL;
				if (!o) {
					fprintf(out, "%s%s added: %s\n", indent, label(m->string), e->string);
					n++;
				} else if (!cJSON_Compare(o, e, 1)) {
					if (strcmp(m->string, "deps") == 0)
						fprintf(out, "%s%s changed: %s (see vx why %s)\n", indent, label(m->string),
							e->string, e->string);
					else
						fprintf(out, "%s%s changed: %s\n", indent, label(m->string), e->string);
					n++;
				}
			}
			if (cJSON_IsObject(old))
				cJSON_ArrayForEach(e, old) if (!cJSON_GetObjectItemCaseSensitive(m, e->string))
				{
					fprintf(out, "%s%s removed: %s\n", indent, label(m->string), e->string);
					n++;
				}
		} else if (!old || !cJSON_Compare(old, m, 1)) {
			fprintf(out, "%s%s changed\n", indent, label(m->string));
			n++;
		}
	}
	return n;
}

