/* heap.c: see heap.h. Why: on a virtualised host each page fault costs
 * 10-20 us, and the driver of an all-hit 1,000-task rerun took ~2,800 of
 * them, a third of its CPU. glibc's own glibc.malloc.hugetlb=1 tunable does
 * the same, but only from the environment. */
#include "heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_SZ ((uintptr_t)2 << 20)

void heap_reserve(size_t mb)
{
	size_t pad = mb << 20;
	/* large buffers from the heap, kept there for reuse, never trimmed */
	mallopt(M_MMAP_THRESHOLD, (int)pad);
	mallopt(M_TRIM_THRESHOLD, (int)(pad * 2));
	mallopt(M_TOP_PAD, (int)pad);
	char *start = sbrk(0);
	/* more than the top chunk holds: the heap grows by this and the pad */
	void *volatile p = malloc(pad / 2); /* volatile: kept, not elided with its free */
	char *end = sbrk(0);
	free(p);
	if (start == (char *)-1 || end == (char *)-1 || end <= start)
		return;
	uintptr_t lo = ((uintptr_t)start + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	uintptr_t hi = (uintptr_t)end & ~(HUGE_SZ - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
