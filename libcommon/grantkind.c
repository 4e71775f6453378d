/* grantkind.c: the table of exec.sandbox's members (grantkind.h). A new
 * grant is one row here; its enforcement is vx-sandbox's (docs/grants.md). */
#include "grantkind.h"

#include <ctype.h>
#include <string.h>

const struct grantkind grantkinds[] = {
	{"allow", "read", "allow.read", GRANT_PATHS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NEST,
		"[\".\"]"},
	{"allow", "write", "allow.write", GRANT_PATHS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NEST,
		"[\"dist/\"]"},
	{"allow", "network", "allow.network", GRANT_HOSTS_OR_TRUE, 0, GRANT_MERGE_NONE,
		"[\"example.com\"]"},
	{"allow", "systemInfo", "allow.systemInfo", GRANT_STRINGS, GRANT_MACOS_ONLY,
		GRANT_MERGE_NONE, "[\"hw.ncpu\"]"},
	{"allow", "unixSockets", "allow.unixSockets", GRANT_BOOL_OR_STRINGS, 0, GRANT_MERGE_NONE,
		"true"},
	{"allow", "localBinding", "allow.localBinding", GRANT_BOOL_OR_PORTS, 0, GRANT_MERGE_NONE,
		"[3000]"},
	{"allow", "machLookup", "allow.machLookup", GRANT_STRINGS, GRANT_MACOS_ONLY,
		GRANT_MERGE_NONE, "[\"com.apple.xyz\"]"},
	{"allow", "pty", "allow.pty", GRANT_BOOL, GRANT_MACOS_ONLY, GRANT_MERGE_NONE, "true"},
	{"allow", "gitConfig", "allow.gitConfig", GRANT_BOOL, 0, GRANT_MERGE_NONE, "true"},
	{"deny", "network", "deny.network", GRANT_HOSTS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NONE,
		"[\"*.tracker.test\"]"},
	{"ignore", "read", "ignore.read", GRANT_PATHS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NONE,
		"[\"~/.npmrc\"]"},
	{"ignore", "write", "ignore.write", GRANT_PATHS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NONE,
		"[\"~/.npm/_logs/**\"]"},
	{"ignore", "systemInfo", "ignore.systemInfo", GRANT_STRINGS, GRANT_MACOS_ONLY,
		GRANT_MERGE_NONE, "[\"hw.ncpu\"]"},
	{"ignore", "network", "ignore.network", GRANT_HOSTS, GRANT_EMPTY_DEFAULT, GRANT_MERGE_NONE,
		"[\"telemetry.test:443\"]"},
	{"", "weakerWhenNested", "weakerWhenNested", GRANT_BOOL, 0, GRANT_MERGE_NONE, "true"},
	{"", "weakerNetworkIsolation", "weakerNetworkIsolation", GRANT_BOOL, GRANT_MACOS_ONLY,
		GRANT_MERGE_NONE, "true"},
};

const size_t ngrantkinds = sizeof(grantkinds) / sizeof(*grantkinds);

const struct grantkind *grantkind_find(const char *section, const char *name)
{
	for (size_t i = 0; i < ngrantkinds; i++)
		if (!strcmp(grantkinds[i].section, section) && !strcmp(grantkinds[i].name, name))
			return &grantkinds[i];
	return NULL;
}

const struct grantkind *grantkind_at(const char *path)
{
	for (size_t i = 0; i < ngrantkinds; i++)
		if (!strcmp(grantkinds[i].path, path))
			return &grantkinds[i];
	return NULL;
}

void grantkind_names(const char *section, char *buf, size_t size)
{
	size_t n = 0;
	if (!size)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < ngrantkinds; i++) {
		if (strcmp(grantkinds[i].section, section))
			continue;
		const char *sep = n ? ", " : "";
		size_t want = strlen(sep) + strlen(grantkinds[i].name);
		if (n + want >= size)
			break;
		strcpy(buf + n, sep);
		strcpy(buf + n + strlen(sep), grantkinds[i].name);
		n += want;
	}
}

/* The edit distance of a and b (case-blind), capped at 3: a guess is only
 * a near miss. */
static unsigned distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned row[64];
	if (na >= 63 || nb >= 63 || (na > nb ? na - nb : nb - na) > 2)
		return 3;
	for (size_t j = 0; j <= nb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			unsigned up = row[j];
			unsigned sub = diag + (tolower((unsigned char)a[i - 1]) !=
				tolower((unsigned char)b[j - 1]));
			unsigned best = sub < up + 1 ? sub : up + 1;
			row[j] = best < row[j - 1] + 1 ? best : row[j - 1] + 1;
			diag = up;
		}
	}
	return row[nb] < 3 ? row[nb] : 3;
}

const struct grantkind *grantkind_guess(const char *section, const char *name)
{
	const struct grantkind *best = NULL;
	unsigned bestd = 3;
	/* the same name where it belongs: deny.read means allow.read or ignore.read */
	for (size_t i = 0; i < ngrantkinds; i++)
		if (!strcmp(grantkinds[i].name, name) && strcmp(grantkinds[i].section, section))
			return &grantkinds[i];
	for (size_t i = 0; i < ngrantkinds; i++) {
		if (strcmp(grantkinds[i].section, section))
			continue;
		unsigned d = distance(name, grantkinds[i].name);
		if (d < bestd) {
			bestd = d;
			best = &grantkinds[i];
		}
	}
	return best;
}
