#include "dry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "err.h"
#include "graphin.h"
#include "jsonl.h"
#include "replay.h"
#include "runcache.h"
#include "traceprobe.h"
#include "strmap.h"
#include "watchq.h"
#include "wsroot.h"

/* The status of task record i, its dependencies' statuses already in
 * done (id -> status string). */
static const char *status_of(const cJSON *rec, struct runcache *rc, bool lookup,
	const struct dry_opts *o, struct strmap *done)
{
	const char *kind = graphin_str(rec, "kind");
	const cJSON *cache = cJSON_GetObjectItemCaseSensitive(rec, "cache");
	if (kind && strcmp(kind, "group") == 0) {
		/* as the run says it: a hit when every dependency was one */
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rec, "deps")) {
			const char *s = cJSON_IsString(d) ? strmap_get(done, d->valuestring) : NULL;
			if (!s || strcmp(s, "hit") != 0)
				return "done";
		}
		return "hit";
	}
	if (!kind || strcmp(kind, "exec") != 0 || cJSON_IsNull(cache) || !cache || !o->use_cache ||
	    o->force)
		return "run";
	const char *key = graphin_str(rec, "key");
	/* a sandboxed task this run cannot trace is not restored (R-10a) */
	if (!lookup || !key ||
		(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rec, "sandbox")) && traceprobe_refused()))
		return "miss";
	struct cache_entry *e;
	if (cache_lookup_manifest(rc->c, key, &e) == 1) {
		cache_entry_free(e);
		return "hit";
	}
	return o->remote ? "unknown" : "miss";
}

int dry_main(const struct dry_opts *o)
{
	char *root = NULL;
	bool git_sel = false;
	for (int i = 0; i < o->nargs; i++)
		git_sel |= strcmp(o->args[i], "--filter") == 0 && i + 1 < o->nargs &&
			   strchr(o->args[i + 1], '[');
	bool found = wsroot_find(".", o->root, false, &root) == 0;
	/* a run vx-watch vouches for: every task a hit in place, keys known.
	 * Only a running vx-watch is asked: a dry run starts none (in a fresh
	 * checkout it would compete with this very run for the cores) */
	char tok[WATCHQ_TOKEN_MAX];
	char *sock = found ? xasprintf("%s/.vx/watch.sock", root) : NULL;
	bool watching = sock && access(sock, F_OK) == 0;
	free(sock);
	if (watching && o->use_cache && !o->force && !o->remote && !git_sel && watchq_token(root, tok)) {
		int out = replay_try(root, o->args, o->nargs, tok, &(struct ui_opts){.json = o->json}, true);
		if (out >= 0) {
			free(root);
			return out;
		}
	}
	/* nothing in the cache: every cached task misses whatever its key */
	bool lookup = o->use_cache && !o->force && !(found && !o->remote && runcache_empty(root));
	free(root);

	struct graphin g;
	int rc = graphin_load(&g, o->root, o->args, o->nargs, lookup, false);
	if (rc)
		return rc;
	struct runcache cache = {0};
	if (lookup)
		runcache_open(&cache, graphin_str(g.graph, "root"));
	struct strmap done;
	strmap_init(&done);
	for (size_t i = 0; i < g.n; i++) {
		const cJSON *rec = g.tasks[i];
		const char *id = graphin_str(rec, "id");
		if (!id)
			continue;
		const char *st = status_of(rec, &cache, lookup, o, &done);
		strmap_put(&done, id, (void *)st);
		ui_dry_line(id, st, graphin_str(rec, "key"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "final")), o->json);
	}
	strmap_free(&done);
	if (lookup)
		runcache_close(&cache);
	graphin_free(&g);
	return jsonl_out_finish();
}
