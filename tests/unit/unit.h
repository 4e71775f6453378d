/* unit.h: a tiny test harness for the C unit tests. CHECK records a failure
 * with its place and goes on; UNIT_END prints "<name>: N passed, N failed" and
 * returns the exit code. */
#ifndef VX_UNIT_H
#define VX_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                            \
	do {                                                                       \
		if (cond) {                                                            \
			unit_passed++;                                                     \
		} else {                                                               \
			unit_failed++;                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                      \
	} while (0)

#define CHECK_STR(got, want)                                                   \
	do {                                                                       \
		const char *g_ = (got), *w_ = (want);                                  \
		if ((g_ == NULL && w_ == NULL) || (g_ && w_ && strcmp(g_, w_) == 0)) { \
			unit_passed++;                                                     \
		} else {                                                               \
			unit_failed++;                                                     \
			fprintf(stderr, "%s:%d: %s: got '%s', want '%s'\n", __FILE__,      \
				__LINE__, #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");       \
		}                                                                      \
	} while (0)

#define UNIT_END(name)                                                         \
	(printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed),    \
	 unit_failed ? 1 : 0)

#endif
