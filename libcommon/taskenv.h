/* taskenv.h: which variables of the environment a task is handed (R-8a),
 * one rule for vx run's unsandboxed tasks, vx-sandbox and vx-key.
 *
 * A task record (docs/protocol.md) carries "envMode" ("strict", the
 * default, or "loose") and "passThroughEnv"; its keyed names are
 * cache.inputs.env. In strict mode a variable is handed when its name is in
 * the base set (TASKENV_BASE: what a shell needs, none of it a value that
 * plausibly changes what a build writes), matches a keyed entry, or matches
 * a passThroughEnv entry. Loose mode hands everything (vx's own VX_
 * variables are each caller's to drop). An entry is a name, or a pattern
 * with '*' standing for any run of characters (VITE_*); a leading '!'
 * takes the names it matches back out of that list, whatever the order.
 */
#ifndef VX_TASKENV_H
#define VX_TASKENV_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* "PATH HOME USER LOGNAME SHELL TMPDIR", as a NULL-ended list. */
extern const char *const taskenv_base[];

struct taskenv {
	bool loose;
	const cJSON *keyed; /* cache.inputs.env, or NULL */
	const cJSON *pass;  /* passThroughEnv, or NULL */
};

/* The policy of a task record (borrowed: rec outlives it). */
void taskenv_of(const cJSON *rec, struct taskenv *te);
/* Does the entry pattern (no '!') match name, of length n? */
bool taskenv_match(const char *pattern, const char *name, size_t n);
/* Does the list select name (n bytes): a positive entry matches it and no
 * '!' entry does? NULL selects nothing. */
bool taskenv_selects(const cJSON *list, const char *name, size_t n);
/* Is "NAME=value" (or a bare NAME) handed to the task? */
bool taskenv_allows(const struct taskenv *te, const char *entry);
/* Does an entry hold a '*' (it is a pattern, not one name)? */
bool taskenv_is_pattern(const char *entry);
/* "PATH=<project>/node_modules/.bin:<root>/node_modules/.bin:$PATH", as
 * vx run hands every task its PATH (malloc'd). */
char *taskenv_path(const char *root, const char *project);
/* The environment a task is handed, from this process's: what te allows
 * (NULL: all), never a VX_ variable, PATH replaced by path when not NULL.
 * A malloc'd array pointing into environ and at path: free the array only. */
char **taskenv_environ(const struct taskenv *te, char *path);

/* The names a keyed list (cache.inputs.env) folds, sorted, each once: its
 * plain names (set or not: unset is not the empty string) and the set
 * variables its patterns match, less those a '!' entry matches. The array
 * and its strings are malloc'd; *n is their count. */
char **taskenv_keyed_names(const cJSON *list, size_t *n);
void taskenv_names_free(char **names, size_t n);
/* NULL when entry is a valid env list entry, else why not, with the fix
 * after a '|' (config.c's convention). */
const char *taskenv_check(const char *entry);

#endif
