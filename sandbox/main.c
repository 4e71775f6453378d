/* vx-sandbox: run one task inside a boundary it sets up itself (issue 4).
 * Options and wiring only: the request (request.h), the grants (plan.h), the
 * seccomp filter (filter.h), the namespaces and the task (run.h). */
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "filter.h"
#include "learn.h"
#include "netctl.h"
#include "opt.h"
#include "plan.h"
#include "request.h"
#include "run.h"
#include "trace.h"
#include "tracefile.h"

static const char usage[] =
	"usage: vx-sandbox --request FILE\n"
	"       vx-sandbox [--root DIR] [--project DIR] [--read PATH]... [--write PATH]...\n"
	"                  [--unix-sockets] [--weaker-when-nested] [--git-config]\n"
	"                  [--cached [--keyed NAME]...] [--proxy-socket PATH]\n"
	"                  [--local-binding PORT]... [--trace FILE] -- COMMAND [ARG]...\n"
	"       vx-sandbox --request FILE|- --trace-fd N [--untraced]\n"
	"       vx-sandbox --learn DIR --trace FILE (--request FILE | ... -- COMMAND)\n"
	"\n"
	"Run one task inside new user, mount, pid, ipc, network and uts namespaces:\n"
	"the workspace walled but for the grants, the rest of the host read-only,\n"
	"a private /tmp, loopback only, no capabilities, a seccomp filter.\n"
	"\n"
	"  --request FILE        vx-graph's graph record, then the task's record\n"
	"                        (JSON lines; - for stdin): runs its command under\n"
	"                        /bin/sh -c, as the record's sandbox object grants\n"
	"  --root DIR            the workspace root (default: the project)\n"
	"  --project DIR         the project directory, the task's cwd (default: .)\n"
	"  --read PATH           allow.read: a path or glob, project-relative,\n"
	"                        absolute or ~/ (repeatable)\n"
	"  --write PATH          allow.write, the same way (repeatable)\n"
	"  --unix-sockets        allow.unixSockets: lift the AF_UNIX block\n"
	"  --weaker-when-nested  weakerWhenNested: let the task sandbox\n"
	"  --git-config          allow.gitConfig\n"
	"  --cached              the task declares cache: a linked workspace\n"
	"                        package is granted only when --keyed names it\n"
	"  --keyed NAME          a project the task's key folds (repeatable)\n"
	"  --proxy-socket PATH   vx-proxy's socket for this task: bridge the task's\n"
	"                        HTTP_PROXY/HTTPS_PROXY/ALL_PROXY ports to it\n"
	"  --local-binding PORT  allow.localBinding: expose the sandbox's\n"
	"                        127.0.0.1:PORT on the host's (repeatable)\n"
	"  --trace FILE          write the task's access records to FILE (JSON\n"
	"                        lines, docs/protocol.md): the tracer is ptrace;\n"
	"                        - for stdout, where the request's records come\n"
	"                        first, and the task's stdout goes to stderr\n"
	"  --trace-fd N          the same records, the request's first, on the\n"
	"                        inherited descriptor N (a pipe of vx run's), the\n"
	"                        task's stdout and stderr left as they are\n"
	"  --untraced            with --trace or --trace-fd: no tracer; the records\n"
	"                        say \"off\" (reason untraced) and carry the\n"
	"                        task's network denies and its exit (a persistent\n"
	"                        task under vx run)\n"
	"  --learn DIR           a learning run (vx init --sandbox): no grant, but\n"
	"                        the workspace root is an overlay whose writes land\n"
	"                        in DIR/upper (DIR: an empty directory of yours,\n"
	"                        mode 0700, outside the workspace), and the trace\n"
	"                        has every access the baseline would refuse, the\n"
	"                        ones that succeeded too\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: the task's own (128+N when signal N killed it); 2 when a\n"
	"write grant reaches $HOME, ~/.config, ~/.local or a PATH directory (R-25a);\n"
	"125 when vx-sandbox itself fails (usage, a bad request, another refused\n"
	"grant, a kernel without user namespaces or seccomp): the task is then not\n"
	"run.\n";

int main(int argc, char **argv)
{
	static const struct opt_spec specs[] = {
		{"request", 0, OPT_VALUE, 'R'},
		{"root", 0, OPT_VALUE, 'r'},
		{"project", 0, OPT_VALUE, 'p'},
		{"read", 0, OPT_VALUE, 'i'},
		{"write", 0, OPT_VALUE, 'o'},
		{"unix-sockets", 0, OPT_FLAG, 'u'},
		{"weaker-when-nested", 0, OPT_FLAG, 'n'},
		{"git-config", 0, OPT_FLAG, 'g'},
		{"cached", 0, OPT_FLAG, 'c'},
		{"keyed", 0, OPT_VALUE, 'k'},
		{"proxy-socket", 0, OPT_VALUE, 'P'},
		{"local-binding", 0, OPT_VALUE, 'L'},
		{"trace", 0, OPT_VALUE, 'T'},
		{"trace-fd", 0, OPT_VALUE, 'F'},
		{"untraced", 0, OPT_FLAG, 'U'},
		{"learn", 0, OPT_VALUE, 'l'},
		{"help", 'h', OPT_FLAG, 'h'},
		{NULL, 0, 0, 0},
	};
	struct sb_request flags = {0}, *r;
	const char *request = NULL, *root = NULL, *project = NULL, *proxy = NULL, *trace = NULL;
	const char *learn = NULL;
	char *end;
	struct plan plan = {0};
	struct netctl net = {0};
	int c, code, trace_fd = -1;
	bool hand = false, untraced = false;

	err_init(argv[0]);
	static struct opt_iter it; /* its operands live as long as the run */
	opt_init(&it, argc, argv, specs);
	it.stop_at_operand = 1; /* COMMAND's own flags are its own */
	while ((c = opt_next(&it)) != OPT_END) {
		hand |= c != 'R' && c != 'h' && c != 'T' && c != 'F' && c != 'U' && c != 'l';
		switch (c) {
		case 'R': request = it.value; break;
		case 'T': trace = it.value; break;
		case 'U': untraced = true; break;
		case 'F':
			trace_fd = (int)strtol(it.value, &end, 10);
			if (*end || !*it.value || trace_fd < 3) {
				err_warn("--trace-fd '%s': expected a descriptor number above 2", it.value);
				return RUN_EXIT_SETUP;
			}
			break;
		case 'l': learn = it.value; break;
		case 'r': root = it.value; break;
		case 'p': project = it.value; break;
		case 'i': strlist_push(&flags.read, it.value); break;
		case 'o': strlist_push(&flags.write, it.value); break;
		case 'u': flags.unix_sockets = true; break;
		case 'n': flags.weaker_nested = true; break;
		case 'g': flags.git_config = true; break;
		case 'c': flags.cached = true; break;
		case 'k': strlist_push(&flags.keyed, it.value); break;
		case 'P': proxy = it.value; break;
		case 'L':
			if (request_add_port(&flags, strtod(it.value, &end), "--local-binding") || *end) {
				free(flags.local_ports);
				return RUN_EXIT_SETUP;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return fflush(stdout) || ferror(stdout) ? RUN_EXIT_SETUP : 0;
		default:
			fputs(usage, stderr);
			return RUN_EXIT_SETUP;
		}
	}
	if (request ? (hand || it.noperands > 0) : it.noperands == 0) {
		err_warn(request ? "--request takes no command and no grant flags"
				 : "no command; fix: vx-sandbox --request FILE, or ... -- COMMAND");
		fputs(usage, stderr);
		return RUN_EXIT_SETUP;
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
		r->read = flags.read;
		r->write = flags.write;
		r->keyed = flags.keyed;
		memset(&flags.read, 0, sizeof(flags.read));
		memset(&flags.write, 0, sizeof(flags.write));
		memset(&flags.keyed, 0, sizeof(flags.keyed));
		r->unix_sockets = flags.unix_sockets;
		r->weaker_nested = flags.weaker_nested;
		r->git_config = flags.git_config;
		r->cached = flags.cached;
		r->proxy_socket = proxy ? strdup(proxy) : NULL;
		r->local_ports = flags.local_ports;
		r->nlocal_ports = flags.nlocal_ports;
		r->argv = it.operands;
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
