#include <stdlib.h>

#include "err.h"
#include "opt.h"
#include "unit.h"

enum { ROOT = 1, HELP, LIVE, OUTPUTS, LOG, CONT };

static const struct opt_spec specs[] = {
	{"root", 0, OPT_VALUE, ROOT, NULL, NULL},
	{"help", 'h', OPT_FLAG, HELP, NULL, NULL},
	{"live", 0, OPT_FLAG, LIVE, NULL, NULL},
	{"outputs", 0, OPT_LIST, OUTPUTS, NULL, NULL},
	{"log", 'l', OPT_VALUE, LOG, NULL, NULL},
	{"continue", 0, OPT_OPTIONAL, CONT, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* Parse a NULL-terminated argv; the options' ids and values, then "|" and
 * the operands, all joined by spaces into out. */
static int stop; /* parse with it.stop_at_operand */

static const char *parse(char **argv)
{
	static char out[512];
	int argc = 0;
	while (argv[argc])
		argc++;
	struct opt_iter it;
	opt_init(&it, argc, argv, specs);
	it.stop_at_operand = stop;
	int id;
	out[0] = '\0';
	size_t o = 0;
	while ((id = opt_next(&it)) > 0) {
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%d", id);
		for (int i = 0; i < it.nlist; i++)
			o += (size_t)snprintf(out + o, sizeof(out) - o, ",%s", it.list[i]);
		if (!it.nlist && it.value)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "=%s", it.value);
		o += (size_t)snprintf(out + o, sizeof(out) - o, " ");
	}
	if (id == OPT_BAD)
		snprintf(out, sizeof(out), "BAD");
	else
		for (int i = 0; i < it.noperands; i++)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "|%s", it.operands[i]);
	opt_free(&it);
	return out;
}

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})

/* opt_usage's text for a table, head "H\n" and tail "T\n" around it */
static const char *usage_of(const struct opt_spec *t)
{
	static char *text;
	size_t len;
	free(text);
	FILE *f = open_memstream(&text, &len);
	opt_usage(f, "H\n", t, "T\n");
	fclose(f);
	return text;
}

/* --help from the table: every entry has its row, a help-less one too;
 * entries sharing an id are one row; the arg's spelling follows the kind;
 * a help's later lines go under its first; a wide left column runs in */
static void test_usage(void)
{
	static const struct opt_spec t[] = {
		{"root", 'r', OPT_VALUE, 1, "DIR", "the root\nof it"},
		{"dry", 0, OPT_OPTIONAL, 2, "WHEN", "say"},
		{"dry-run", 0, OPT_OPTIONAL, 2, NULL, NULL},
		{"outputs", 0, OPT_LIST, 3, "GLOB", "kept"},
		{"quiet", 0, OPT_FLAG, 4, NULL, NULL},
		{"a-very-long-option", 0, OPT_VALUE, 5, "VALUE", "long"},
		{NULL, 0, 0, 0, NULL, NULL},
	};
	CHECK_STR(usage_of(t), "H\n"
			       "  -r, --root DIR     the root\n"
			       "                     of it\n"
			       "  --dry[=WHEN], --dry-run  say\n"
			       "  --outputs GLOB...  kept\n"
			       "  --quiet\n"
			       "  --a-very-long-option VALUE  long\n"
			       "T\n");
	/* rows with no arg and no help text: every option still listed */
	CHECK_STR(usage_of(specs), "H\n"
				   "  --root\n"
				   "  -h, --help\n"
				   "  --live\n"
				   "  --outputs\n"
				   "  -l, --log\n"
				   "  --continue\n"
				   "T\n");
}

int main(void)
{
	err_init("test_opt");
	/* flags in any position: before, between and after the operands */
	CHECK_STR(parse(ARGV("build", "--root", "ex")), "1=ex |build");
	CHECK_STR(parse(ARGV("--root", "ex", "build")), "1=ex |build");
	CHECK_STR(parse(ARGV("a", "--live", "b")), "3 |a|b");
	CHECK_STR(parse(ARGV("--root=ex", "-h")), "1=ex 2 ");
	CHECK_STR(parse(ARGV("--root=", "x")), "1= |x");
	/* "-" is an operand; "--" ends the options */
	CHECK_STR(parse(ARGV("-", "--", "--live", "-h")), "|-|--live|-h");
	/* a list runs to the next "--" argument */
	CHECK_STR(parse(ARGV("k", "d", "--outputs", "a/**", "!b", "--log", "f")),
		"4,a/**,!b 5=f |k|d");
	CHECK_STR(parse(ARGV("--outputs=x", "y")), "4,x,y ");
	CHECK_STR(parse(ARGV("--outputs")), "4 ");
	/* unknown, abbreviated, valueless or misvalued options are refused */
	CHECK_STR(parse(ARGV("--nope")), "BAD");
	CHECK_STR(parse(ARGV("--ro", "x")), "BAD");
	CHECK_STR(parse(ARGV("-x")), "BAD");
	CHECK_STR(parse(ARGV("-hh")), "BAD");
	/* a letter's value attached or apart */
	CHECK_STR(parse(ARGV("-lf", "x")), "5=f |x");
	CHECK_STR(parse(ARGV("-l", "f")), "5=f ");
	CHECK_STR(parse(ARGV("--root")), "BAD");
	CHECK_STR(parse(ARGV("--live=1")), "BAD");
	CHECK_STR(parse(ARGV("x", "--root")), "BAD");
	/* an optional value only after '=': bare, the next argument stays an operand */
	CHECK_STR(parse(ARGV("--continue", "build")), "6 |build");
	CHECK_STR(parse(ARGV("--continue=always", "build")), "6=always |build");
	CHECK_STR(parse(ARGV("--continue=", "x")), "6= |x");
	/* stop_at_operand: the first operand ends the options, a command's own
	 * flags stay its own */
	stop = 1;
	CHECK_STR(parse(ARGV("--root", "r", "sh", "-c", "--live", "x")), "1=r |sh|-c|--live|x");
	CHECK_STR(parse(ARGV("--live", "--", "-h")), "3 |-h");
	stop = 0;
	CHECK_STR(parse(ARGV("a", "--live", "b")), "3 |a|b");
	test_usage();
	return UNIT_END("opt");
}
