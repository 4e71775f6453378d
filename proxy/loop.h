/* loop.h: the inside of vx-proxy's event loop (server.h is its outside),
 * shared by the files that make it up. One thread runs all of it, so the
 * state below is plain globals and nothing locks.
 *
 * A connection's life, file by file: listen.c accepts it (conn.c gives
 * it its struct), head.c reads its first bytes and hands the head to
 * head_http.c or head_socks.c, which parse it; head.c judges what it asks
 * for; dial.c judges the addresses a name led to and connects; relay.c
 * moves the bytes; conn.c closes it or refuses it, record.c writes the
 * records; server.c waits for events and sends each where it belongs.
 * Every struct conn is owned by conn.c's lists: live on `conn_list`, then,
 * once closed, freed or pooled after the batch of events that closed it.
 */
#ifndef VX_PROXY_LOOP_H
#define VX_PROXY_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "netpat.h"
#include "policy.h"
#include "resolve.h"
#include "server.h"

enum hkind { H_LISTEN, H_CLIENT, H_UPSTREAM, H_RESOLVER, H_SIGNAL, H_LINES, H_CONTROL };

/* What an epoll event's data points at: the kind says which struct. */
struct handle {
	enum hkind kind;
};

struct listener {
	struct handle h;
	int fd;
	struct ptask *task;
	char *path; /* bound here (removed at exit), or NULL for an inherited fd */
	bool done;  /* the driver said the task ended: answer once it is judged */
	unsigned nconn; /* its connections now open */
	struct control *ctl; /* its control socket (control.c), or NULL */
	struct listener *next;
};

/* One direction of a relay: `pre` (bytes the proxy itself owes the reader:
 * a reply, a rewritten head) first, then bytes spliced from one socket to
 * the other through a pipe. */
struct pump {
	int pipe[2];
	size_t inpipe, cap; /* bytes in the pipe, and its size */
	unsigned fills;     /* times it came back full: bulk, grow it */
	char *pre;
	size_t prelen, preoff;
	long long limit; /* bytes still to take from the source; -1: no limit */
	bool eof;        /* the source is done (EOF, or limit reached) */
	bool done;       /* all delivered */
	bool shut;       /* shutdown(SHUT_WR) the destination when done */
	bool blocked;    /* the destination would block */
	bool used;       /* bytes went through the pipe */
};

enum cstate { C_HEAD, C_RESOLVE, C_CONNECT, C_RELAY };
enum via { VIA_NONE, VIA_HTTP, VIA_CONNECT, VIA_SOCKS5, VIA_SOCKS4 };

/* Sockets are in the epoll set once, edge-triggered for both directions;
 * what an edge said is kept here until a call returns EAGAIN. */
struct conn {
	struct handle hc, hu;
	int cfd, ufd;
	bool crd, cwr, urd, uwr; /* readable/writable as far as we know */
	bool chup, uhup;
	bool again; /* on the list of relays to run again (ran out of rounds) */
	struct ptask *task;
	struct listener *lis; /* whose socket accepted it */
	bool over;            /* accepted past max_conns: its request is refused */
	enum cstate state;
	enum via via;
	bool closed;
	bool zombie; /* closed while a lookup was out: freed by its answer */
	bool socks_greeted;
	char *buf;
	size_t len, off; /* head bytes read, and used (SOCKS) */
	char host[NETPAT_HOST_MAX];
	unsigned port;
	bool literal;
	struct sockaddr_storage addr[RESOLVE_MAX_ADDR];
	int naddr, next;
	char *upre; /* what goes upstream first once connected */
	size_t upre_len, upre_sent;
	long long body; /* body bytes still to come from the client; -1: a tunnel */
	bool sniff;     /* a forwarded request's answer: its first bytes are read
			 * (relay.c), and a response framed by Content-Length
			 * ends when delivered, without waiting for the FIN */
	bool draining;  /* that answer delivered and the client closed: the
			 * origin's FIN is awaited (relay.c) */
	struct pump up, down;
	double deadline;
	struct conn *prev, *nextc;
	struct conn *next_again;
};

/* server.c: the loop's state and its clock */
extern struct server_opts loop_opts;
extern struct policy *loop_pol;
extern int loop_ep;     /* the epoll set */
extern int loop_rfd;    /* the resolver's eventfd: answers are waiting */
extern double loop_now; /* CLOCK_MONOTONIC seconds, read once per batch of events */
/* A socket joins the set once, for both directions, edge-triggered. */
void ep_add(int fd, struct handle *h);

/* listen.c: the task sockets. Out of descriptors, `listen_starved`: the task
 * sockets are out of the epoll set until listen_resume_due() says. */
extern struct listener *listen_list;
extern bool listen_starved;
/* drain: accept until EAGAIN (a busy batch, or the task's end), else one. */
void on_accept(struct listener *l, bool drain);
/* Back into the epoll set once a connection has closed or a second passed. */
void listen_resume_due(void);

/* conn.c: a connection's struct, head buffer, closing and refusing */
extern struct conn *conn_list;   /* open, newest first */
extern unsigned long conn_closes; /* connections closed so far */
/* A zeroed connection of task l, linked on `conn_list`, client socket fd. */
struct conn *conn_new(struct listener *l, int fd);
char *buf_get(void);
void buf_put(char *b);
void conn_close(struct conn *c);
/* Freed (or pooled) after this batch of events: a zombie's answer came. */
void conn_release(struct conn *c);
/* Free the connections closed in this batch of events. */
void conn_reap(void);
void conn_refuse(struct conn *c, const void *msg, size_t len);
void refuse_http(struct conn *c, int status, const char *msg);
void refuse_socks(struct conn *c, int rep);
void refuse(struct conn *c, int status, int rep, const char *msg);
void deny(struct conn *c, const char *host, unsigned port, const char *reason);

/* record.c: the records on stdout (docs/protocol.md) */
void show_host(char *out, size_t cap, const char *raw, size_t n);
void record_deny(const struct conn *c, const char *host, unsigned port, const char *reason);
void record_listening(const struct ptask *t, const char *path, int fd);
void record_done(const struct ptask *t);

/* control.c: a task's control socket (vx-sandbox takes its denies there).
 * control_keep: true when l's deny records go there, not to stdout;
 * control_done: true when l's end is answered there, not on stdout. */
int control_add(struct listener *l, const char *path, int ep);
void control_on_accept(struct handle *h);
bool control_keep(const struct listener *l, const char *line, size_t len);
bool control_done(struct listener *l);
void control_close(struct listener *l);

/* head.c, head_http.c, head_socks.c: the request */
void on_head_readable(struct conn *c);
void on_http_head(struct conn *c);
void on_socks(struct conn *c);
void judge(struct conn *c, const char *host, enum netpat_host kind, unsigned port);

/* dial.c: from an allowed request to a connected origin */
void on_addresses(struct conn *c, const struct resolve_answer *a);
void on_resolved(void);
void on_connected(struct conn *c, uint32_t ev);

/* relay.c: the bytes, and the pipes they go through */
void relay(struct conn *c);
void relay_start(struct conn *c);
void pump_free(struct pump *p);
/* Relays that ran out of rounds wait for relay_again(). */
bool relay_waiting(void);
void relay_again(void);

#endif
