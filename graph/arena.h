/* arena.h: a bump allocator for vx-graph's parse trees.
 *
 * The workspace lives as long as the process, so nothing parsed needs
 * freeing one by one: arena_use_for_cjson makes cJSON allocate from chunks
 * mapped with MAP_POPULATE (their pages faulted in by one system call; page
 * faults and malloc were a third of vx-graph's time on a VM where traps are
 * dear) and makes its frees no-ops. Single-threaded: call it, and parse, on
 * one thread only. Sanitizer builds keep the plain allocator, so ASan still
 * sees every node. */
#ifndef VX_GRAPH_ARENA_H
#define VX_GRAPH_ARENA_H

void arena_use_for_cjson(void);

#endif
