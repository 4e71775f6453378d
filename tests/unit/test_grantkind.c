/* test_grantkind.c: the grant table (grantkind.h) is whole, its examples
 * fit their shapes, docs/grants.md names every row, and an unknown member
 * is guessed as the row meant. Run from the repository root. */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "grantkind.h"
#include "netpat.h"
#include "unit.h"

static bool strings(const cJSON *v)
{
	const cJSON *e;
	if (!cJSON_IsArray(v))
		return false;
	cJSON_ArrayForEach(e, v)
		if (!cJSON_IsString(e) || !*e->valuestring)
			return false;
	return true;
}

static bool hosts(const cJSON *v, const char *section)
{
	enum netpat_kind k = !strcmp(section, "deny") ? NETPAT_DENY :
		!strcmp(section, "ignore") ? NETPAT_IGNORE : NETPAT_ALLOW;
	const cJSON *e;
	if (!strings(v))
		return false;
	cJSON_ArrayForEach(e, v)
		if (netpat_check(e->valuestring, k))
			return false;
	return true;
}

static bool fits(const struct grantkind *g, const cJSON *v)
{
	switch (g->shape) {
	case GRANT_PATHS:
	case GRANT_STRINGS:
		return strings(v);
	case GRANT_HOSTS:
		return hosts(v, g->section);
	case GRANT_HOSTS_OR_TRUE:
		return cJSON_IsTrue(v) || hosts(v, g->section);
	case GRANT_BOOL:
		return cJSON_IsBool(v);
	case GRANT_BOOL_OR_STRINGS:
		return cJSON_IsBool(v) || strings(v);
	case GRANT_BOOL_OR_PORTS:
		return cJSON_IsBool(v) || cJSON_IsArray(v);
	}
	return false;
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	static char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return f ? buf : NULL;
}

int main(void)
{
	const char *doc = slurp("docs/grants.md");
	char names[256], want[128];
	CHECK(doc != NULL);
	CHECK(ngrantkinds >= 16);
	for (size_t i = 0; i < ngrantkinds; i++) {
		const struct grantkind *g = &grantkinds[i];
		snprintf(want, sizeof(want), "%s%s%s", g->section, *g->section ? "." : "", g->name);
		CHECK_STR(g->path, want);
		CHECK(grantkind_at(g->path) == g);
		CHECK(grantkind_find(g->section, g->name) == g);
		cJSON *ex = cJSON_Parse(g->example);
		CHECK(ex && fits(g, ex));
		cJSON_Delete(ex);
		snprintf(want, sizeof(want), "| `%s` |", g->path);
		CHECK(doc && strstr(doc, want));
		/* a report proposes only allow grants */
		CHECK(g->merge == GRANT_MERGE_NONE || !strcmp(g->section, "allow"));
	}
	CHECK(grantkind_find("allow", "exec") == NULL);
	CHECK(grantkind_at("deny.read") == NULL);
	grantkind_names("deny", names, sizeof(names));
	CHECK_STR(names, "network");
	grantkind_names("ignore", names, sizeof(names));
	CHECK_STR(names, "read, write, systemInfo, network");
	grantkind_names("allow", names, 12);
	CHECK_STR(names, "read, write");
	/* the row meant: the same name elsewhere, else a near spelling */
	CHECK_STR(grantkind_guess("deny", "read")->path, "allow.read");
	CHECK_STR(grantkind_guess("", "write")->path, "allow.write");
	CHECK_STR(grantkind_guess("allow", "unixsockets")->path, "allow.unixSockets");
	CHECK_STR(grantkind_guess("allow", "reed")->path, "allow.read");
	CHECK_STR(grantkind_guess("", "weakerWhenNestd")->path, "weakerWhenNested");
	CHECK(grantkind_guess("allow", "exec") == NULL);
	CHECK(grantkind_guess("allow", "filesystem") == NULL);
	return UNIT_END("grantkind");
}
