/* convert.c: vx.json files from turbo.json or nx.json (convert.h). */
#include "convert.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "notes.h"
#include "nx.h"
#include "output.h"
#include "plan.h"
#include "turbo.h"

int convert_run(struct workspace *ws, int rootfd, bool dry, bool force)
{
	static struct turbo t;
	if (!turbo_load(&t, ws, rootfd))
		return VX_EXIT_USAGE;
	if (t.root && faccessat(rootfd, "nx.json", F_OK, 0) == 0)
		note("nx.json", "(file)", "read only where there is no turbo.json");
	if (!t.root && !nx_load(&t, ws, rootfd))
		return VX_EXIT_USAGE;
	if (!t.root)
		err_die(VX_EXIT_USAGE, "turbo.json: (file): not found at the workspace root '%s', nor "
				       "nx.json; fix: run vx init in a Turborepo or Nx workspace, or "
				       "write vx.json by hand",
			ws->root);
	static struct plan pl;
	if (!plan_build(&pl, ws, &t, rootfd))
		return VX_EXIT_USAGE;

	char **text = xcalloc(pl.n + 1, sizeof(char *));
	int refused = 0;
	for (size_t i = 0; i < pl.n; i++) {
		if (!pl.projs[i].ntasks && !pl.projs[i].env_mode && !pl.projs[i].pass)
			continue;
		text[i] = output_render(&pl.projs[i]);
		if (!dry && !force && output_exists(rootfd, pl.projs[i].file)) {
			err_warn("%s: exists, nothing written; fix: --force to replace it, or --dry "
				 "to see the diff",
				pl.projs[i].file);
			refused++;
		}
	}
	if (refused) {
		for (size_t i = 0; i < pl.n; i++)
			free(text[i]);
		free(text);
		return VX_EXIT_FAIL;
	}
	notes_print();
	int rc = VX_EXIT_OK;
	size_t files = 0, tasks = 0;
	for (size_t i = 0; i < pl.n; i++) {
		if (!text[i])
			continue;
		if ((dry ? output_diff : output_write)(rootfd, pl.projs[i].file, text[i]) != 0) {
			rc = VX_EXIT_FAIL;
			continue;
		}
		files++;
		tasks += pl.projs[i].ntasks;
	}
	if (!dry)
		printf("vx init: wrote %zu vx.json files, %zu tasks; %u things not carried over%s\n",
			files, tasks, notes_count(), notes_count() ? " (above)" : "");
	for (size_t i = 0; i < pl.n; i++)
		free(text[i]);
	free(text);
	return rc;
}
