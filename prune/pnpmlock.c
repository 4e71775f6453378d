/* pnpmlock.c: pnpm-lock.yaml pruned to what the kept importers reach
 * (lockfile.h), line by line. pnpm writes the file with two spaces an
 * indent level: a section at column 0 (importers:, packages:, snapshots:),
 * its entries at 2, an entry's maps at 4 (dependencies: ...), their items
 * at 6 ("name: ref", or in importers "name:" then "version: ref" at 8).
 * An entry runs to the next line indented 2 or less; the blank line pnpm
 * puts between entries goes with the entry before it. */
#include "lockfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "strbuf.h"
#include "strmap.h"

enum section { SEC_OTHER, SEC_IMPORTERS, SEC_PACKAGES, SEC_SNAPSHOTS };

struct entry {
	enum section sec;
	char *key;   /* unquoted; NULL for a section header or other lines */
	size_t from, to; /* byte range in the text */
	char **refs;  /* the lock keys its dependencies name */
	size_t nrefs, arefs;
	enum section opens; /* a section header: the section it starts */
	bool keep;
};

struct lock {
	const char *text;
	int version; /* 6 or 9 */
	struct entry *e;
	size_t n, alloc;
	struct strmap by_key[4]; /* per section: key -> entry */
};

static size_t indent(const char *line)
{
	size_t i = 0;
	while (line[i] == ' ')
		i++;
	return i;
}

/* The scalar at s up to end (stripped of spaces and one pair of quotes). */
static char *scalar(const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	if (end - s >= 2 && (*s == '\'' || *s == '"') && end[-1] == *s) {
		s++;
		end--;
	}
	return xstrndup(s, (size_t)(end - s));
}

/* A "key: value" line (after its indent) split; *val NULL when nothing
 * follows the colon. The key may be quoted and then hold ": ". */
static char *split_kv(const char *s, const char *eol, char **val)
{
	const char *colon = NULL;
	if (*s == '\'' || *s == '"') {
		const char *q = memchr(s + 1, *s, (size_t)(eol - s - 1));
		if (q)
			colon = memchr(q, ':', (size_t)(eol - q));
	} else {
		for (const char *p = s; p < eol; p++)
			if (*p == ':' && (p + 1 == eol || p[1] == ' ' || p[1] == '\r')) {
				colon = p;
				break;
			}
	}
	*val = NULL;
	if (!colon)
		return NULL;
	const char *v = colon + 1;
	while (v < eol && (*v == ' ' || *v == '\r'))
		v++;
	if (v < eol)
		*val = scalar(v, eol);
	return scalar(s, colon);
}

/* The packages/snapshots key a dependency "name: ref" names, or NULL for a
 * workspace link. v9: "name@ref", or ref itself for an alias (other@1.0.0);
 * v6: "/name@ref" for a version, else ref (an alias /other@1.0.0, a file:
 * or tarball key). */
static char *ref_key(int version, const char *name, const char *ref)
{
	if (strncmp(ref, "link:", 5) == 0)
		return NULL;
	if (version >= 9) {
		size_t head = strcspn(ref, "(");
		const char *at = memchr(ref + 1, '@', head ? head - 1 : 0);
		return at && !memchr(ref, ':', head) ? xstrdup(ref) : xasprintf("%s@%s", name, ref);
	}
	return ref[0] >= '0' && ref[0] <= '9' ? xasprintf("/%s@%s", name, ref) : xstrdup(ref);
}

static void add_ref(struct lock *l, struct entry *e, const char *name, const char *ref)
{
	char *k = ref_key(l->version, name, ref);
	if (!k)
		return;
	XGROW(e->refs, e->nrefs + 1, e->arefs);
	e->refs[e->nrefs++] = k;
}

static bool dep_map(const char *key)
{
	return strcmp(key, "dependencies") == 0 || strcmp(key, "devDependencies") == 0 ||
	       strcmp(key, "optionalDependencies") == 0;
}

/* The refs of entry e, from its lines after the first. */
static void read_refs(struct lock *l, struct entry *e)
{
	bool in_map = false;
	char *pending = NULL; /* an importer's "name:" awaiting its version: */
	for (const char *p = l->text + e->from, *eol; p < l->text + e->to; p = *eol ? eol + 1 : eol) {
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p); /* the last line, with no newline */
		if (p == l->text + e->from)
			continue;
		size_t ind = indent(p);
		const char *s = p + ind;
		if (s >= eol)
			continue;
		char *val, *k = split_kv(s, eol, &val);
		if (!k) {
			free(val);
			continue;
		}
		if (ind == 4) {
			in_map = !val && dep_map(k);
		} else if (ind == 6 && in_map) {
			free(pending);
			pending = NULL;
			if (val)
				add_ref(l, e, k, val);
			else
				pending = xstrdup(k);
		} else if (ind == 8 && in_map && pending && val && strcmp(k, "version") == 0) {
			add_ref(l, e, pending, val);
		}
		free(k);
		free(val);
	}
	free(pending);
}

static struct entry *add_entry(struct lock *l, enum section sec, char *key, size_t from)
{
	XGROW(l->e, l->n + 1, l->alloc);
	struct entry *e = &l->e[l->n++];
	*e = (struct entry){.sec = sec, .key = key, .from = from, .to = from};
	return e;
}

/* Split the text into section headers, entries and other lines. 0, or -1
 * after an error line. */
static int parse(struct lock *l, const char *file)
{
	enum section sec = SEC_OTHER;
	struct entry *cur = NULL;
	size_t line = 0;
	for (const char *p = l->text, *eol; *p; p = eol + 1) {
		line++;
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p); /* no final newline: treated as one */
		size_t from = (size_t)(p - l->text), ind = indent(p);
		bool blank = p + ind >= eol || p[ind] == '\r';
		if (!blank && ind == 0) {
			char *val, *k = split_kv(p, eol, &val);
			sec = !k ? SEC_OTHER : strcmp(k, "importers") == 0 ? SEC_IMPORTERS
				: strcmp(k, "packages") == 0		    ? SEC_PACKAGES
				: strcmp(k, "snapshots") == 0		    ? SEC_SNAPSHOTS
									    : SEC_OTHER;
			if (k && strcmp(k, "lockfileVersion") == 0 && val)
				l->version = atoi(val);
			free(k);
			free(val);
			cur = add_entry(l, SEC_OTHER, NULL, from);
			cur->opens = sec;
		} else if (!blank && ind == 2 && sec != SEC_OTHER) {
			char *val, *k = split_kv(p + 2, eol, &val);
			free(val);
			if (!k) {
				err_warn("%s: line %zu: not a 'key:' entry; fix: let pnpm install "
					 "rewrite the lockfile",
					file, line);
				return -1;
			}
			cur = add_entry(l, sec, k, from);
			strmap_put(&l->by_key[sec], k, (void *)(l->n));
		} else if (!cur) {
			cur = add_entry(l, SEC_OTHER, NULL, from);
		}
		cur->to = (size_t)(*eol ? eol + 1 - l->text : eol - l->text);
		if (!*eol)
			break;
	}
	return 0;
}

static struct entry *find(struct lock *l, enum section sec, const char *key)
{
	size_t i = (size_t)strmap_get(&l->by_key[sec], key);
	return i ? &l->e[i - 1] : NULL;
}

/* Is any entry of the section starting at entry i kept? */
static bool any_kept(const struct lock *l, size_t i)
{
	for (; i < l->n && l->e[i].key; i++)
		if (l->e[i].keep)
			return true;
	return false;
}

char *pnpmlock_prune(const char *text, const char *file, char *const *dirs, size_t ndirs,
	size_t *kept, size_t *total)
{
	struct lock l = {.text = text};
	for (int s = 0; s < 4; s++)
		strmap_init(&l.by_key[s]);
	char *out = NULL;
	if (parse(&l, file) != 0)
		goto done;
	if (l.version != 6 && l.version != 9) {
		err_warn("%s: lockfileVersion: only versions 6 and 9 are pruned; fix: run pnpm "
			 "install with pnpm 8 or later to upgrade it",
			file);
		goto done;
	}
	if (!l.by_key[SEC_IMPORTERS].len) {
		err_warn("%s: importers: not found; fix: vx prune needs a workspace's lockfile "
			 "(pnpm-workspace.yaml beside it)",
			file);
		goto done;
	}
	/* the entries whose dependencies are followed: importers, and the
	 * section that holds them (v9 snapshots, v6 packages) */
	enum section graph = l.version >= 9 ? SEC_SNAPSHOTS : SEC_PACKAGES;
	struct entry **todo = xcalloc(l.n + 1, sizeof(*todo));
	size_t ntodo = 0;
	for (size_t i = 0; i < ndirs; i++) {
		struct entry *e = find(&l, SEC_IMPORTERS, dirs[i]);
		if (e && !e->keep) {
			e->keep = true;
			todo[ntodo++] = e;
		}
	}
	while (ntodo) {
		struct entry *e = todo[--ntodo];
		read_refs(&l, e);
		for (size_t r = 0; r < e->nrefs; r++) {
			struct entry *d = find(&l, graph, e->refs[r]);
			if (d && !d->keep) {
				d->keep = true;
				todo[ntodo++] = d;
			}
		}
	}
	free(todo);
	/* v9: a snapshot "name@1.0.0(peer@2.0.0)" needs the package "name@1.0.0" */
	if (graph == SEC_SNAPSHOTS)
		for (size_t i = 0; i < l.n; i++) {
			if (l.e[i].sec != SEC_SNAPSHOTS || !l.e[i].keep)
				continue;
			char *k = xstrdup(l.e[i].key);
			char *paren = strchr(k + 1, '(');
			if (paren)
				*paren = '\0';
			struct entry *p = find(&l, SEC_PACKAGES, k);
			if (p)
				p->keep = true;
			free(k);
		}
	*kept = *total = 0;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l.n; i++) {
		struct entry *e = &l.e[i];
		if (e->sec == SEC_PACKAGES) {
			++*total;
			*kept += e->keep;
		}
		/* a section header with no entry left goes too */
		if (!e->key && e->opens != SEC_OTHER && !any_kept(&l, i + 1))
			continue;
		if (!e->key || e->keep)
			strbuf_add(&sb, text + e->from, e->to - e->from);
	}
	/* one newline at the end, whichever entry came last */
	while (sb.len >= 2 && sb.buf[sb.len - 1] == '\n' && sb.buf[sb.len - 2] == '\n')
		sb.buf[--sb.len] = '\0';
	out = strbuf_detach(&sb, NULL);
done:
	for (size_t i = 0; i < l.n; i++) {
		free(l.e[i].key);
		for (size_t r = 0; r < l.e[i].nrefs; r++)
			free(l.e[i].refs[r]);
		free(l.e[i].refs);
	}
	free(l.e);
	for (int s = 0; s < 4; s++)
		strmap_free(&l.by_key[s]);
	return out;
}
