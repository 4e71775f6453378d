#include "opt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"

void opt_init(struct opt_iter *it, int argc, char **argv, const struct opt_spec *specs)
{
	memset(it, 0, sizeof(*it));
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
	it->specs = specs;
	it->operands = xcalloc((size_t)(argc > 0 ? argc : 1), sizeof(*it->operands));
}

static const struct opt_spec *find_long(const struct opt_spec *s, const char *name, size_t n)
{
	for (; s->name; s++)
		if (strlen(s->name) == n && strncmp(s->name, name, n) == 0)
			return s;
	return NULL;
}

static const struct opt_spec *find_letter(const struct opt_spec *s, char c)
{
	for (; s->name; s++)
		if (s->letter && s->letter == c)
			return s;
	return NULL;
}

int opt_next(struct opt_iter *it)
{
	it->value = NULL;
	it->list = NULL;
	it->nlist = 0;
	while (it->i < it->argc) {
		char *a = it->argv[it->i++];
		if (it->no_more || a[0] != '-' || a[1] == '\0') {
			it->operands[it->noperands++] = a;
			it->no_more |= it->stop_at_operand;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			it->no_more = 1;
			continue;
		}
		const struct opt_spec *s;
		const char *eq = NULL;
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			s = find_long(it->specs, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
		} else {
			s = find_letter(it->specs, a[1]);
			/* -j4: a letter's value may be attached */
			if (s && a[2] != '\0') {
				if (s->kind != OPT_VALUE)
					s = NULL;
				else
					eq = a + 1; /* the value starts after it */
			}
		}
		if (!s) {
			err_warn("unknown option '%s'", a);
			return OPT_BAD;
		}
		if (s->kind == OPT_FLAG) {
			if (eq) {
				err_warn("option '--%s' takes no value", s->name);
				return OPT_BAD;
			}
			return s->id;
		}
		if (eq) {
			it->value = eq + 1;
		} else if (s->kind == OPT_OPTIONAL) {
			return s->id; /* bare: value NULL */
		} else if (it->i < it->argc && s->kind == OPT_VALUE) {
			it->value = it->argv[it->i++];
		} else if (s->kind == OPT_VALUE) {
			err_warn("option '--%s' needs a value", s->name);
			return OPT_BAD;
		}
		if (s->kind == OPT_LIST) {
			/* the values are the arguments themselves, argv[first..i);
			 * --outputs=G's first value is its own slot, pointed past '=' */
			int first = it->i - (eq ? 1 : 0);
			if (eq)
				it->argv[first] = (char *)it->value;
			while (it->i < it->argc && strncmp(it->argv[it->i], "--", 2) != 0)
				it->i++;
			it->list = it->argv + first;
			it->nlist = it->i - first;
			it->value = it->nlist ? it->list[0] : NULL;
		}
		return s->id;
	}
	return OPT_END;
}

void opt_free(struct opt_iter *it)
{
	free(it->operands);
	it->operands = NULL;
}

/* One row's left column: every spelling of id, the first entry's arg */
static size_t usage_left(const struct opt_spec *s, char *buf, size_t cap)
{
	size_t n = 0;
	if (s->letter)
		n += (size_t)snprintf(buf + n, cap - n, "-%c, ", s->letter);
	n += (size_t)snprintf(buf + n, cap - n, "--%s", s->name);
	if (n < cap && s->arg)
		n += (size_t)snprintf(buf + n, cap - n,
			s->kind == OPT_OPTIONAL ? "[=%s]" : s->kind == OPT_LIST ? " %s..." : " %s",
			s->arg);
	for (const struct opt_spec *o = s + 1; o->name && n < cap; o++)
		if (o->id == s->id)
			n += (size_t)snprintf(buf + n, cap - n, ", --%s", o->name);
	return n < cap ? n : cap - 1;
}

/* the first entry of its id: the one whose row it is */
static bool row_head(const struct opt_spec *specs, const struct opt_spec *s)
{
	for (const struct opt_spec *o = specs; o != s; o++)
		if (o->id == s->id)
			return false;
	return true;
}

enum { USAGE_WIDE = 18 }; /* a left column wider than this runs into its help */

void opt_usage(FILE *f, const char *head, const struct opt_spec *specs, const char *tail)
{
	char left[160];
	size_t col = 0;
	for (const struct opt_spec *s = specs; s->name; s++) {
		size_t n = row_head(specs, s) ? usage_left(s, left, sizeof(left)) : 0;
		if (n <= USAGE_WIDE && n > col)
			col = n;
	}
	fputs(head ? head : "", f);
	for (const struct opt_spec *s = specs; s->name; s++) {
		if (!row_head(specs, s))
			continue;
		size_t n = usage_left(s, left, sizeof(left));
		const char *h = s->help ? s->help : "";
		fprintf(f, "  %s", left);
		/* the first line of help beside it, the others under that */
		for (bool first = true; first || *h; first = false) {
			const char *nl = strchr(h, '\n');
			size_t len = nl ? (size_t)(nl - h) : strlen(h);
			size_t pad = first ? (n < col ? col - n : 0) + 2 : col + 4;
			if (len)
				fprintf(f, "%*s%.*s", (int)pad, "", (int)len, h);
			fputc('\n', f);
			h += len + (nl ? 1 : 0);
		}
	}
	fputs(tail ? tail : "", f);
}

int opt_help(const char *head, const struct opt_spec *specs, const char *tail)
{
	opt_usage(stdout, head, specs, tail);
	return jsonl_out_finish(); /* a write error said, and exit 1 */
}
