/* plan_int.h: what the planner's three files share (plan.c, plan_write.c,
 * plan_walls.c): the context one plan_build() call carries, and the small
 * helpers each file uses. Not for callers outside the planner: plan.h is. */
#ifndef VX_SANDBOX_PLAN_INT_H
#define VX_SANDBOX_PLAN_INT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "path.h"
#include "plan.h"

struct ctx {
	const struct sb_request *r;
	struct plan *p;
	char *home; /* canonical $HOME, or NULL */
	struct strlist named; /* canonical paths the grants name */
	struct strlist real_dirs; /* directories whose realpath is themselves */
	struct strlist nested; /* the projects nested in the task's */
	struct strlist empty_globs; /* a write glob matching nothing: its
	                             * directory, then the grant as written */
};

/* plan.c: the helpers. */
struct op *plan_add_op(struct plan *p, enum op_kind kind, const char *path);
struct op *plan_add_op_st(struct plan *p, enum op_kind kind, const char *path,
	const struct stat *st);
char *plan_canon_would_be(const char *path);
/* Print the refusal of a grant (one line: the grant, why, the fix); -1. */
int plan_refuse(const struct ctx *c, const char *grant, const char *fmt, const char *path);
int plan_check_escape(const struct ctx *c, const char *grant, const char *lex, char **canon);
char *plan_grant_pattern(const struct ctx *c, const char *g);
bool plan_names_git(const char *g);
bool plan_real_dir(struct ctx *c, const char *dir);

/* plan_write.c: the write grants, and the guards it made (plan_sweep). */
int plan_add_writes(struct ctx *c);
bool plan_is_guard(const char *path, const struct stat *st, mode_t fmode);

/* plan_walls.c: the steps after the grants, in plan_build()'s order. */
void plan_add_git_config(struct ctx *c);
void plan_add_tool_caches(struct ctx *c);
void plan_add_node_modules(struct ctx *c);
void plan_add_tmp_keeps(struct ctx *c);
void plan_add_walls(struct ctx *c);
void plan_judge_empty_globs(struct ctx *c);

#endif
