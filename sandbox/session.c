/* session.c: one vx-sandbox run, its options given (see session.h). */
#include "session.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "filter.h"
#include "learn.h"
#include "netctl.h"
#include "plan.h"
#include "request.h"
#include "run.h"
#include "trace.h"
#include "tracefile.h"

int session_run(struct session *o)
{
	const char *request = o->request, *root = o->root, *project = o->project;
	const char *proxy = o->proxy, *trace = o->trace, *learn = o->learn;
	int trace_fd = o->trace_fd;
	bool hand = o->hand, untraced = o->untraced;
	struct sb_request *r;
	struct plan plan = {0};
	struct netctl net = {0};
	int code;

	if (request ? (hand || o->nargs > 0) : o->nargs == 0) {
		err_warn(request ? "--request takes no command and no grant flags"
				 : "no command; fix: vx-sandbox --request FILE, or ... -- COMMAND");
		return -1;
	}
	if (trace && trace_fd >= 0) {
		err_warn("--trace and --trace-fd both name where the records go: give one");
		return RUN_EXIT_SETUP;
	}
	if (untraced && (learn || (!trace && trace_fd < 0))) {
		err_warn("--untraced says what the records carry: fix: add --trace FILE or "
			 "--trace-fd N (and no --learn)");
		return RUN_EXIT_SETUP;
	}
	if (learn && !trace) {
		err_warn("--learn records what the task reaches: fix: add --trace FILE");
		return RUN_EXIT_SETUP;
	}
	if (request) {
		r = request_read(request);
		/* the task's stdin is not the request's stream: vx run's pipe
		 * must not reach it, and by hand it is spent */
		if (r && !strcmp(request, "-") && !freopen("/dev/null", "r", stdin)) {
			err_warn_errno("unable to open /dev/null for the task's stdin");
			request_free(r);
			return RUN_EXIT_SETUP;
		}
	} else {
		r = request_from_flags(root, project);
		r->read = o->flags.read;
		r->write = o->flags.write;
		r->keyed = o->flags.keyed;
		memset(&o->flags.read, 0, sizeof(o->flags.read));
		memset(&o->flags.write, 0, sizeof(o->flags.write));
		memset(&o->flags.keyed, 0, sizeof(o->flags.keyed));
		r->unix_sockets = o->flags.unix_sockets;
		r->weaker_nested = o->flags.weaker_nested;
		r->git_config = o->flags.git_config;
		r->cached = o->flags.cached;
		r->proxy_socket = proxy ? strdup(proxy) : NULL;
		r->local_ports = o->flags.local_ports;
		r->nlocal_ports = o->flags.nlocal_ports;
		r->argv = o->args;
	}
	/* where the records go: the tracer's (r->trace_fd) unless --untraced */
	int out = -1;
	if (r)
		r->trace_fd = -1;
	if (r && ((trace_fd >= 0 && (out = trace_to_fd(trace_fd, r->records)) < 0) ||
		  (trace && (out = trace_to(trace, r->records)) < 0) ||
		  (untraced && trace_untraced(out) < 0))) {
		request_free(r);
		return RUN_EXIT_SETUP;
	}
	if (r && !untraced)
		r->trace_fd = out;
	bool resolved = r && request_resolve(r) == 0;
	if (resolved && learn) {
		/* the baseline, the root under an overlay (learn.h); every call
		 * stops, so nothing the shim would skip goes unrecorded */
		strlist_free(&r->read);
		strlist_free(&r->write);
		r->unix_sockets = r->git_config = false;
		resolved = learn_setup(learn, r->root) == 0 && setenv("VX_TRACE_FAST", "0", 1) == 0;
	}
	/* R-25a is a config error, refused before anything is made */
	if (resolved && plan_check_home_writes(r)) {
		if (out >= 0)
			trace_exit(out, VX_EXIT_USAGE); /* the task never ran: say so */
		request_free(r);
		return VX_EXIT_USAGE;
	}
	/* a traced request with no vx-proxy (by hand) gets one of its own,
	 * so that its network is judged as under vx run (netctl.h) */
	if (resolved && request && !learn && out >= 0 && netctl_start(r, &net))
		resolved = false;
	if (!resolved || plan_build(r, &plan)) {
		plan_sweep(&plan, false); /* what a refused grant's plan made already */
		plan_free(&plan);
		netctl_stop(&net);
		if (out >= 0)
			trace_exit(out, RUN_EXIT_SETUP); /* the task never ran: say so */
		request_free(r);
		return RUN_EXIT_SETUP;
	}
	code = run_task(r, &plan);
	if (r->trace_fd >= 0)
		trace_placeholders(r, &plan);
	plan_sweep(&plan, code != 0);
	plan_free(&plan);
	if (out >= 0) {
		netctl_collect(r, out); /* the sandbox is gone: its denies */
		trace_exit(out, code);
		close(out);
	}
	netctl_stop(&net);
	request_free(r);
	return code;
}
