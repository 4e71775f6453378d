/* filter_table.c: the build's compiled filters, looked up (filter.h). */
#include "filter.h"

#include <string.h>

#include "err.h"

int filter_compiled(const struct sb_request *r, bool tracer, struct sock_fprog *prog)
{
	const struct filter_gen *g = &filter_gen[filter_variant(r, tracer)];
	if (!g->len)
		return filter_compile(r, tracer, prog);
	prog->len = g->len;
	prog->filter = xmalloc(g->len * sizeof(*g->insns));
	memcpy(prog->filter, g->insns, g->len * sizeof(*g->insns));
	return 0;
}
