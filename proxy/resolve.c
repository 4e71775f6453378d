#include "resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "err.h"
#include "netpat.h"

struct job {
	struct job *next;
	struct resolve_answer ans;
	char name[NETPAT_HOST_MAX];
	unsigned port;
};

struct hosts_entry {
	char *name;
	struct sockaddr_storage addr;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct job *todo_head, **todo_tail = &todo_head, *done_head, **done_tail = &done_head;
static int efd = -1;
static struct hosts_entry *hosts;
static size_t nhosts;
static int hosts_set;

static void load_hosts(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		err_die_errno(2, "unable to open hosts file '%s'", file);
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *save, *addr = strtok_r(line, " \t\r\n", &save);
		if (!addr)
			continue;
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1)
			s4->sin_family = AF_INET;
		else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1)
			s6->sin6_family = AF_INET6;
		else
			err_die(2, "hosts file '%s': bad address '%s'", file, addr);
		for (char *n; (n = strtok_r(NULL, " \t\r\n", &save));) {
			char canon[NETPAT_HOST_MAX];
			if (netpat_host_canon(n, strlen(n), canon, NULL) != NETPAT_HOST_NAME)
				continue;
			hosts = xrealloc(hosts, (nhosts + 1) * sizeof(*hosts));
			hosts[nhosts].name = xstrdup(canon);
			hosts[nhosts++].addr = ss;
		}
	}
	fclose(f);
	hosts_set = 1;
}

static void set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static void lookup(struct job *j)
{
	struct resolve_answer *a = &j->ans;
	a->naddr = 0;
	if (hosts_set) {
		for (size_t i = 0; i < nhosts && a->naddr < RESOLVE_MAX_ADDR; i++) {
			if (strcmp(hosts[i].name, j->name) != 0)
				continue;
			a->addr[a->naddr] = hosts[i].addr;
			set_port(&a->addr[a->naddr++], j->port);
		}
		a->err = a->naddr ? 0 : EAI_NONAME;
		return;
	}
	struct addrinfo hint = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_ADDRCONFIG }, *res = NULL;
	a->err = getaddrinfo(j->name, NULL, &hint, &res);
	for (struct addrinfo *ai = res; ai && a->naddr < RESOLVE_MAX_ADDR; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(a->addr[0]))
			continue;
		memset(&a->addr[a->naddr], 0, sizeof(a->addr[0]));
		memcpy(&a->addr[a->naddr], ai->ai_addr, ai->ai_addrlen);
		set_port(&a->addr[a->naddr++], j->port);
	}
	if (res)
		freeaddrinfo(res);
	if (!a->err && !a->naddr)
		a->err = EAI_NONAME;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!todo_head)
			pthread_cond_wait(&cv, &mu);
		struct job *j = todo_head;
		todo_head = j->next;
		if (!todo_head)
			todo_tail = &todo_head;
		pthread_mutex_unlock(&mu);

		lookup(j);

		pthread_mutex_lock(&mu);
		j->next = NULL;
		*done_tail = j;
		done_tail = &j->next;
		pthread_mutex_unlock(&mu);
		uint64_t one = 1;
		while (write(efd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
	}
	return NULL;
}

int resolve_init(const char *hosts_file)
{
	if (hosts_file)
		load_hosts(hosts_file);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0)
		err_die_errno(1, "eventfd");
	pthread_attr_t at;
	pthread_attr_init(&at);
	/* getaddrinfo needs little stack; keep the threads' reservation small */
	pthread_attr_setstacksize(&at, 256 * 1024);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < 2; i++) {
		pthread_t th;
		int e = pthread_create(&th, &at, worker, NULL);
		if (e) {
			errno = e;
			err_die_errno(1, "unable to start a resolver thread");
		}
	}
	pthread_attr_destroy(&at);
	return efd;
}

void resolve_submit(uint64_t token, const char *name, unsigned port)
{
	struct job *j = xcalloc(1, sizeof(*j));
	j->ans.token = token;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->port = port;
	pthread_mutex_lock(&mu);
	*todo_tail = j;
	todo_tail = &j->next;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

int resolve_take(struct resolve_answer *a)
{
	pthread_mutex_lock(&mu);
	struct job *j = done_head;
	if (j) {
		done_head = j->next;
		if (!done_head)
			done_tail = &done_head;
	}
	pthread_mutex_unlock(&mu);
	if (!j)
		return 0;
	*a = j->ans;
	free(j);
	return 1;
}
