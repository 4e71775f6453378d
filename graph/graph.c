#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

static void add_edge(struct task *t, struct task *to, size_t spelling)
{
	for (size_t i = 0; i < t->nedges; i++)
		if (t->edges[i].to == to)
			return;
	t->edges = xrealloc(t->edges, (t->nedges + 1) * sizeof(*t->edges));
	t->edges[t->nedges++] = (struct edge){.to = to, .spelling = spelling};
}

static struct task *project_task(const struct project *p, const char *name)
{
	for (size_t i = 0; i < p->ntasks; i++)
		if (strcmp(p->tasks[i]->name, name) == 0)
			return p->tasks[i];
	return NULL;
}

static char *task_names(const struct project *p)
{
	size_t n = 1;
	for (size_t i = 0; i < p->ntasks; i++)
		n += strlen(p->tasks[i]->name) + 2;
	char *s = xmalloc(n);
	s[0] = '\0';
	for (size_t i = 0; i < p->ntasks; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, p->tasks[i]->name);
	}
	return s;
}

static void resolve_spelling(struct workspace *ws, struct task *t, size_t si)
{
	const char *s = t->depends_on[si];
	const char *file = t->proj->config;
	char *key = xasprintf("tasks.%s.dependsOn[%zu]", t->name, si);

	if (s[0] == '^') {
		const char *name = s + 1;
		if (!*name || strchr(name, '#'))
			diag_config(ws, file, key, "write ^name (that task in every dependency) or project#name",
				"'%s' is not a dependsOn spelling", s);
		for (size_t i = 0; i < t->proj->ndeps; i++) {
			struct task *d = project_task(t->proj->deps[i], name);
			if (d)
				add_edge(t, d, si);
		}
	} else {
		/* "project#name" or "name" (this project) */
		const char *hash = strrchr(s, '#');
		char *pname = hash ? xstrndup(s, (size_t)(hash - s)) : NULL;
		struct project *p = hash ? strmap_get(&ws->by_name, pname) : t->proj;
		const char *name = hash ? hash + 1 : s;
		struct task *d = p ? project_task(p, name) : NULL;
		if (!p) {
			diag_config(ws, file, key, "name a project of this workspace (its package.json name)",
				"'%s' names no project '%s'", s, pname);
		} else if (!d) {
			char *names = task_names(p);
			char *fix = hash ? xasprintf("use one of %s's tasks: %s", p->name,
						   *names ? names : "(none)")
					 : xasprintf("use one of %s's tasks (%s), ^%s for the dependencies' "
						     "task, or project#%s",
						   p->name, names, s, s);
			diag_config(ws, file, key, fix, "'%s' names no task of %s", s, p->name);
			free(fix);
			free(names);
		} else if (d == t) {
			diag_config(ws, file, key, "remove it", "'%s' is the task itself", s);
		} else {
			add_edge(t, d, si);
		}
		free(pname);
	}
	free(key);
}

/* inputs.tasks selects which dependsOn spellings fold into the key:
 * absent = all; positive entries pick; "!spelling" removes. */
static void mark_folds(struct workspace *ws, struct task *t)
{
	bool *pick = xcalloc(t->ndepends_on ? t->ndepends_on : 1, sizeof(bool));
	bool any_positive = false;

	for (size_t i = 0; i < t->nfold_filter; i++) {
		const char *f = t->fold_filter[i];
		bool neg = f[0] == '!';
		const char *s = neg ? f + 1 : f;
		bool found = false;
		for (size_t k = 0; k < t->ndepends_on; k++)
			if (strcmp(t->depends_on[k], s) == 0)
				found = true;
		if (!found) {
			char *key = xasprintf("tasks.%s.cache.inputs.tasks[%zu]", t->name, i);
			diag_config(ws, t->proj->config, key,
				"name an entry of dependsOn exactly as spelled there, with '!' to leave it out",
				"'%s' is not in dependsOn", s);
			free(key);
		}
		any_positive |= !neg;
	}
	for (size_t k = 0; k < t->ndepends_on; k++) {
		bool on = !t->has_fold_filter || !any_positive;
		for (size_t i = 0; i < t->nfold_filter; i++) {
			const char *f = t->fold_filter[i];
			if (f[0] == '!' && strcmp(f + 1, t->depends_on[k]) == 0)
				on = false;
			else if (f[0] != '!' && strcmp(f, t->depends_on[k]) == 0)
				on = true;
		}
		if (t->has_fold_filter && t->nfold_filter == 0)
			on = false;
		pick[k] = on;
	}
	for (size_t e = 0; e < t->nedges; e++) {
		struct edge *ed = &t->edges[e];
		/* a group folds every target; a persistent target has no key */
		bool on = t->kind == TASK_GROUP ? true : pick[ed->spelling];
		ed->folded = on && ed->to->kind != TASK_PERSISTENT && t->kind != TASK_PERSISTENT;
	}
	free(pick);
}

void graph_resolve(struct workspace *ws)
{
	for (size_t i = 0; i < ws->nprojects; i++) {
		struct project *p = ws->projects[i];
		for (size_t k = 0; k < p->ntasks; k++) {
			struct task *t = p->tasks[k];
			for (size_t s = 0; s < t->ndepends_on; s++)
				resolve_spelling(ws, t, s);
			mark_folds(ws, t);
		}
	}
}

enum { WHITE = 0, GREY, BLACK };

struct walk {
	struct workspace *ws;
	struct task **order;
	size_t n;
	struct task **stack; /* the current DFS path, for naming a cycle */
	size_t depth;
	bool cycle;
	bool only; /* follow edges only to selected tasks */
};

static void visit(struct walk *w, struct task *t)
{
	if (t->mark == BLACK || w->cycle)
		return;
	if (t->mark == GREY) {
		size_t from = w->depth;
		while (from > 0 && w->stack[from - 1] != t)
			from--;
		size_t len = 1;
		for (size_t i = from - 1; i < w->depth; i++)
			len += strlen(w->stack[i]->id) + 4;
		char *path = xmalloc(len + strlen(t->id) + 1);
		path[0] = '\0';
		for (size_t i = from - 1; i < w->depth; i++) {
			strcat(path, w->stack[i]->id);
			strcat(path, " -> ");
		}
		strcat(path, t->id);
		struct task *last = w->stack[w->depth - 1];
		char *key = xasprintf("tasks.%s.dependsOn", last->name);
		diag_config(w->ws, last->proj->config, key, "remove one dependsOn edge of the cycle",
			"cycle: %s", path);
		free(key);
		free(path);
		w->cycle = true;
		return;
	}
	t->mark = GREY;
	w->stack[w->depth++] = t;
	for (size_t i = 0; i < t->nedges; i++)
		if (!w->only || t->edges[i].to->selected)
			visit(w, t->edges[i].to);
	w->depth--;
	t->mark = BLACK;
	w->order[w->n++] = t;
}

/* Is t one of the tasks asked for: its name or id is among names (none:
 * every task), in a project the filters kept (picked NULL: every one)? */
static bool asked(const struct task *t, char **names, int nnames, const bool *picked)
{
	if (picked && !picked[t->proj->index])
		return false;
	if (nnames == 0)
		return true;
	for (int a = 0; a < nnames; a++)
		if (strcmp(names[a], strchr(names[a], '#') ? t->id : t->name) == 0)
			return true;
	return false;
}

/* --only: the tasks asked for keep only their edges to each other. One that
 * lost an edge, or follows one that did, runs against whatever the
 * dependency last left on disk, which its key cannot answer for: it is
 * made uncached (neither restored nor saved) and named on stderr. */
static void cut_to_selection(struct task **order, size_t n)
{
	size_t ncut = 0;
	char *names = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		struct task *t = order[i];
		bool cut = false;
		size_t kept = 0;
		for (size_t e = 0; e < t->nedges; e++) {
			if (!t->edges[e].to->selected) {
				cut = true;
				continue;
			}
			cut |= t->edges[e].to->cut;
			t->edges[kept++] = t->edges[e];
		}
		t->nedges = kept;
		if (!cut)
			continue;
		t->cut = true;
		if (t->cache) {
			t->cache = NULL;
			char *more = xasprintf("%s%s%s", names, ncut ? ", " : "", t->id);
			free(names);
			names = more;
			ncut++;
		}
	}
	if (ncut)
		err_warn("--only: %s without %s dependencies, so uncached (neither restored nor "
			 "saved)",
			names, ncut == 1 ? "its" : "their");
	free(names);
}

int graph_select(struct workspace *ws, char **names, int nnames, const bool *picked, bool only,
	struct task ***order, size_t *n)
{
	size_t total = ws->by_id.len;
	struct walk w = {.ws = ws};
	w.order = xcalloc(total + 1, sizeof(*w.order));
	w.stack = xcalloc(total + 1, sizeof(*w.stack));
	int rc = 0;

	/* a name no project defines is a typo, filters or not */
	for (int a = 0; a < nnames; a++) {
		bool found = false;
		if (strchr(names[a], '#')) {
			found = strmap_get(&ws->by_id, names[a]) != NULL;
		} else {
			for (size_t i = 0; i < ws->nprojects && !found; i++)
				found = project_task(ws->projects[i], names[a]) != NULL;
		}
		if (!found) {
			err_warn("no task '%s' in any project; fix: name a task (build) or a task id "
				 "(project#build) that a vx.json defines",
				names[a]);
			rc = -1;
		}
	}
	for (size_t i = 0; i < ws->nprojects && !rc; i++)
		for (size_t k = 0; k < ws->projects[i]->ntasks; k++) {
			struct task *t = ws->projects[i]->tasks[k];
			t->selected = asked(t, names, nnames, picked);
		}
	w.only = only;
	/* in the order the names were given, each in project order */
	for (int a = 0; a < (nnames ? nnames : 1) && !rc && !w.cycle; a++)
		for (size_t i = 0; i < ws->nprojects && !w.cycle; i++)
			for (size_t k = 0; k < ws->projects[i]->ntasks; k++) {
				struct task *t = ws->projects[i]->tasks[k];
				if (t->selected && (nnames == 0 || asked(t, names + a, 1, NULL)))
					visit(&w, t);
			}
	if (only && !rc && !w.cycle)
		cut_to_selection(w.order, w.n);
	free(w.stack);
	if (w.cycle || rc) {
		free(w.order);
		return -1;
	}
	*order = w.order;
	*n = w.n;
	return 0;
}

/* Merge sorted b into the sorted set *a. */
static void set_union(size_t **a, size_t *na, const size_t *b, size_t nb)
{
	size_t *out = xmalloc((*na + nb + 1) * sizeof(size_t)), n = 0, i = 0, j = 0;
	while (i < *na || j < nb) {
		size_t v;
		if (j >= nb || (i < *na && (*a)[i] < b[j]))
			v = (*a)[i++];
		else if (i >= *na || b[j] < (*a)[i])
			v = b[j++];
		else
			v = (*a)[i++], j++;
		out[n++] = v;
	}
	free(*a);
	*a = out;
	*na = n;
}

void graph_keyed(struct task **order, size_t n)
{
	/* order is dependencies first, so every folded target is done already */
	for (size_t i = 0; i < n; i++) {
		struct task *t = order[i];
		for (size_t e = 0; e < t->nedges; e++) {
			const struct edge *ed = &t->edges[e];
			if (!ed->folded)
				continue;
			/* every exec task folds its project's files, cached or not
			 * (an uncached one over all of them, R-8): the design's
			 * corrected rule; a group folds none, a persistent one is
			 * never folded */
			if (ed->to->kind == TASK_EXEC) {
				size_t one = ed->to->proj->index;
				set_union(&t->keyed, &t->nkeyed, &one, 1);
			}
			set_union(&t->keyed, &t->nkeyed, ed->to->keyed, ed->to->nkeyed);
		}
	}
}
