/* config.h: each project's vx.json against the full schema (R-3, R-4, R-6,
 * exec.sandbox as the reference spells it, R-27, R-30). Every problem is one
 * config error line naming the file, the key and the fix; config_load keeps
 * going so one run shows them all, and the caller exits 2 on any. Tasks it
 * makes borrow from the parsed JSON kept in project->json. */
#ifndef VX_GRAPH_CONFIG_H
#define VX_GRAPH_CONFIG_H

#include "model.h"

void config_load(struct workspace *ws, struct project *p);

/* The root vx.json's cacheMaxSize: a size string ("10G", size.h) or
 * a whole number of bytes; 0 and *out set, or -1 when v is neither. */
int config_size(const cJSON *v, unsigned long long *out);

#endif
