/* heap.h: a heap that faults in 2 MiB at a time.
 *
 * heap_reserve(mb) extends malloc's heap by about mb MiB up front, from a
 * 2 MiB boundary, and asks for transparent huge pages on it (MADV_HUGEPAGE:
 * the system's "madvise" mode), so a stage that builds a few MiB of records
 * takes a handful of page faults instead of one per 4 KiB. Memory is still committed only as it is
 * touched, 2 MiB at a time. Call it first thing in main, before threads; it
 * changes no behaviour, and where THP is off it costs one madvise.
 */
#ifndef VX_HEAP_H
#define VX_HEAP_H

#include <stddef.h>

void heap_reserve(size_t mb);

#endif
