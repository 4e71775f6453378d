/* request.h: what one sandboxed task asks for, read from a request file
 * (vx-graph's graph record, then the task's record) or from flags.
 *
 * Every path here is absolute and canonical (realpath) except the grant
 * patterns, which stay as the config spells them: the planner (plan.h)
 * expands them. The request owns every string it holds; request_free()
 * releases them. Errors are the caller's to report: the readers return NULL
 * or -1 after printing "vx-sandbox: <what>; fix: <fix>".
 */
#ifndef VX_SANDBOX_REQUEST_H
#define VX_SANDBOX_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct strlist {
	char **v;
	size_t n, cap;
};

void strlist_push(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

struct sb_project {
	char *name;
	char *dir; /* absolute, canonical */
};

struct sb_request {
	char *task_id;   /* "<project>#<name>", or "(command line)" */
	char *root;      /* the workspace root */
	char *project;   /* the task's project directory (its cwd) */
	struct sb_project *projects; /* every project of the workspace (may be 0) */
	size_t nprojects;
	struct strlist read, write; /* allow.read / allow.write, as written */
	bool unix_sockets;   /* allow.unixSockets, or a localBinding port list */
	bool weaker_nested;  /* weakerWhenNested */
	bool git_config;     /* allow.gitConfig */
	bool cached;         /* the task declares cache: linked packages by keyed */
	struct strlist keyed; /* K(T): project names whose cached tasks it folds */
	char *proxy_socket;  /* vx-proxy's socket for this task (the bridge), or NULL */
	char *proxy_control; /* its control socket (netctl.h): the task's denies, or NULL */
	unsigned *local_ports; /* allow.localBinding ports, exposed on the host */
	size_t nlocal_ports;
	char *command;       /* run as /bin/sh -c command, or NULL */
	char **argv;         /* else run argv directly (borrowed from main) */
	int trace_fd;        /* --trace: the access records go here (trace.h); -1 none */
	char *records;       /* request_read: its two records, one line each */
	cJSON *env;          /* the task's environment policy (taskenv.h: envMode,
			      * passThroughEnv, cache.inputs.env), or NULL (flags:
			      * the whole environment) */
};

/* One localBinding port, from a flag or the request: 0, or -1 after a line. */
int request_add_port(struct sb_request *r, double port, const char *where);
/* Read FILE: a "graph" record then a "task" record (docs/protocol.md). */
struct sb_request *request_read(const char *file);
/* From flags: root and project directories, grants as the config spells them. */
struct sb_request *request_from_flags(const char *root, const char *project);
/* Canonicalise root and project and check the project lies in the root. */
int request_resolve(struct sb_request *r);
void request_free(struct sb_request *r);

#endif
