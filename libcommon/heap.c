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
	/* The break starts wherever the kernel put it, rarely on a 2 MiB
	 * boundary, and the heap below the first boundary can only be faulted
	 * 4 KiB at a time (the driver of an all-hit rerun took ~360 faults
	 * there). So the break is first moved up to one page below a boundary
	 * (address space only), and the heap is grown by a tiny malloc: with
	 * the top pad it extends the heap by the pad, and malloc writes its
	 * headers only in that first page, so every 2 MiB region above is still
	 * untouched when it is advised (a region touched before the advice keeps
	 * 4 KiB pages). Were malloc already using the heap, it steps over the
	 * gap as over any foreign sbrk. */
	char *start = sbrk(0);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t head = (((uintptr_t)start + page + HUGE_SZ - 1) & ~(HUGE_SZ - 1)) - page;
	if (start != (char *)-1 && head > (uintptr_t)start &&
		sbrk((intptr_t)(head - (uintptr_t)start)) != (void *)-1)
		start = (char *)head;
	void *volatile p = malloc(1); /* volatile: kept, not elided with its free */
	char *end = sbrk(0);
	free(p);
	if (start == (char *)-1 || end == (char *)-1 || end <= start)
		return;
	uintptr_t lo = ((uintptr_t)start + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	uintptr_t hi = (uintptr_t)end & ~(HUGE_SZ - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
