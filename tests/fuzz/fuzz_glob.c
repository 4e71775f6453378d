/* fuzz_glob: glob_match against the recursive matcher it replaced
 * (glob_ref.h), on every input both can finish; and every other glob.h
 * function for memory errors. Input: pattern '\n' path (no '\n': the whole
 * input is both). glob.c is compiled in: the reference shares its
 * one-segment matcher. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/glob.c"
#include "fuzz.h"
#include "glob_ref.h"

/* The reference tries every split of the path among the "**": keep it to
 * inputs where that stays small. */
static bool ref_feasible(const char *pat, const char *path)
{
	size_t stars = 0, segs = 1;
	for (const char *p = pat; *p; p++)
		stars += p[0] == '*' && p[1] == '*';
	for (const char *s = path; *s; s++)
		segs += *s == '/';
	return stars <= 6 && segs <= 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;
	const char *pat, *path;
	char *buf = fuzz_split(data, size, &pat, &path, NULL);
	bool got = glob_match(pat, path);
	if (ref_feasible(pat, path) && got != ref_glob_match(pat, path)) {
		fprintf(stderr, "glob_match('%s', '%s') = %d, the reference says %d\n", pat, path,
			got, !got);
		abort();
	}
	(void)glob_has_magic(pat);
	(void)glob_may_match_under(pat, path);
	free(glob_collapse(pat));
	free(glob_static_prefix(pat));
	free(glob_unescape(pat));
	free(buf);
	return 0;
}
