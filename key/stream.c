/* stream.c: vx-key's record loop (see stream.h). */
#include "stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "err.h"
#include "jsonl.h"
#include "key.h"
#include "recarena.h"
#include "taskreq.h"

/* --live: seconds between saves of the stat cache while records come */
#define SAVE_EVERY 2

/* A --live task's answer: its id and the members vx-key added, moved out
 * of rec (taskreq_move_key_members: one pass over rec). */
static cJSON *answer(cJSON *rec)
{
	cJSON *ans = cJSON_CreateObject();
	cJSON_AddStringToObject(ans, "type", "task");
	cJSON_AddItemToObject(ans, "id", cJSON_DetachItemFromObjectCaseSensitive(rec, "id"));
	taskreq_move_key_members(ans, rec);
	return ans;
}

/* The graph record: the root, the nested projects. */
static int start(struct keyer *k, const char *root, const cJSON *rec, bool live, const char *where)
{
	if (!root)
		root = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "root"));
	if (!root) {
		err_warn("%s: invalid record: the graph record names no \"root\" (or pass --root)", where);
		return VX_EXIT_FAIL;
	}
	struct stat st;
	int e = stat(root, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
	if (e) {
		errno = e;
		err_warn_errno("unable to open the workspace root '%s'", root);
		return VX_EXIT_FAIL;
	}
	key_init(k, root, rec, live);
	return VX_EXIT_OK;
}

/* The stat cache is only speed: a failure to save it is a warning. */
static void save(struct keyer *k)
{
	if (statcache_save(k->in.sc) != 0)
		err_warn_errno("unable to save the stat cache in '%s/.vx'", k->in.root);
}

int key_stream(const struct key_stream_opts *opt)
{
	const char *root = opt->root;
	bool explain = opt->explain, live = opt->live, stamps = opt->stamps;
	static struct keyer k;
	bool started = false;
	/* the stat cache loads while the graph record is on its way */
	char *guess = root ? NULL : key_guess_root();
	if (root || guess)
		key_prepare(&k, root ? root : guess, live);
	free(guess);
	int rc = VX_EXIT_OK;
	time_t saved = time(NULL);
	struct jsonl_reader r;
	jsonl_reader_init(&r, stdin, "<stdin>");
	cJSON *rec;
	int got;
	/* one record in, one out: never read ahead (the driver waits); live,
	 * the answers to what came in one write go back in one, flushed
	 * before vx-key would wait for more */
	/* nothing cJSON makes outlives its record (key_init copies what it
	 * keeps of the graph record): one arena, taken back after each */
	recarena_use_for_cjson();
	if (live) {
		static char inbuf[65536];
		setvbuf(stdin, inbuf, _IOFBF, sizeof(inbuf));
		jsonl_out_batch();
	}
	for (;;) {
		if (live && !jsonl_reader_buffered(&r))
			jsonl_out_flush();
		if ((got = jsonl_read(&r, &rec)) == 0)
			break;
		if (got < 0) {
			rc = VX_EXIT_FAIL;
			break;
		}
		char where[64];
		snprintf(where, sizeof(where), "<stdin>:%zu", r.line);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		if (type && strcmp(type, "graph") == 0 && !started) {
			rc = start(&k, root, rec, live, where);
			started = rc == VX_EXIT_OK;
			k.stamps = stamps || live; /* the driver saves: it checks them */
		} else if (type && strcmp(type, "rescan") == 0) {
			/* answered by nothing: the driver waits for task answers only */
			if (started)
				key_rescan(&k);
			cJSON_Delete(rec);
			recarena_reset();
			continue;
		} else if (type && strcmp(type, "task") == 0) {
			if (!started) {
				err_warn("%s: a task record before the graph record", where);
				rc = VX_EXIT_FAIL;
			} else if (key_task(&k, rec, explain, where) != 0) {
				rc = VX_EXIT_FAIL;
			}
		}
		if (rc != VX_EXIT_OK) {
			cJSON_Delete(rec);
			break;
		}
		if (live && type && strcmp(type, "task") == 0) {
			/* the driver holds the record: only what was added goes back */
			cJSON *ans = answer(rec);
			jsonl_write(ans);
			recarena_delete(ans);
		} else if (!live) {
			/* by hand, every record passes through, keyed or not; live,
			 * only a task's answer comes back */
			jsonl_write(rec);
		}
		recarena_delete(rec);
		recarena_reset();
		/* a long --live session keeps its hashes even if it is killed */
		if (live && statcache_dirty(k.in.sc) && time(NULL) - saved >= SAVE_EVERY) {
			save(&k);
			saved = time(NULL);
		}
	}
	jsonl_reader_free(&r);
	recarena_stop();
	if (started) {
		save(&k);
		if (getenv("VX_KEY_STATS"))
			err_warn("hashed %zu files, %zu from the stat cache", k.in.hashed, k.in.cached);
	}
	key_free(&k); /* also a key_prepare'd stat cache no graph record took */
	return rc;
}
