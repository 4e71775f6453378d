/* vx-proxy: the network boundary of one vx run (docs/man/vx-proxy.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "jsonl.h"
#include "netpat.h"
#include "opt.h"
#include "request.h"
#include "server.h"
#include "setup.h"

static const char head[] =
	"usage: vx-proxy --request FILE|- [--hosts FILE] [--header-timeout S] [--connect-timeout S] [--idle-timeout S] [--max-conns N]\n"
	"       vx-proxy --listen-unix PATH|--listen-tcp PORT [--task ID] [--allow ENTRY]... [--deny ENTRY]... [OPTION...]\n"
	"\n";
static const char tail[] =
	"\n"
	"Exit status: 0 stopped by SIGTERM, SIGINT or SIGHUP, or by EOF on the request's\n"
	"stdin; 1 failure (a socket, a write); 2 usage or a bad request record.\n";

static const struct opt_spec specs[] = {
	{"request", 0, OPT_VALUE, 'r', "FILE|-", "the run's request, JSON lines (docs/protocol.md,\n"
		"vx-proxy); with -, read from stdin as it comes (tasks\n"
		"may be added while it runs), and EOF ends vx-proxy"},
	{"listen-unix", 0, OPT_VALUE, 'l', "PATH", "by hand: one task, served on a socket bound at PATH"},
	{"listen-tcp", 0, OPT_VALUE, 'p', "PORT", "by hand: the same on 127.0.0.1:PORT (tests and\n"
		"benchmarks with TCP-only clients; vx run never uses it)"},
	{"task", 0, OPT_VALUE, 't', "ID", "the task's name in the records (default: (command line))"},
	{"allow", 0, OPT_VALUE, 'a', "ENTRY", "a host it may reach (R-30 syntax); repeatable"},
	{"deny", 0, OPT_VALUE, 'd', "ENTRY", "a host nobody may reach (also `*`, `*:PORT`); repeatable"},
	{"hosts", 0, OPT_VALUE, 'H', "FILE", "resolve names from FILE alone, /etc/hosts syntax; a\n"
		"name it does not list does not resolve (tests;\n"
		"default: $VX_PROXY_HOSTS when set and not empty, else\n"
		"the system resolver)"},
	{"header-timeout", 0, OPT_VALUE, 'T', "S", "seconds for a client to send its whole request (10)"},
	{"connect-timeout", 0, OPT_VALUE, 'C', "S", "seconds for the lookup and the connect (10)"},
	{"idle-timeout", 0, OPT_VALUE, 'I', "S", "seconds a connection may stay silent both ways (300)"},
	{"max-conns", 0, OPT_VALUE, 'M', "N", "connections one task may hold open at once; a request\n"
		"on one more is refused and recorded (256)"},
	{"help", 'h', OPT_FLAG, 'h', NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

struct stdin_request {
	struct loop *L;
	struct policy *pol;
	size_t n; /* lines read */
};

static void on_stdin_line(char *line, void *arg)
{
	struct stdin_request *r = arg;
	r->n++;
	if (*line)
		request_apply(r->L, r->pol, line, "<stdin>", r->n);
}

int main(int argc, char **argv)
{
	err_init(argv[0]);
	struct server_opts o = { .header_timeout = 10, .connect_timeout = 10, .idle_timeout = 300,
		.max_conns = 256 };
	static struct policy pol; /* static: reachable until exit, for LeakSanitizer */
	const char *request = NULL, *listen_path = NULL, *listen_port = NULL, *task = "(command line)";
	char **allow = NULL;
	size_t nallow = 0;
	int c;
	static struct opt_iter it; /* its operands live as long as the run */
	opt_init(&it, argc, argv, specs);
	while ((c = opt_next(&it)) != OPT_END) {
		switch (c) {
		case 'r': request = it.value; break;
		case 'l': listen_path = it.value; break;
		case 'p': listen_port = it.value; break;
		case 't': task = it.value; break;
		case 'a':
		case 'd': {
			const char *why = netpat_check(it.value, c == 'a' ? NETPAT_ALLOW : NETPAT_DENY);
			if (why)
				err_die(VX_EXIT_USAGE, "--%s '%s': %s", c == 'a' ? "allow" : "deny", it.value, why);
			if (c == 'a')
				policy_list_add(&allow, &nallow, it.value);
			else
				policy_list_add(&pol.deny, &pol.ndeny, it.value);
			break;
		}
		case 'H': o.hosts_file = it.value; break;
		case 'T': o.header_timeout = setup_seconds("--header-timeout", it.value); break;
		case 'C': o.connect_timeout = setup_seconds("--connect-timeout", it.value); break;
		case 'I': o.idle_timeout = setup_seconds("--idle-timeout", it.value); break;
		case 'M': o.max_conns = setup_count("--max-conns", it.value, 1000000); break;
		case 'h': return opt_help(head, specs, tail);
		default: opt_usage(stderr, head, specs, tail); return VX_EXIT_USAGE;
		}
	}
	if (it.noperands > 0)
		err_die(VX_EXIT_USAGE, "unexpected argument '%s'; see --help", it.operands[0]);
	if ((request != NULL) + (listen_path != NULL) + (listen_port != NULL) != 1)
		err_die(VX_EXIT_USAGE, "give one of --request, --listen-unix and --listen-tcp; see --help");
	if (request && (nallow || pol.ndeny))
		err_die(VX_EXIT_USAGE, "--allow and --deny go with --listen-unix; a request names its own lists");
	if (!o.hosts_file && getenv("VX_PROXY_HOSTS") && *getenv("VX_PROXY_HOSTS"))
		o.hosts_file = getenv("VX_PROXY_HOSTS");

	jsonl_out_init();
	static struct loop *L; /* static: reachable until exit, for LeakSanitizer */
	L = server_new(&o, &pol);
	static struct stdin_request in; /* read while the loop runs */
	if (!request) {
		struct ptask *t = policy_task_new(task);
		t->allow = allow;
		t->nallow = nallow;
		int fd = listen_port ? setup_listen_tcp(listen_port) : -1;
		if (server_add_task(L, t, listen_path, fd, NULL) < 0)
			return VX_EXIT_FAIL;
	} else if (strcmp(request, "-") == 0) {
		in.L = L;
		in.pol = &pol;
		server_watch_lines(L, STDIN_FILENO, on_stdin_line, &in);
	} else {
		setup_request_file(L, &pol, request);
	}
	int rc = server_run(L);
	int out = jsonl_out_finish();
	return rc ? rc : out;
}
