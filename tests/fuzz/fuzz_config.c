/* fuzz_config: vx-graph's vx.json checker (graph/config.c) on any bytes as
 * one project's vx.json: every problem must be a config error line, never a
 * crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "err.h"

/* graph/main.c's, without the printing: the harness only counts */
void diag_config(struct workspace *ws, const char *file, const char *key, const char *fix,
	const char *fmt, ...)
{
	(void)file;
	(void)key;
	(void)fix;
	(void)fmt;
	ws->errors++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	struct workspace ws = {.root = "/ws"};
	strmap_init(&ws.by_name);
	strmap_init(&ws.by_id);
	struct project p = {.name = "@fuzz/p", .dir = "p", .abs = "/ws/p"};
	p.vx_text = xstrndup((const char *)data, size);
	config_load(&ws, &p);
	for (size_t i = 0; i < p.ntasks; i++) {
		struct task *t = p.tasks[i];
		free(t->id);
		free(t->depends_on);
		free(t->fold_filter);
		free(t);
	}
	free(p.tasks);
	free(p.config);
	free(p.vx_text);
	cJSON_Delete(p.json);
	strmap_free(&ws.by_name);
	strmap_free(&ws.by_id);
	return 0;
}
