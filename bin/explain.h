/* explain.h: what moved between two of vx-key's "explain" objects (what a
 * key folded): one line per input file changed, added or removed, env value,
 * runtime output, package.json, root lockfiles, command, dependency key.
 * vx why prints it; vx run names the input edited while a task ran. */
#ifndef VX_BIN_EXPLAIN_H
#define VX_BIN_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* Lines to out, each after indent; returns how many. */
size_t explain_diff(const cJSON *was, const cJSON *now, FILE *out, const char *indent);

#endif
