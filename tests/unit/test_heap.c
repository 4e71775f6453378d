/* heap_reserve: the heap it grows starts one page below a 2 MiB boundary,
 * and no page above that boundary is touched before the huge-page advice
 * (a 2 MiB region touched first keeps 4 KiB pages for good). Under ASan
 * malloc does not use the break: only that malloc still works is checked. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap.h"
#include "unit.h"

#define HUGE_SZ ((uintptr_t)2 << 20)

int main(void)
{
	uintptr_t before = (uintptr_t)sbrk(0);
	heap_reserve(8);
#ifndef __SANITIZE_ADDRESS__
	uintptr_t after = (uintptr_t)sbrk(0), page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (before + page + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	uintptr_t hi = after & ~(HUGE_SZ - 1);
	CHECK(hi >= lo + ((uintptr_t)6 << 20)); /* the pad, less what rounding takes */
	size_t n = (hi - lo) / page, resident = 0;
	unsigned char *vec = calloc(n, 1);
	CHECK(vec && mincore((void *)lo, hi - lo, vec) == 0);
	for (size_t i = 0; vec && i < n; i++)
		resident += vec[i] & 1;
	CHECK(resident == 0);
	free(vec);
	char *first = malloc(64);
	CHECK((uintptr_t)first >= lo - page && (uintptr_t)first < lo);
	free(first);
#else
	(void)before;
#endif
	/* and malloc works as ever, small and large */
	for (size_t sz = 2; sz < ((size_t)32 << 20); sz *= 3) {
		unsigned char *p = malloc(sz);
		CHECK(p != NULL);
		if (!p)
			continue;
		p[0] = 1;
		p[sz - 1] = 2;
		CHECK(p[0] == 1 && p[sz - 1] == 2);
		free(p);
	}
	return UNIT_END("heap");
}
