/* facts.h: what report_judge's rules (rules.c) ask of one access record,
 * the task's grants and the host, each a question with no output.
 *
 * Paths are absolute and canonical (an access record's "resolved"); r is
 * the report being judged (its root, project, task and withheld links).
 * facts_raw_path() and facts_show() and facts_spell() return malloc'd
 * strings the caller frees; the rest return into r's own records.
 */
#ifndef VX_REPORT_FACTS_H
#define VX_REPORT_FACTS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "report.h"

/* The raw bytes of rec's path member key: its _hex twin when it has one
 * (*bin then true). */
char *facts_raw_path(const cJSON *rec, const char *key, bool *bin);
/* s for a text line: control bytes (every byte above 0x7f when bin) as C
 * escapes, so one record stays one line. */
char *facts_show(const char *s, bool bin);
/* Does an ignore.read / ignore.write glob (access) silence res? */
bool facts_ignored(const struct report *r, const char *access, const char *res);
/* The withheld link whose target holds res, or NULL. */
const cJSON *facts_withheld_for(const struct report *r, const char *res);
/* Does an ignore.network entry silence host:port? */
bool facts_net_ignored(const struct report *r, const char *host, unsigned port);
/* p spelled from the project when in the workspace, ~/ under $HOME. */
char *facts_spell(const struct report *r, const char *p);
/* The name of the project at dir (a withheld package), or NULL. */
const char *facts_package_of(const struct report *r, const char *dir);
/* Could the sandbox have given this errno (else the host gives it too)? */
bool facts_sandbox_errno(const char *en, bool write, const char *res);
/* Could this hidden read by op change a cached task's output? */
bool facts_forks_output(const char *op, const char *res);
/* May a hint propose granting dir? */
bool facts_grantable(const struct report *r, const char *dir);

#endif
