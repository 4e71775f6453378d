/* lookup.h: names a sandboxed task looked up itself, as one hint.
 *
 * The sandbox has no resolver: its bridge answers every DNS query REFUSED
 * and vx-sandbox writes each distinct name asked as a "dns" trace record
 * (docs/protocol.md). A tool that goes through HTTP(S)_PROXY asks no DNS
 * for its target (the proxy resolves it), so a name there means the tool
 * dialled by itself and ignored the proxy variables: the likely cause of a
 * failed task's network error. lookup_add() keeps a record's name (only a
 * valid host name, each once); lookup_hint() spells the hint for task id
 * (its task record for the grant), or NULL when no name was kept. The
 * caller owns the array and frees the line.
 */
#ifndef VX_REPORT_LOOKUP_H
#define VX_REPORT_LOOKUP_H

#include <cjson/cJSON.h>

/* names: an array (made on first use); rec: a "dns" trace record */
void lookup_add(cJSON **names, const cJSON *rec);
char *lookup_hint(const char *id, const cJSON *names, const cJSON *task);

#endif
