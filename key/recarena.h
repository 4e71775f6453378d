/* recarena.h: cJSON's allocations one record at a time (vx-key's loop).
 *
 * recarena_use_for_cjson makes cJSON take its nodes and strings from one
 * chunk by bumping a pointer, and makes its frees of them cost nothing (a
 * task record's parse, answer and print were ~110 mallocs and as many
 * frees). recarena_reset takes the whole chunk back at once: call it only
 * when no cJSON item or string made since the last reset is alive (vx-key:
 * after each record is answered and deleted). What does not fit the chunk
 * comes from malloc and is freed as before; a reset after such a spill
 * grows the chunk. graph/arena.h is the sibling for vx-graph, whose trees
 * live as long as the process. Single-threaded. Under ASan the chunk is
 * poisoned at each reset, so a use after it is reported.
 */
#ifndef VX_KEY_RECARENA_H
#define VX_KEY_RECARENA_H

#include <cjson/cJSON.h>

void recarena_use_for_cjson(void);
void recarena_reset(void);
/* cJSON_Delete(item), or nothing when everything cJSON made since the
 * reset is in the chunk (the reset about to follow takes it all back):
 * the tree need not be walked node by node. */
void recarena_delete(cJSON *item);
/* cJSON back on malloc, the chunk freed (nothing made from it alive). */
void recarena_stop(void);

#endif
