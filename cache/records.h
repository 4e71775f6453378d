/* records.h: vx-cache's record verbs, so that a cached run composes by hand
 * (docs/pipeline.md, docs/protocol.md "vx-cache", records):
 *
 *   lookup: vx-key's records in, each written back; a cached exec task whose
 *     key is in the cache has its outputs restored into its project and its
 *     log written to stderr, and gets "hit":true; one that is not gets
 *     "hit":false. 0 when no task is left to run, 1 when one missed (or
 *     after a message).
 *   save: the request (vx-key's or lookup's records: the graph record and
 *     task records) from --request FILE and stdin, and vx-report's verdict
 *     records on stdin, each of which is written back; a task whose verdict
 *     passed, that was no hit and whose stamp (inputstamp.h) says no input
 *     moved since it was keyed is saved under its key, with FILE's bytes as
 *     its log, and a {"type":"saved"} record says so. 0, or 1 when a task's
 *     result was not saved (one line says why) or after a message.
 *
 * The cache directory is dir (--dir, else VX_CACHE_DIR), else the graph
 * record's <root>/.vx/cache, as vx run's; stamps go to state, else
 * <root>/.vx. */
#ifndef VX_CACHE_RECORDS_H
#define VX_CACHE_RECORDS_H

int records_lookup(const char *dir, const char *state);
int records_save(const char *dir, const char *state, const char *request, const char *logfile);

#endif
