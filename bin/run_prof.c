/* A task's span in vx run's --profile trace (profile.h): from when the run
 * took it up to now, on the lane it held, with what a reader of the trace
 * asks first: hit or not, its key, how it ended. */
#include "run_int.h"

#include <stdio.h>

#include "profile.h"

void run_prof_end(struct rtask *t, const char *status)
{
	if (!profile_on() || t->profiled)
		return;
	t->profiled = true;
	double now = ui_now_ms();
	const char *cache = !t->cached || t->kind != K_EXEC ? "off"
			    : t->status == UI_HIT             ? "hit"
							      : "miss";
	if (t->kind == K_GROUP)
		cache = t->status == UI_HIT ? "hit" : "off";
	char code[16] = "";
	if (t->spawned)
		snprintf(code, sizeof(code), "%d", t->exit_code);
	static const char *const kinds[] = {"exec", "group", "persistent"};
	profile_span(t->lane, "task", t->id, t->started ? t->started : now, now, "status", status,
		"cache", cache, "kind", kinds[t->kind], "key", t->key[0] ? t->key : NULL,
		*code ? "exit" : NULL, code, (const char *)NULL);
	profile_give(t->lane);
	t->lane = PROFILE_MAIN;
}
