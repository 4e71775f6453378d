/* slots.h: files saved one per argument list ("<prefix><16 hex>" in a
 * directory: vx-graph's saved graphs, vx run's remembered runs), bounded.
 *
 * slots_prune leaves the keep latest (by mtime) of dir's files named prefix
 * and 16 lowercase hex digits; temporaries ("<name>.<pid>") and other names
 * are left alone. */
#ifndef VX_SLOTS_H
#define VX_SLOTS_H

#include <stddef.h>

void slots_prune(const char *dir, const char *prefix, size_t keep);

#endif
