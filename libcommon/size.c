/* size.c: sizes as users write them (size.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"

int size_parse(const char *s, unsigned long long *out)
{
	if (!s || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	int shift = 0;
	const char *unit = *end ? strchr("KMGTkmgt", *end) : NULL;
	if (unit) {
		shift = (int)((unit - "KMGTkmgt") % 4 + 1) * 10;
		end++;
		if ((end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end++;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || n > (~0ULL >> shift))
		return -1;
	*out = n << shift;
	return 0;
}
