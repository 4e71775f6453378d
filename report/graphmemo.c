/* graphmemo.c: the last graph record read, parsed once (graphmemo.h). */
#include "graphmemo.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

static struct graphmemo *last;

static void release(struct graphmemo *m)
{
	free(m->text);
	cJSON_Delete(m->graph);
	free(m);
}

struct graphmemo *graphmemo_find(const char *text, size_t len)
{
	if (!last || last->len != len || memcmp(last->text, text, len))
		return NULL;
	return graphmemo_hold(last);
}

struct graphmemo *graphmemo_put(const char *text, size_t len, cJSON *graph)
{
	struct graphmemo *m = xcalloc(1, sizeof(*m));
	m->text = xstrndup(text, len);
	m->len = len;
	m->graph = graph;
	if (last && !last->refs)
		release(last);
	last = m;
	return graphmemo_hold(m);
}

struct graphmemo *graphmemo_hold(struct graphmemo *m)
{
	m->refs++;
	return m;
}

void graphmemo_drop(struct graphmemo *m)
{
	if (m && !--m->refs && m != last)
		release(m);
}
