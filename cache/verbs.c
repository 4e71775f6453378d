/* verbs.c: vx-cache's verbs on the local cache (see verbs.h). */
#include "verbs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"
#include "fileio.h"
#include "jsonl.h"
#include "path.h"
#include "records.h"
#include "size.h"

/* PROJECTDIR made absolute, as the cache module wants it. */
static char *project(const char *dir)
{
	char *abs = path_canonical(dir);
	if (!abs)
		err_die_errno(VX_EXIT_FAIL, "unable to open '%s'", dir);
	return abs;
}

static int cmd_get(struct cache *c, const char *key)
{
	struct cache_entry *e;
	const char *why;
	if (!cache_lookup(c, key, &e, &why)) {
		err_warn("%s: a miss (%s)", key, why);
		return VX_EXIT_FAIL;
	}
	jsonl_write(e->manifest);
	cache_entry_free(e);
	return VX_EXIT_OK;
}

static int cmd_restore(struct cache *c, const char *key, const char *dir)
{
	struct cache_entry *e;
	const char *why;
	if (!cache_lookup(c, key, &e, &why)) {
		err_warn("%s: a miss (%s)", key, why);
		return VX_EXIT_FAIL;
	}
	size_t len;
	char *log = cache_entry_log(c, e, &len);
	int r = log && cache_restore(c, e, dir) >= 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	if (r == VX_EXIT_OK && fwrite(log, 1, len, stdout) != len)
		r = VX_EXIT_FAIL; /* reported by jsonl_out_finish */
	free(log);
	cache_entry_free(e);
	return r;
}

static void report_bad(const char *key, const char *what, void *arg)
{
	(void)arg;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "bad");
	cJSON_AddStringToObject(rec, "key", key);
	cJSON_AddStringToObject(rec, "error", what);
	jsonl_write(rec);
	cJSON_Delete(rec);
}

static int cmd_prune(struct cache *c, const char *max)
{
	unsigned long long cap = cache_max_size(c);
	if (max)
		size_parse(max, &cap); /* checked by main */
	struct cache_pruned p;
	if (cache_prune(c, cap, NULL, true, &p) != 0)
		return VX_EXIT_FAIL;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "pruned");
	cJSON_AddNumberToObject(rec, "maxSize", (double)cap);
	cJSON_AddNumberToObject(rec, "entries", (double)p.entries);
	cJSON_AddNumberToObject(rec, "evicted", (double)p.evicted);
	cJSON_AddNumberToObject(rec, "blobs", (double)p.blobs);
	cJSON_AddNumberToObject(rec, "before", (double)p.before);
	cJSON_AddNumberToObject(rec, "after", (double)p.after);
	jsonl_write(rec);
	cJSON_Delete(rec);
	return VX_EXIT_OK;
}

static int cmd_save(struct cache *c, char **args, const struct verb_opts *so)
{
	struct cache_save s = {.key = args[0], .nglobs = so->nglobs, .ms = so->ms, .exit = so->exit};
	const char **globs = so->globs;
	const char *logfile = so->logfile;
	char *log = NULL;
	if (logfile && !(log = fileio_read_at(AT_FDCWD, logfile, &s.loglen)))
		err_die_errno(VX_EXIT_FAIL, "unable to read '%s'", logfile);
	s.log = log;
	char *dir = project(args[1]);
	s.projdir = dir;
	s.globs = globs;
	int r = cache_save(c, &s) == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	free(dir);
	free(log);
	return r;
}

const char *verbs_check(const char *cmd, int nargs, const struct verb_opts *vo)
{
	bool save = strcmp(cmd, "save") == 0, prune = strcmp(cmd, "prune") == 0;
	bool records = verbs_records(cmd, nargs);
	bool ok = records || (strcmp(cmd, "get") == 0 && nargs == 1) ||
		  (strcmp(cmd, "restore") == 0 && nargs == 2) ||
		  (save && nargs == 2) ||
		  ((strcmp(cmd, "verify") == 0 || strcmp(cmd, "clean") == 0 || prune) && nargs == 0);
	if (!ok)
		return xasprintf("'%s': an unknown command or the wrong operands", cmd);
	if (vo->given && !save)
		return xasprintf("%s: --outputs, --log, --ms and --exit are save's options", cmd);
	if (vo->max && !prune)
		return xasprintf("%s: --max-size is prune's option", cmd);
	unsigned long long ignored;
	if (vo->max && size_parse(vo->max, &ignored) != 0) /* before the cache is opened */
		err_die(VX_EXIT_USAGE, "--max-size: '%s' is not a size; fix: bytes, or a number "
				       "with K, M, G or T, as in 500M or 10GB (0: no cap)", vo->max);
	if (vo->request && !(save && records))
		return xasprintf("%s: --request is the records save's option", cmd);
	if (records && (vo->outputs || vo->ms || vo->exit))
		return xasprintf("%s: --outputs, --ms and --exit are for save KEY PROJECTDIR; the "
				 "records say what to save", cmd);
	if (save && !records && !vo->outputs)
		return xstrdup("save: --outputs is required");
	return NULL;
}

bool verbs_records(const char *cmd, int nargs)
{
	return nargs == 0 && (strcmp(cmd, "lookup") == 0 || strcmp(cmd, "save") == 0);
}

int verbs_run(const char *cmd, char **args, int nargs, const struct verb_opts *vo)
{
	const char *dir = vo->dir, *state = vo->state;
	if (verbs_records(cmd, nargs))
		return strcmp(cmd, "lookup") == 0 ? records_lookup(dir, state)
						   : records_save(dir, state, vo->request, vo->logfile);
	char *projdir = nargs >= 2 ? project(args[1]) : NULL;
	char *statedir = state ? xstrdup(state) : projdir ? path_join(projdir, ".vx") : NULL;
	struct cache *c = cache_open(dir ? dir : ".vx/cache", statedir);
	int r;
	if (strcmp(cmd, "get") == 0) {
		r = cmd_get(c, args[0]);
	} else if (strcmp(cmd, "restore") == 0) {
		r = cmd_restore(c, args[0], projdir);
	} else if (strcmp(cmd, "save") == 0) {
		r = cmd_save(c, args, vo);
	} else if (strcmp(cmd, "verify") == 0) {
		int bad = cache_verify(c, report_bad, NULL);
		if (bad < 0)
			err_warn_errno("unable to read '%s/ac'", dir ? dir : ".vx/cache");
		r = bad == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	} else if (strcmp(cmd, "prune") == 0) {
		r = cmd_prune(c, vo->max);
	} else {
		r = cache_clean(c) == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	}
	cache_close(c);
	free(statedir);
	free(projdir);
	return r;
}
