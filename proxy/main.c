/* vx-proxy: the network boundary of one vx run (docs/man/vx-proxy.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

static const char usage[] =
	"usage: vx-proxy --request FILE|- [OPTION...]\n"
	"       vx-proxy --listen-unix PATH|--listen-tcp PORT [--task ID] [--allow ENTRY]... [--deny ENTRY]... [OPTION...]\n"
	"\n"
	"  --request FILE|-      the run's request: JSON lines (docs/protocol.md); with -,\n"
	"                        read from stdin, and stdin's EOF ends the proxy\n"
	"  --listen-unix PATH    by hand: one task, served on a socket bound at PATH\n"
	"  --listen-tcp PORT     by hand: the same on 127.0.0.1:PORT instead (tests and\n"
	"                        benchmarks with TCP-only clients; vx run never uses it)\n"
	"  --task ID             its name in the records (default: (command line))\n"
	"  --allow ENTRY         a host it may reach (R-30 syntax); repeatable\n"
	"  --deny ENTRY          a host nobody may reach; repeatable\n"
	"  --hosts FILE          resolve names from FILE alone, /etc/hosts syntax\n"
	"                        (tests; default: $VX_PROXY_HOSTS, else the system resolver)\n"
	"  --header-timeout S    seconds for a client to send its request (default 10)\n"
	"  --connect-timeout S   seconds for the lookup and the connect (default 10)\n"
	"  --idle-timeout S      seconds a connection may stay silent (default 300)\n"
	"  --max-conns N         connections one task may hold open at once; a request\n"
	"                        past it is refused and recorded (default 256)\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 stopped (SIGTERM, SIGINT, SIGHUP, or EOF on the request's\n"
	"stdin), 1 failure, 2 usage or a bad request.\n";

static double seconds(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400)
		err_die(VX_EXIT_USAGE, "%s: '%s' is not a number of seconds", opt, s);
	return v;
}

/* A listening socket on 127.0.0.1:port, loopback only. */
static int listen_tcp(const char *port)
{
	char *end;
	long p = strtol(port, &end, 10);
	if (*end || p < 1 || p > 65535)
		err_die(VX_EXIT_USAGE, "--listen-tcp: bad port '%s'", port);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* TCP_NODELAY here is inherited by every accepted socket (Linux) */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 512) < 0)
		err_die_errno(VX_EXIT_FAIL, "unable to listen on 127.0.0.1:%ld", p);
	return fd;
}

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
	static const struct opt_spec specs[] = {
		{"request", 0, OPT_VALUE, 'r'},
		{"listen-unix", 0, OPT_VALUE, 'l'},
		{"listen-tcp", 0, OPT_VALUE, 'p'},
		{"task", 0, OPT_VALUE, 't'},
		{"allow", 0, OPT_VALUE, 'a'},
		{"deny", 0, OPT_VALUE, 'd'},
		{"hosts", 0, OPT_VALUE, 'H'},
		{"header-timeout", 0, OPT_VALUE, 'T'},
		{"connect-timeout", 0, OPT_VALUE, 'C'},
		{"idle-timeout", 0, OPT_VALUE, 'I'},
		{"max-conns", 0, OPT_VALUE, 'M'},
		{"help", 'h', OPT_FLAG, 'h'},
		{NULL, 0, 0, 0},
	};
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
		case 'T': o.header_timeout = seconds("--header-timeout", it.value); break;
		case 'C': o.connect_timeout = seconds("--connect-timeout", it.value); break;
		case 'I': o.idle_timeout = seconds("--idle-timeout", it.value); break;
		case 'M': {
			char *end;
			errno = 0;
			long v = strtol(it.value, &end, 10);
			if (errno || end == it.value || *end || v < 1 || v > 1000000)
				err_die(VX_EXIT_USAGE, "--max-conns: '%s' is not a count (1-1000000)", it.value);
			o.max_conns = (unsigned)v;
			break;
		}
		case 'h': fputs(usage, stdout); return jsonl_out_finish();
		default: fputs(usage, stderr); return VX_EXIT_USAGE;
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
		int fd = listen_port ? listen_tcp(listen_port) : -1;
		if (server_add_task(L, t, listen_path, fd) < 0)
			return VX_EXIT_FAIL;
	} else if (strcmp(request, "-") == 0) {
		in.L = L;
		in.pol = &pol;
		server_watch_lines(L, STDIN_FILENO, on_stdin_line, &in);
	} else {
		FILE *f = fopen(request, "r");
		if (!f)
			err_die_errno(VX_EXIT_USAGE, "unable to open '%s'", request);
		char *line = NULL;
		size_t cap = 0, n = 0;
		while (getline(&line, &cap, f) >= 0) {
			n++;
			line[strcspn(line, "\n")] = '\0';
			if (*line)
				request_apply(L, &pol, line, request, n);
		}
		free(line);
		fclose(f);
	}
	int rc = server_run(L);
	int out = jsonl_out_finish();
	return rc ? rc : out;
}
