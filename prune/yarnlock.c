/* yarnlock.c: a yarn 1 yarn.lock pruned to what the kept packages reach
 * (lockfile.h). yarn writes it with fixed indentation: an entry's header
 * at column 0 (its descriptors, "name@range", comma-separated, each
 * quoted or not, then ':'), its fields at 2, the items of its
 * dependencies/optionalDependencies at 4 ("name range", each quoted or
 * not). Workspace packages have no entry. A kept entry stays byte for byte,
 * with the blank line after it. */
#include "lockfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "strbuf.h"
#include "strmap.h"

struct yentry {
	size_t from, to;
	bool entry, keep;
};

/* The next token at *p (quoted or up to a space, ',' or ':'), unquoted;
 * NULL at the end of the line. */
static char *token(const char **p, const char *eol)
{
	const char *s = *p;
	while (s < eol && (*s == ' ' || *s == ','))
		s++;
	if (s >= eol || *s == ':' || *s == '\r')
		return NULL;
	const char *e;
	if (*s == '"') {
		e = memchr(s + 1, '"', (size_t)(eol - s - 1));
		if (!e)
			e = eol;
		*p = e < eol ? e + 1 : eol;
		return xstrndup(s + 1, (size_t)(e - s - 1));
	}
	for (e = s; e < eol && *e != ' ' && *e != ',' && *e != '\r'; e++)
		;
	*p = e;
	if (e > s && e[-1] == ':')
		e--; /* a header's last descriptor */
	return xstrndup(s, (size_t)(e - s));
}

char *yarnlock_prune(const char *text, const char *file, char *const *seeds, size_t nseeds,
	size_t *kept, size_t *total)
{
	if (strstr(text, "\n__metadata:") || strncmp(text, "__metadata:", 11) == 0) {
		err_warn("%s: __metadata: a yarn 2+ (berry) lockfile is not pruned; fix: copy it "
			 "by hand, or prune with yarn 1's lockfile",
			file);
		return NULL;
	}
	struct yentry *e = NULL;
	size_t n = 0, alloc = 0;
	struct strmap by_desc;
	strmap_init(&by_desc);
	char **descs = NULL; /* owned keys of by_desc */
	size_t ndescs = 0, adescs = 0;
	for (const char *p = text, *eol; *p; p = *eol ? eol + 1 : eol) {
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		bool head = *p != ' ' && *p != '#' && *p != '\n' && *p != '\r';
		if (head || !n) {
			XGROW(e, n + 1, alloc);
			e[n++] = (struct yentry){.from = (size_t)(p - text), .entry = head};
		}
		if (head) {
			const char *q = p;
			for (char *d; (d = token(&q, eol));) {
				XGROW(descs, ndescs + 1, adescs);
				descs[ndescs++] = d;
				strmap_put(&by_desc, d, (void *)n);
			}
		}
		e[n - 1].to = (size_t)((*eol ? eol + 1 : eol) - text);
	}
	size_t *todo = xcalloc(n + 1, sizeof(*todo));
	size_t ntodo = 0;
	for (size_t i = 0; i < nseeds; i++) {
		size_t k = (size_t)strmap_get(&by_desc, seeds[i]);
		if (k && !e[k - 1].keep) {
			e[k - 1].keep = true;
			todo[ntodo++] = k - 1;
		}
	}
	while (ntodo) {
		struct yentry *y = &e[todo[--ntodo]];
		bool in = false;
		for (const char *p = text + y->from, *eol; p < text + y->to; p = eol + 1) {
			eol = strchr(p, '\n');
			if (!eol)
				break;
			size_t ind = strspn(p, " ");
			if (ind == 2)
				in = strncmp(p + 2, "dependencies:", 13) == 0 ||
				     strncmp(p + 2, "optionalDependencies:", 21) == 0;
			if (ind != 4 || !in)
				continue;
			const char *q = p + 4;
			char *name = token(&q, eol), *range = name ? token(&q, eol) : NULL;
			if (range) {
				char *d = xasprintf("%s@%s", name, range);
				size_t k = (size_t)strmap_get(&by_desc, d);
				if (k && !e[k - 1].keep) {
					e[k - 1].keep = true;
					todo[ntodo++] = k - 1;
				}
				free(d);
			}
			free(name);
			free(range);
		}
	}
	free(todo);
	struct strbuf sb = STRBUF_INIT;
	*kept = *total = 0;
	for (size_t i = 0; i < n; i++) {
		*total += e[i].entry;
		*kept += e[i].entry && e[i].keep;
		if (!e[i].entry || e[i].keep)
			strbuf_add(&sb, text + e[i].from, e[i].to - e[i].from);
	}
	while (sb.len >= 2 && sb.buf[sb.len - 1] == '\n' && sb.buf[sb.len - 2] == '\n')
		sb.buf[--sb.len] = '\0';
	for (size_t i = 0; i < ndescs; i++)
		free(descs[i]);
	free(descs);
	strmap_free(&by_desc);
	free(e);
	return strbuf_detach(&sb, NULL);
}
