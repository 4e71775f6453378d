/* setup.c: vx-proxy's preparations before the loop (see setup.h). */
#include "setup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"
#include "request.h"

double setup_seconds(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400)
		err_die(VX_EXIT_USAGE, "%s: '%s' is not a number of seconds", opt, s);
	return v;
}

unsigned setup_count(const char *opt, const char *s, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		err_die(VX_EXIT_USAGE, "%s: '%s' is not a count (1-%ld)", opt, s, max);
	return (unsigned)v;
}

int setup_listen_tcp(const char *port)
{
	char *end;
	long p = strtol(port, &end, 10);
	if (*end || p < 1 || p > 65535)
		err_die(VX_EXIT_USAGE, "--listen-tcp: bad port '%s'", port);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 512) < 0)
		err_die_errno(VX_EXIT_FAIL, "unable to listen on 127.0.0.1:%ld", p);
	return fd;
}

void setup_request_file(struct loop *L, struct policy *pol, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		err_die_errno(VX_EXIT_USAGE, "unable to open '%s'", path);
	char *line = NULL;
	size_t cap = 0, n = 0;
	while (getline(&line, &cap, f) >= 0) {
		n++;
		line[strcspn(line, "\n")] = '\0';
		if (*line)
			request_apply(L, pol, line, path, n);
	}
	free(line);
	fclose(f);
}
