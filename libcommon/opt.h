/* opt.h: one option iterator for the stages' mains, flags in any position.
 *
 * A program describes its options in a table and calls opt_next() until it
 * returns OPT_END; every argument that is not an option is kept, in order,
 * as an operand (it.operands, it.noperands), so `vx-graph build --root ex`
 * and `vx-graph --root ex build` mean the same. Accepted spellings: --name,
 * --name VALUE, --name=VALUE, and a one-letter -x for an entry that has one
 * (-x VALUE, or -xVALUE attached).
 * "--" ends the options (what follows is operands); "-" alone is an operand
 * (stdin or stdout). An entry of kind OPT_LIST takes every following
 * argument up to the next one that starts with "--" (vx-cache's --outputs
 * GLOB...); one of kind OPT_OPTIONAL takes a value only as --name=VALUE
 * (turbo's --continue[=WHEN]), value NULL when bare. Names match whole,
 * never abbreviated. With it.stop_at_operand set (after opt_init), the
 * first operand ends the options: it and all after it are operands
 * (vx-sandbox's COMMAND ARG..., whose own -x are the command's).
 *
 * A bad option (unknown, or its value missing) is OPT_BAD after a one-line
 * "prog: ..." on stderr (err.h); the caller prints its usage and exits 2.
 * The iterator allocates only the operand array, which opt_free() frees;
 * values and operands point into argv.
 *
 * --help comes from the same table: opt_usage() prints a program's own
 * head ("usage: ..." lines and prose), then one row per entry (its
 * spellings, its arg, its help text), then the tail, so an option the
 * iterator accepts is never missing from --help. Entries sharing an id
 * are one row ("--dry, --print"); an entry without help text is still
 * listed, by its spellings.
 */
#ifndef VX_OPT_H
#define VX_OPT_H

#include <stddef.h>
#include <stdio.h>

enum opt_kind { OPT_FLAG, OPT_VALUE, OPT_LIST, OPT_OPTIONAL };

struct opt_spec {
	const char *name; /* without the leading "--" */
	char letter;      /* -x, or 0 for none */
	enum opt_kind kind;
	int id;           /* what opt_next returns for it: > 0 */
	const char *arg;  /* its value's name in --help ("DIR"), or NULL */
	const char *help; /* its --help text, "\n" between lines, or NULL */
};


enum { OPT_END = 0, OPT_BAD = -1 };

struct opt_iter {
	int argc;
	char **argv;
	int i;                      /* the next argument to look at */
	const struct opt_spec *specs; /* ends with a NULL name */
	const char *value;          /* OPT_VALUE: the value; OPT_LIST: the first */
	char **list;                /* OPT_LIST: its values, nlist of them */
	int nlist;
	char **operands;
	int noperands;
	int no_more; /* "--" seen: the rest are operands */
	int stop_at_operand; /* the first operand ends the options */
};

void opt_init(struct opt_iter *it, int argc, char **argv, const struct opt_spec *specs);
/* The next option's id, OPT_END when argv is used up, or OPT_BAD. */
int opt_next(struct opt_iter *it);
void opt_free(struct opt_iter *it);
/* Print head, the options column of specs, then tail, on f. */
void opt_usage(FILE *f, const char *head, const struct opt_spec *specs, const char *tail);
/* --help done: opt_usage on stdout, then jsonl_out_finish()'s exit status. */
int opt_help(const char *head, const struct opt_spec *specs, const char *tail);

#endif
