/* session.h: one run of vx-sandbox, its options parsed by main.
 *
 * session_run checks the options go together (a request takes no command
 * and no grant flag; one of --trace and --trace-fd; --untraced and --learn
 * need a trace), reads the request (stdin then becomes /dev/null: the
 * task's stdin is not the request's stream) or builds one from the flags,
 * opens where the records go, resolves and checks the grants (R-25a is
 * exit 2, before anything is made), gives a traced request without a
 * vx-proxy one of its own (netctl.h), builds the plan, runs the task, and
 * ends the records with its network denies and its exit record. Returns
 * the task's exit status, 2 (R-25a), 125 (RUN_EXIT_SETUP) after a line on
 * stderr when nothing ran, or -1 for a usage error (the caller prints
 * its usage and exits 125).
 */
#ifndef VX_SANDBOX_SESSION_H
#define VX_SANDBOX_SESSION_H

#include <stdbool.h>

#include "request.h"

struct session {
	const char *request, *root, *project, *proxy, *trace, *learn;
	int trace_fd;         /* --trace-fd, or -1 */
	bool hand, untraced;  /* hand: a grant flag or --root/--project given */
	struct sb_request flags; /* the grant flags, moved into the request */
	char **args;          /* COMMAND ARG... */
	int nargs;
};

int session_run(struct session *o);

#endif
