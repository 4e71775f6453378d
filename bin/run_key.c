/* Keying for vx run: each ready task through vx-key, and what then needs
 * no job slot settled at once: a group, or a cache hit restored in place or
 * by the writers (workq.h). */
#include "run_int.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "profile.h"
#include "taskreq.h"
#include "traceprobe.h"

/* vx-key is ready for the next record: up (started at the outset and handed
 * the graph record by graph_read; when either failed it said so then) and
 * told of a rescan if one is owed. false after a message. */
static bool keyer_ready(struct run *r)
{
	if (!r->keyer_up)
		r->keyer_broken = true;
	if (r->keyer_broken)
		return false;
	if (r->rescan) {
		if (keyer_rescan(&r->keyer) != 0) {
			r->keyer_broken = true;
			return false;
		}
		r->rescan = false;
	}
	return true;
}

/* graphin's hook: the graph record, before the task records are read. */
void run_cache_open(struct run *r, const cJSON *graph)
{
	if (r->cache_open)
		return;
	/* the graph record's root from now on (before: the --root asked) */
	r->root = graphin_str(graph, "root");
	runcache_open(&r->cache, r->root);
	runcache_config(&r->cache, graph);
	r->cache_open = true;
}

void run_graph_read(void *arg, const cJSON *graph)
{
	struct run *r = arg;
	/* the cache's remembered keys are asked of as tasks come (task_read) */
	run_cache_open(r, graph);
	if (!r->keyer_spawned || r->keyer_up)
		return;
	if (keyer_begin(&r->keyer, graph) != 0)
		r->keyer_broken = true;
	else
		r->keyer_up = true;
}

/* What vx-key leaves out of t's answer: the explain of the key the why
 * index remembers is on disk already (all of a rerun's hits), unless the
 * summary wants it. */
static const char *known_key(struct run *r, const char *id)
{
	return r->summarize || !r->cache_open ? NULL
		: runcache_remembered_key(&r->cache, r->root, id);
}

void run_task_read(void *arg, size_t i, const cJSON *task, const char *line)
{
	struct run *r = arg;
	/* a task with no dependency is ready as soon as the run starts, and
	 * vx-key needs no other key for it: it is keyed while the driver
	 * still reads and parses the rest of the graph (on 1,000 packages
	 * vx-key sat idle those ~8 ms). The pump takes the answers first. */
	if (!r->early_ok || !r->keyer_up || r->keyer_broken || !line)
		return;
	const char *kind = graphin_str(task, "kind"), *id = graphin_str(task, "id");
	if (!id || (kind && strcmp(kind, "persistent") == 0) ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(task, "deps")) != 0 ||
	    cJSON_GetObjectItemCaseSensitive(task, "key"))
		return;
	/* within room, the pump's answers to come included: stop at the first
	 * task that would not fit, its explainedKey member counted */
	if (r->early_bytes + (long)strlen(line) + 64 > r->keyer.room) {
		r->early_ok = false;
		return;
	}
	long sz = keyer_send_line(&r->keyer, line, known_key(r, id));
	if (sz <= 0) { /* 0: a line the pump will send as a record, in its turn */
		if (sz < 0)
			r->keyer_broken = true;
		r->early_ok = false;
		return;
	}
	r->early = xrealloc(r->early, (r->nearly + 1) * sizeof(*r->early));
	r->early[r->nearly++] = (struct early_key){.task = i, .size = sz};
	r->early_bytes += sz;
	/* the first at once, then a write every 16 */
	if (r->nearly % 16 == 1 && keyer_flush(&r->keyer) != 0)
		r->keyer_broken = true;
}

/* Take in vx-key's answer for t. */
static bool take_key(struct run *r, struct rtask *t, cJSON *k)
{
	const char *key = k ? graphin_str(k, "key") : NULL;
	if (!key || strlen(key) != 32) {
		cJSON_Delete(k);
		r->keyer_broken = true;
		return false;
	}
	memcpy(t->key, key, 33);
	free(t->rec_line); /* rec is no longer the graph's record */
	t->rec_line = NULL;
	/* the answer holds only what vx-key added: into the task's record */
	taskreq_move_key_members(t->rec, k);
	cJSON_Delete(k);
	runcache_remember(&r->cache, r->root, t->id, t->rec);
	t->keyed = true;
	return true;
}

/* Take t's key now that its dependencies are done. false after a message. */
bool run_key_task(struct run *r, struct rtask *t)
{
	if (!keyer_ready(r))
		return false;
	return take_key(r, t, keyer_key(&r->keyer, t->rec));
}

bool run_may_hit(const struct run *r, const struct rtask *t)
{
	/* R-10a: a sandboxed task this run cannot trace is never restored (the
	 * probe, once, only when one is about to be looked up) */
	return t->kind == K_EXEC && t->cached && r->use_cache && !r->force &&
	       !(t->sandboxed && traceprobe_refused());
}

static bool needs_key(const struct rtask *t)
{
	return !t->keyed && t->kind != K_PERSISTENT;
}

static void ready_remove(struct run *r, size_t ti)
{
	for (size_t i = 0; i < r->nready; i++)
		if (r->ready[i] == ti) {
			r->ready[i] = r->ready[--r->nready];
			return;
		}
}

/* t is a hit; its replayed log is *log, or t->log already when NULL. */
void run_hit(struct run *r, struct rtask *t, struct strbuf *log)
{
	if (log) {
		strbuf_release(&t->log);
		t->log = *log;
	}
	t->ms = ui_now_ms() - t->started;
	run_finish(r, t, UI_HIT);
}

/* A keyed task that needs no job slot is settled at once: a group is done, a
 * cached task whose result is in the cache is a hit (in place, or its
 * outputs handed to the writers: written() finishes it). A miss is
 * remembered so run_start() does not look again. */
static void settle(struct run *r, size_t ti)
{
	struct rtask *t = &r->t[ti];
	if (t->kind == K_GROUP) {
		ready_remove(r, ti);
		t->started = ui_now_ms();
		run_finish(r, t, t->all_hits ? UI_HIT : UI_DONE);
		return;
	}
	if (!run_may_hit(r, t))
		return;
	t->started = ui_now_ms();
	struct strbuf log = {0};
	struct runcache_write *job;
	int h = runcache_hit(&r->cache, t->key, r->root, t->dir, &log, &job);
	t->remote_hit = r->cache.hit_remote;
	if (!h) {
		strbuf_release(&log);
		t->probed = true;
		profile_span(PROFILE_MAIN, "phase", "cache lookup", t->started, ui_now_ms(), "task",
			t->id, "cache", "miss", (const char *)NULL);
		return;
	}
	ready_remove(r, ti);
	if (h == 1) {
		run_hit(r, t, &log);
		return;
	}
	/* --profile: written beside the pump, on a lane of its own */
	t->lane = profile_take(PROFILE_RESTORE);
	strbuf_release(&t->log);
	t->log = log;
	job->task = ti;
	workq_put(r->writers, job);
}

/* A hit's writes are done: a hit, or (nothing half-written) a miss to run. */
static void written(struct run *r, struct runcache_write *job)
{
	struct rtask *t = &r->t[job->task];
	if (runcache_written(job)) {
		r->rescan = true; /* a lockfile may be an output */
		r->restored++;
		run_hit(r, t, NULL);
		return;
	}
	strbuf_release(&t->log);
	t->probed = true;
	profile_give(t->lane);
	t->lane = PROFILE_MAIN;
	r->ready[r->nready++] = (size_t)(t - r->t);
}

/* Stream every ready task through vx-key, several in flight, settling each
 * answer as it comes while vx-key keys the next: the dependents a hit
 * releases join the same stream, so an all-hit run is one pipeline, vx-key
 * hashing while the driver restores. What stays in ready needs a job slot. */
void run_key_pump(struct run *r)
{
	bool any = false;
	for (size_t i = 0; i < r->nready && !any; i++)
		any = needs_key(&r->t[r->ready[i]]);
	if (!any || !keyer_ready(r))
		return;
	double p = profile_on() ? ui_now_ms() : 0;
	size_t *fifo = xcalloc(r->n, sizeof(*fifo)), head = 0, tail = 0;
	long *size = xcalloc(r->n, sizeof(*size)), inflight = 0;
	/* what task_read sent while the graph was read is answered first */
	for (size_t e = 0; e < r->nearly; e++) {
		struct rtask *t = &r->t[r->early[e].task];
		if (t->sandboxed && t->kind == K_EXEC && !run_may_hit(r, t))
			netproxy_start(&r->net, r->g.graph);
		t->in_flight = true;
		fifo[tail] = r->early[e].task;
		size[tail++] = r->early[e].size;
		inflight += r->early[e].size;
	}
	r->nearly = 0;
	struct runcache_write *job;
	while (!r->keyer_broken && !run_stop_requested) {
		while ((job = workq_get(r->writers, false)))
			written(r, job);
		for (size_t i = 0; i < r->nready && inflight < r->keyer.room; i++) {
			size_t ti = r->ready[i];
			struct rtask *t = &r->t[ti];
			if (!needs_key(t) || t->in_flight)
				continue;
			if (!keyer_ready(r)) /* a rescan owed since the last record */
				break;
			const char *known = known_key(r, t->id);
			/* its line as vx-graph printed it, unprinted again */
			long sz = t->rec_line ? keyer_send_line(&r->keyer, t->rec_line, known) : 0;
			if (sz == 0) {
				if (known)
					cJSON_AddStringToObject(t->rec, "explainedKey", known);
				sz = keyer_send(&r->keyer, t->rec);
				if (known)
					cJSON_DeleteItemFromObjectCaseSensitive(t->rec, "explainedKey");
			}
			if (sz < 0) {
				r->keyer_broken = true;
				break;
			}
			/* a sandboxed task that will run: vx-proxy starts while
			 * it is keyed, not after */
			if (t->sandboxed && t->kind == K_EXEC && !run_may_hit(r, t))
				netproxy_start(&r->net, r->g.graph);
			t->in_flight = true;
			fifo[tail] = ti;
			size[tail++] = sz;
			inflight += sz;
		}
		if (head == tail) {
			if (!workq_pending(r->writers))
				break;
			written(r, workq_get(r->writers, true));
			continue;
		}
		size_t ti = fifo[head];
		inflight -= size[head++];
		r->t[ti].in_flight = false;
		if (!take_key(r, &r->t[ti], keyer_recv(&r->keyer)))
			break; /* take_key marked the keyer broken */
		settle(r, ti);
	}
	/* unanswered (broken keyer, or a signal): run_start() keys them again, or
	 * fails them, or the run stops; answers still owed mean the stream is
	 * out of step, so it is not used again */
	if (head != tail)
		r->keyer_broken = true;
	for (; head < tail; head++)
		r->t[fifo[head]].in_flight = false;
	/* a hit being written is never left half-done, even on a signal */
	while ((job = workq_get(r->writers, true)))
		written(r, job);
	free(fifo);
	free(size);
	profile_span(PROFILE_MAIN, "phase", "keys and hits", p, ui_now_ms(), (const char *)NULL);
}
