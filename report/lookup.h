/* lookup.h: names a sandboxed task looked up itself, as one hint.
 *
 * The sandbox has no resolver: its bridge answers every DNS query REFUSED
 * and vx-sandbox writes each distinct name asked as a "dns" trace record
 * (docs/protocol.md). A tool that goes through HTTP(S)_PROXY asks no DNS
 * for its target (the proxy resolves it), so a name there means the tool
 * dialled by itself and ignored the proxy variables: the likely cause of a
 * failed task's network error, unless the task also sent that name to the
 * proxy (a "proxied" record: the tool did use it, and vx-proxy judged the
 * request). lookup_add() keeps a dns or proxied record's name (only a valid
 * host name, each once); lookup_hint() spells the hint for task id (its
 * task record for the grant), or NULL when no name is left. The caller owns
 * the set and frees the line.
 */
#ifndef VX_REPORT_LOOKUP_H
#define VX_REPORT_LOOKUP_H

#include <cjson/cJSON.h>

/* set: made on first use; rec: a trace record ("dns" and "proxied" kept) */
void lookup_add(cJSON **set, const cJSON *rec);
char *lookup_hint(const char *id, const cJSON *set, const cJSON *task);

#endif
