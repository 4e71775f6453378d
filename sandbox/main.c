/* vx-sandbox: run one task inside a boundary it sets up itself (issue 4).
 * Options and wiring only: session.h runs it (the request, the grants, the
 * namespaces and the task, the records). */
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "opt.h"
#include "request.h"
#include "run.h"
#include "session.h"

static const char head[] =
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
	"\n";
static const char tail[] =
	"\n"
	"Exit status: the task's own (128+N when signal N killed it); 2 when a\n"
	"write grant reaches $HOME, ~/.config, ~/.local or a PATH directory (R-25a);\n"
	"125 when vx-sandbox itself fails (usage, a bad request, another refused\n"
	"grant, a kernel without user namespaces or seccomp): the task is then not\n"
	"run.\n";


static const struct opt_spec specs[] = {
	{"request", 0, OPT_VALUE, 'R', "FILE", "vx-graph's graph record, then the task's record\n"
		"(JSON lines; - for stdin): runs its command under\n"
		"/bin/sh -c, as the record's sandbox object grants"},
	{"root", 0, OPT_VALUE, 'r', "DIR", "the workspace root (default: the project)"},
	{"project", 0, OPT_VALUE, 'p', "DIR", "the project directory, the task's cwd (default: .)"},
	{"read", 0, OPT_VALUE, 'i', "PATH", "allow.read: a path or glob, project-relative,\n"
		"absolute or ~/ (repeatable)"},
	{"write", 0, OPT_VALUE, 'o', "PATH", "allow.write, the same way (repeatable)"},
	{"unix-sockets", 0, OPT_FLAG, 'u', NULL, "allow.unixSockets: lift the AF_UNIX block"},
	{"weaker-when-nested", 0, OPT_FLAG, 'n', NULL, "weakerWhenNested: let the task sandbox"},
	{"git-config", 0, OPT_FLAG, 'g', NULL, "allow.gitConfig"},
	{"cached", 0, OPT_FLAG, 'c', NULL, "the task declares cache: a linked workspace\n"
		"package is granted only when --keyed names it"},
	{"keyed", 0, OPT_VALUE, 'k', "NAME", "a project the task's key folds (repeatable)"},
	{"proxy-socket", 0, OPT_VALUE, 'P', "PATH", "vx-proxy's socket for this task: bridge the task's\n"
		"HTTP_PROXY/HTTPS_PROXY/ALL_PROXY ports to it"},
	{"local-binding", 0, OPT_VALUE, 'L', "PORT", "allow.localBinding: expose the sandbox's\n"
		"127.0.0.1:PORT on the host's (repeatable)"},
	{"trace", 0, OPT_VALUE, 'T', "FILE", "write the task's access records to FILE (JSON\n"
		"lines, docs/protocol.md): the tracer is ptrace;\n"
		"- for stdout, where the request's records come\n"
		"first, and the task's stdout goes to stderr"},
	{"trace-fd", 0, OPT_VALUE, 'F', "N", "the same records, the request's first, on the\n"
		"inherited descriptor N (a pipe of vx run's), the\n"
		"task's stdout and stderr left as they are"},
	{"untraced", 0, OPT_FLAG, 'U', NULL, "with --trace or --trace-fd: no tracer; the records\n"
		"say \"off\" (reason untraced) and carry the\n"
		"task's network denies and its exit (a persistent\n"
		"task under vx run)"},
	{"learn", 0, OPT_VALUE, 'l', "DIR", "a learning run (vx init --sandbox): no grant, but\n"
		"the workspace root is an overlay whose writes land\n"
		"in DIR/upper (DIR: an empty directory of yours,\n"
		"mode 0700, outside the workspace), and the trace\n"
		"has every access the baseline would refuse, the\n"
		"ones that succeeded too"},
	{"help", 'h', OPT_FLAG, 'h', NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	struct session o = {.trace_fd = -1};
	char *end;
	int c;

	err_init(argv[0]);
	static struct opt_iter it; /* its operands live as long as the run */
	opt_init(&it, argc, argv, specs);
	it.stop_at_operand = 1; /* COMMAND's own flags are its own */
	while ((c = opt_next(&it)) != OPT_END) {
		o.hand |= c != 'R' && c != 'h' && c != 'T' && c != 'F' && c != 'U' && c != 'l';
		switch (c) {
		case 'R': o.request = it.value; break;
		case 'T': o.trace = it.value; break;
		case 'U': o.untraced = true; break;
		case 'F':
			o.trace_fd = (int)strtol(it.value, &end, 10);
			if (*end || !*it.value || o.trace_fd < 3) {
				err_warn("--trace-fd '%s': expected a descriptor number above 2", it.value);
				return RUN_EXIT_SETUP;
			}
			break;
		case 'l': o.learn = it.value; break;
		case 'r': o.root = it.value; break;
		case 'p': o.project = it.value; break;
		case 'i': strlist_push(&o.flags.read, it.value); break;
		case 'o': strlist_push(&o.flags.write, it.value); break;
		case 'u': o.flags.unix_sockets = true; break;
		case 'n': o.flags.weaker_nested = true; break;
		case 'g': o.flags.git_config = true; break;
		case 'c': o.flags.cached = true; break;
		case 'k': strlist_push(&o.flags.keyed, it.value); break;
		case 'P': o.proxy = it.value; break;
		case 'L':
			if (request_add_port(&o.flags, strtod(it.value, &end), "--local-binding") || *end) {
				free(o.flags.local_ports);
				return RUN_EXIT_SETUP;
			}
			break;
		case 'h':
			opt_usage(stdout, head, specs, tail);
			return fflush(stdout) || ferror(stdout) ? RUN_EXIT_SETUP : 0;
		default:
			opt_usage(stderr, head, specs, tail);
			return RUN_EXIT_SETUP;
		}
	}
	o.args = it.operands;
	o.nargs = it.noperands;
	int code = session_run(&o);
	if (code < 0)
		opt_usage(stderr, head, specs, tail);
	return code < 0 ? RUN_EXIT_SETUP : code;
}
