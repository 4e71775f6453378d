/* fuzz_lockfile: vx prune's lockfile pruners (prune/lockfile.h) on any
 * bytes as a pnpm-lock.yaml, a yarn.lock and a package-lock.json: every
 * problem must be an error line, never a crash; the line-based ones (pnpm,
 * yarn) must give a text made of the input's lines, in their order. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "lockfile.h"

/* every line of out is a line of in, in order (out may lack in's final
 * newline and repeated blank lines at its end) */
static bool lines_of(const char *out, const char *in)
{
	const char *p = in;
	for (const char *o = out; *o;) {
		const char *oe = strchr(o, '\n');
		size_t n = oe ? (size_t)(oe - o) : strlen(o);
		for (;;) {
			if (!*p)
				return false;
			const char *pe = strchr(p, '\n');
			size_t m = pe ? (size_t)(pe - p) : strlen(p);
			p = pe ? pe + 1 : p + m;
			if (m == n && memcmp(o, p - m - (pe ? 1 : 0), n) == 0)
				break;
		}
		o = oe ? oe + 1 : o + n;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	char *dirs[] = {".", "packages/app"};
	char *seeds[] = {"ms@2.1.3", "a@^1"};
	size_t kept, total;
	char *out = pnpmlock_prune(text, "pnpm-lock.yaml", dirs, 2, &kept, &total);
	if (out && (!lines_of(out, text) || kept > total))
		abort();
	free(out);
	out = yarnlock_prune(text, "yarn.lock", seeds, 2, &kept, &total);
	if (out && (!lines_of(out, text) || kept > total))
		abort();
	free(out);
	cJSON *ws = cJSON_CreateArray();
	cJSON_AddItemToArray(ws, cJSON_CreateString("packages/app"));
	out = npmlock_prune(text, "package-lock.json", dirs, 2, ws, &kept, &total);
	if (out && kept > total)
		abort();
	free(out);
	cJSON_Delete(ws);
	free(text);
	return 0;
}
