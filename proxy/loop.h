/* loop.h: the inside of vx-proxy's event loop (server.h is its outside),
 * shared by the files that make it up. One thread runs all of it; its
 * state is one struct loop, which every connection and task socket points
 * at (c->L, l->L): no file keeps loop state in globals.
 *
 * The files call each other in one direction only (scripts/linkcycles.py
 * checks it); each calls only the ones below it:
 *
 *   server.c   waits for events, sends each where it belongs, times out
 *   listen.c   the task sockets: bound or inherited, accepted from
 *   head.c     a connection's first bytes read and classified (the one
 *              place a new kind of client exchange hooks in), handed to
 *   head_http.c, head_socks.c   which parse the request, then
 *   judge.c    judges what it names and starts the lookup or the dial
 *   dial.c     judges the addresses a name led to and connects
 *   relay.c    moves the bytes
 *   conn.c     a connection's struct, closing it, refusing it
 *   spare.c    origin connections kept alive or made ahead for a task
 *   pipe.c     the pipes of the relay; record.c the records; loop.c epoll
 *
 * Every struct conn is owned by conn.c's lists: live on L->conns, then,
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

enum hkind { H_LISTEN, H_CLIENT, H_RESOLVER, H_SIGNAL, H_LINES, H_CONTROL };

struct loop;

/* What an epoll event's data points at: the kind says which struct. An
 * origin's socket is the exception: its data is its descriptor and a
 * generation, tagged by the low bit (a pointer's is 0), and L->ups[fd] says
 * whose it is now (loop.c), so that a connection kept for the task's next
 * request (spare.c) stays in the set while it changes hands: no
 * epoll_ctl to keep it, none to take it. */
struct handle {
	enum hkind kind;
};

struct upfd {
	struct conn *c; /* its connection, or NULL: a spare (spare.c) */
	uint32_t gen;   /* 0: not in the set */
	bool out;       /* EPOLLOUT is in its interest set */
};

struct listener {
	struct handle h;
	struct loop *L;
	int fd;
	struct ptask *task;
	char *path; /* bound here (removed at exit), or NULL for an inherited fd */
	bool done;  /* the driver said the task ended: answer once it is judged */
	unsigned nconn; /* its connections now open */
	struct control *ctl; /* its control socket (control.c), or NULL */
	struct listener *next;
};

#define PIPE_CAP 65536 /* a pipe's default size: the first bytes */

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
	struct handle hc;
	struct loop *L;
	int cfd, ufd;
	bool crd, cwr, urd, uwr; /* readable/writable as far as we know */
	bool cset;  /* the client socket is in the epoll set (listen.c) */
	bool cout;  /* with EPOLLOUT in its interest set (ep_add) */
	bool chup, uhup;
	bool ufin;  /* the origin's FIN has come (EPOLLRDHUP) */
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
	bool keep;      /* the origin was asked to keep the connection
			 * (HTTP/1.0 keep-alive: its answer is never chunked) */
	bool reuse;     /* and its answer's head says it will: framed, keep-alive */
	struct pump up, down;
	double deadline;
	struct conn *prev, *nextc;
	struct conn *next_again;
};

#define POOL_MAX 64 /* connections, head buffers and pipes kept for reuse */
#define SPARE_MAX 64 /* spare connections open at once (spare.c) */

/* A connection made ahead to an origin a request of the task just reached. */
struct spare {
	struct ptask *task;
	struct sockaddr_storage addr;
	int fd;
	double born;
};

/* The whole state of the loop. */
struct loop {
	struct server_opts opts;
	struct policy *pol;
	int ep;     /* the epoll set */
	struct upfd *ups; /* by descriptor: the origins' sockets in it */
	int nups;
	uint32_t upgen;
	int rfd;    /* the resolver's eventfd: answers are waiting */
	int sfd;    /* the stop signals */
	double now; /* CLOCK_MONOTONIC seconds, read once per batch of events */
	int exit_code; /* -1 while running */
	struct handle h_resolver, h_signal, h_lines;
	/* the request's lines on stdin (server.c) */
	int lines_fd;
	void (*lines_cb)(char *, void *);
	void *lines_arg;
	char *lines_buf;
	size_t lines_len, lines_cap;
	/* listen.c: the task sockets. Out of descriptors, `starved`: the task
	 * sockets are out of the epoll set until listen_resume_due() says. */
	struct listener *listeners;
	bool starved, starved_said;
	unsigned long starved_closes;
	double starved_at;
	/* conn.c */
	struct conn *conns;     /* open, newest first */
	unsigned long closes;   /* connections closed so far */
	struct conn *dead;      /* closed in this batch of events, freed after it */
	struct conn *pool_conn;
	int npool_conn;
	char *pool_buf[POOL_MAX];
	int npool_buf;
	/* relay.c: relays that stopped with work left */
	struct conn *again;
	/* pipe.c: empty pipes, and how many grown ones are open */
	int pool_pipe[POOL_MAX][2];
	int npool_pipe;
	int nbulk;
	/* spare.c */
	struct spare spares[SPARE_MAX];
	int nspares;
};

/* loop.c: the clock, and the epoll set a socket joins once, edge-triggered.
 * It joins without EPOLLOUT when it is known writable (an accepted client,
 * a connected origin): an ADD with it would report that at once, a wakeup
 * with nothing to do when the answer has not come yet. ep_want_out adds it
 * the first time a write says EAGAIN (the MOD reports it if writable since,
 * so no edge is lost), and adds the socket itself when not in the set
 * (*inset false); false: epoll_ctl failed. */
double loop_clock(void);
void ep_add(struct loop *L, int fd, struct handle *h, bool out);
bool ep_want_out(struct loop *L, int fd, struct handle *h, bool *armed, bool *inset);
/* An origin's socket: joins the set owned by c (NULL: a spare); changes
 * hands; wants EPOLLOUT; leaves the table before it is closed. ep_up_find:
 * the socket and owner an event's data names, false when stale (that
 * socket closed since, its descriptor perhaps reused). */
bool ep_up_add(struct loop *L, int fd, struct conn *c, bool out);
void ep_up_own(struct loop *L, int fd, struct conn *c);
bool ep_up_want_out(struct loop *L, int fd);
void ep_up_forget(struct loop *L, int fd);
bool ep_up_find(const struct loop *L, uint64_t data, int *fd, struct conn **c);

/* listen.c */
/* drain: accept until EAGAIN (a busy batch, or the task's end), else one. */
void on_accept(struct listener *l, bool drain);
/* Back into the epoll set once a connection has closed or a second passed. */
void listen_resume_due(struct loop *L);

/* head.c, head_http.c, head_socks.c: the request */
void on_head_readable(struct conn *c);
void on_http_head(struct conn *c);
void on_socks(struct conn *c);

/* judge.c: an allowed request is looked up or dialled; else refused */
void judge(struct conn *c, const char *host, enum netpat_host kind, unsigned port);

/* dial.c: from an allowed request to a connected origin */
void on_addresses(struct conn *c, const struct resolve_answer *a);
void on_resolved(struct loop *L);
void on_connected(struct conn *c, uint32_t ev);

/* relay.c: the bytes */
void relay(struct conn *c);
void relay_start(struct conn *c);
/* Relays that ran out of rounds wait for relay_again(). */
bool relay_waiting(const struct loop *L);
void relay_again(struct loop *L);

/* conn.c: a connection's struct, head buffer, closing and refusing */
/* A zeroed connection of task l, linked on L->conns, client socket fd. */
struct conn *conn_new(struct listener *l, int fd);
char *buf_get(struct loop *L);
void buf_put(struct loop *L, char *b);
void conn_close(struct conn *c);
/* Freed (or pooled) after this batch of events: a zombie's answer came. */
void conn_release(struct conn *c);
/* Free the connections closed in this batch of events. */
void conn_reap(struct loop *L);
void conn_refuse(struct conn *c, const void *msg, size_t len);
void refuse_http(struct conn *c, int status, const char *msg);
void refuse_socks(struct conn *c, int rep);
void refuse(struct conn *c, int status, int rep, const char *msg);
void deny(struct conn *c, const char *host, unsigned port, const char *reason);

/* spare.c: after a relayed request, one connection to the same origin is
 * made ahead for the task's next request (the TCP handshake and the
 * origin's accept, off that request's path). A spare serves only its own
 * task and the exact address it was made to; unused, it is closed after
 * SPARE_S seconds. A connection an origin kept alive after a framed
 * answer becomes a spare the same way. */
#define SPARE_S 1.0
/* After c, relayed, closes: a spare made to its origin unless the task
 * has one there. */
void spare_make(struct conn *c);
/* c's answer delivered, its origin connection kept alive and clean: it
 * becomes a spare of c's task and address, beside any others (c->ufd is -1
 * after). false: no room; the caller closes it. */
bool spare_keep(struct conn *c);
/* A spare of task t to exactly addr, connected or connecting, or -1; the
 * caller owns it (ep_up_own) or closes it (ep_up_forget first). */
int spare_take(struct loop *L, const struct ptask *t, const struct sockaddr_storage *addr);
/* An edge on spare fd while unused: closed unless it is still silent. */
void spare_event(struct loop *L, int fd);
/* Close the spares past their time (all: true, every one of task t, or of
 * every task when t is NULL). */
void spare_expire(struct loop *L, const struct ptask *t, bool all);

/* pipe.c: the pipes of a relay, pooled */
int pipe_get(struct loop *L, struct pump *p);
void pump_free(struct loop *L, struct pump *p);

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

#endif
