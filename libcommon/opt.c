#include "opt.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

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
