#include "graphview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicw.h"
#include "err.h"
#include "graphin.h"
#include "jsonl.h"
#include "opt.h"
#include "run.h"
#include "runcache.h"
#include "strmap.h"

static const char graph_head[] =
	"usage: vx graph --dot [TASK...] [--filter SEL]... [--root DIR]\n"
	"       vx graph --html FILE [TASK...] [--filter SEL]... [--root DIR]\n"
	"\n"
	"Draw the task graph (TASK and what it depends on; none: every task), each\n"
	"task styled by how its last run ended: hit, ran, failed, violation,\n"
	"skipped, or never run. Without --dot or --html, vx graph prints\n"
	"vx-graph's records (vx-graph --help).\n"
	"\n";

enum { DOT = 1, HTML, ROOT, FILTER, HELP };
static const struct opt_spec graph_specs[] = {
	{"dot", 0, OPT_FLAG, DOT, NULL, "Graphviz dot on stdout (vx graph --dot | dot -Tsvg)"},
	{"html", 0, OPT_VALUE, HTML, "FILE",
		"one self-contained page, no network: click a task for its\n"
		"command, inputs, outputs, sandbox and state"},
	{"filter", 0, OPT_VALUE, FILTER, "SEL",
		"only the tasks of the projects SEL selects, as vx run\n"
		"--filter (vx-graph --help); several union"},
	{"root", 0, OPT_VALUE, ROOT, "DIR", "the workspace root (default: VX_ROOT, else found from cwd)"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* One task as drawn: every string valid UTF-8 (clean()). */
struct vtask {
	const cJSON *rec;
	char *id;
	const char *state; /* an outcome, or "never" */
	size_t *deps, ndeps;
	int layer;
	double order; /* its place in its layer */
	double x, y, w;
};

struct view {
	struct vtask *t;
	size_t n;
	int layers;
};

static const struct {
	const char *state, *label, *fill, *stroke, *dot_style;
} styles[] = {
	{"hit", "hit", "#d4edda", "#2e7d32", "rounded,filled"},
	{"ran", "ran", "#dbe9fb", "#1565c0", "rounded,filled"},
	{"failed", "failed", "#f8d7da", "#c62828", "rounded,filled,bold"},
	{"violation", "violation", "#ffe0b2", "#b71c1c", "rounded,filled,bold"},
	{"skipped", "skipped", "#eeeeee", "#757575", "rounded,filled"},
	{"never", "never run", "#ffffff", "#9e9e9e", "rounded,filled,dashed"},
};
#define NSTYLES (sizeof(styles) / sizeof(*styles))

static size_t style_of(const char *state)
{
	for (size_t i = 0; i < NSTYLES; i++)
		if (strcmp(styles[i].state, state) == 0)
			return i;
	return NSTYLES - 1;
}

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629: no overlongs,
 * no surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n;
	unsigned min;
	unsigned c;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* A copy of s that is valid UTF-8 with no control characters but tab and
 * newline: any other byte becomes U+FFFD, so no reader (dot, a browser)
 * can be steered by bytes it decodes its own way. */
static char *clean(const char *s)
{
	if (!s)
		s = "";
	size_t len = strlen(s), o = 0;
	char *out = xmalloc(len * 3 + 1);
	for (size_t i = 0; i < len;) {
		const unsigned char *p = (const unsigned char *)s + i;
		size_t n = utf8_len(p);
		if (n == 1 && ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f))
			n = 0;
		if (n) {
			memcpy(out + o, p, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/* A dot quoted string's body: the quote and backslash escaped, a newline as
 * dot's \n (a label's escString reads \\ as one backslash). */
static void put_dot(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* HTML text or a quoted attribute value. */
static void put_html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* JSON inside <script type="application/json">: a '<' never appears raw,
 * so no "</script>" or "<!--" in a task's strings ends or bends the
 * element; outside strings JSON has no < > &, so this rewrites strings only. */
static void put_script_json(FILE *f, const char *json)
{
	for (; *json; json++) {
		if (*json == '<')
			fputs("\\u003c", f);
		else if (*json == '>')
			fputs("\\u003e", f);
		else if (*json == '&')
			fputs("\\u0026", f);
		else
			fputc(*json, f);
	}
}

/* A label at most max code points long, cut with an ellipsis. */
static char *shorten(const char *s, size_t max)
{
	size_t i = 0, cps = 0;
	while (s[i] && cps < max) {
		size_t n = utf8_len((const unsigned char *)s + i);
		i += n ? n : 1;
		cps++;
	}
	if (!s[i])
		return xstrdup(s);
	return xasprintf("%.*s\xe2\x80\xa6", (int)i, s);
}

static size_t cps_of(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

#define LABEL_MAX 40

static int cmp_order(const void *a, const void *b)
{
	const struct vtask *x = *(struct vtask *const *)a, *y = *(struct vtask *const *)b;
	return (x->order > y->order) - (x->order < y->order);
}

/* Layers: a task one right of its deepest dependency (records come
 * dependencies first, so one pass). In a layer, tasks sit in the mean order
 * of their dependencies (one barycentre sweep), which keeps most edges
 * short and uncrossed without a full crossing minimisation. */
static void layout(struct view *v)
{
	v->layers = 0;
	for (size_t i = 0; i < v->n; i++) {
		struct vtask *t = &v->t[i];
		t->layer = 0;
		for (size_t d = 0; d < t->ndeps; d++)
			if (v->t[t->deps[d]].layer + 1 > t->layer)
				t->layer = v->t[t->deps[d]].layer + 1;
		if (t->layer + 1 > v->layers)
			v->layers = t->layer + 1;
	}
	struct vtask **col = xcalloc(v->n ? v->n : 1, sizeof(*col));
	double x = 20;
	for (int l = 0; l < v->layers; l++) {
		size_t m = 0;
		double w = 120;
		for (size_t i = 0; i < v->n; i++) {
			struct vtask *t = &v->t[i];
			if (t->layer != l)
				continue;
			if (t->ndeps) {
				double sum = 0;
				for (size_t d = 0; d < t->ndeps; d++)
					sum += v->t[t->deps[d]].order;
				t->order = sum / (double)t->ndeps;
			} else {
				t->order = (double)m;
			}
			char *label = shorten(t->id, LABEL_MAX);
			double tw = 7.5 * (double)cps_of(label) + 28;
			free(label);
			if (tw > w)
				w = tw;
			col[m++] = t;
		}
		qsort(col, m, sizeof(*col), cmp_order);
		for (size_t k = 0; k < m; k++) {
			col[k]->order = (double)k;
			col[k]->x = x;
			col[k]->y = 20 + 70 * (double)k;
			col[k]->w = w;
		}
		x += w + 80;
	}
	free(col);
}

static const char *rec_str(const cJSON *rec, const char *name)
{
	const char *s = graphin_str(rec, name);
	return s ? s : "";
}

static void write_dot(const struct view *v, FILE *f)
{
	fputs("digraph vx {\n"
	      "  rankdir=LR;\n"
	      "  node [shape=box, fontname=\"sans-serif\", fontsize=11];\n"
	      "  edge [color=\"#607d8b\"];\n",
		f);
	for (size_t i = 0; i < v->n; i++) {
		const struct vtask *t = &v->t[i];
		size_t s = style_of(t->state);
		fputs("  \"", f);
		put_dot(f, t->id);
		fputs("\" [label=\"", f);
		put_dot(f, t->id);
		fprintf(f, "\\n%s\", style=\"%s\", fillcolor=\"%s\", color=\"%s\", vx_state=\"%s\"];\n",
			styles[s].label, styles[s].dot_style, styles[s].fill, styles[s].stroke,
			styles[s].state);
	}
	/* an edge runs from a dependency to the task that depends on it: the
	 * order things run in, left to right */
	for (size_t i = 0; i < v->n; i++)
		for (size_t d = 0; d < v->t[i].ndeps; d++) {
			fputs("  \"", f);
			put_dot(f, v->t[v->t[i].deps[d]].id);
			fputs("\" -> \"", f);
			put_dot(f, v->t[i].id);
			fputs("\";\n", f);
		}
	fputs("}\n", f);
}

/* A copy of a JSON value with every string clean(). */
static cJSON *clean_json(const cJSON *j)
{
	if (!j)
		return cJSON_CreateNull();
	if (cJSON_IsString(j)) {
		char *c = clean(j->valuestring);
		cJSON *s = cJSON_CreateString(c);
		free(c);
		return s;
	}
	if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		cJSON *out = cJSON_IsArray(j) ? cJSON_CreateArray() : cJSON_CreateObject();
		const cJSON *e;
		cJSON_ArrayForEach(e, j) {
			if (cJSON_IsArray(j)) {
				cJSON_AddItemToArray(out, clean_json(e));
			} else {
				char *k = clean(e->string);
				cJSON_AddItemToObject(out, k, clean_json(e));
				free(k);
			}
		}
		return out;
	}
	return cJSON_Duplicate(j, 1);
}

/* What the page's script shows of each task. */
static char *page_data(const struct view *v)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "tasks");
	for (size_t i = 0; i < v->n; i++) {
		const struct vtask *t = &v->t[i];
		const cJSON *rec = t->rec;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", t->id);
		static const char *const copied[] = {"project", "dir", "config", "kind", "command",
			"deps", "sandbox"};
		for (size_t k = 0; k < sizeof(copied) / sizeof(*copied); k++)
			cJSON_AddItemToObject(o, copied[k],
				clean_json(cJSON_GetObjectItemCaseSensitive(rec, copied[k])));
		const cJSON *cache = cJSON_GetObjectItemCaseSensitive(rec, "cache");
		cJSON_AddItemToObject(o, "inputs",
			clean_json(cJSON_GetObjectItemCaseSensitive(cache, "inputs")));
		cJSON_AddItemToObject(o, "outputs",
			clean_json(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(cache, "outputs"), "files")));
		cJSON_AddBoolToObject(o, "cached", cJSON_IsObject(cache));
		cJSON_AddStringToObject(o, "state", styles[style_of(t->state)].label);
		cJSON_AddItemToArray(arr, o);
	}
	char *text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return text;
}

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	/* the page fetches nothing: no source is allowed but its own inline
	 * style and script */
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	"<title>vx task graph</title>\n<style>\n"
	"body{font:14px sans-serif;margin:0;display:flex;height:100vh}\n"
	"#graph{flex:1;overflow:auto;border-right:1px solid #ccc}\n"
	"#side{width:26em;overflow:auto;padding:0 1em}\n"
	".task{cursor:pointer}.task rect{stroke-width:1.5}\n"
	".task text{font:12px sans-serif;pointer-events:none}\n"
	".task.selected rect{stroke-width:4}\n"
	".edge{fill:none;stroke:#607d8b;stroke-width:1.2}\n"
	".edge.near{stroke:#e65100;stroke-width:2.5}\n"
	".st-never rect{stroke-dasharray:4 3}\n"
	".st-violation rect,.st-failed rect{stroke-width:2.5}\n"
	"dt{font-weight:bold;margin-top:.6em}dd{margin:0 0 0 1em;white-space:pre-wrap;"
	"word-break:break-all;font-family:monospace}\n"
	".legend span{display:inline-block;padding:0 .4em;margin:.1em;border:1px solid}\n"
	"</style>\n</head>\n<body>\n";

static const char page_script[] =
	"(function () {\n"
	"  var data = JSON.parse(document.getElementById('vx-data').textContent);\n"
	"  var panel = document.getElementById('details');\n"
	"  var nodes = document.querySelectorAll('g.task');\n"
	"  var edges = document.querySelectorAll('path.edge');\n"
	"  function list(v) {\n"
	"    if (v === null || v === undefined) return '(none)';\n"
	"    if (Array.isArray(v)) return v.length ? v.join('\\n') : '(none)';\n"
	"    return JSON.stringify(v, null, 2);\n"
	"  }\n"
	"  function row(dl, k, v) {\n"
	"    var dt = document.createElement('dt'), dd = document.createElement('dd');\n"
	"    dt.textContent = k; dd.textContent = v; dd.className = 'f-' + k.replace(/\\W/g, '');\n"
	"    dl.appendChild(dt); dl.appendChild(dd);\n"
	"  }\n"
	/* only textContent: a task's strings are never parsed as markup */
	"  function show(i) {\n"
	"    var t = data.tasks[i], h = document.createElement('h2'), dl = document.createElement('dl');\n"
	"    h.textContent = t.id;\n"
	"    row(dl, 'state', t.state);\n"
	"    row(dl, 'project', t.project + ' (' + t.dir + ')');\n"
	"    row(dl, 'kind', t.kind + (t.cached ? ', cached' : ''));\n"
	"    row(dl, 'command', t.command === null ? '(none: a group)' : t.command);\n"
	"    row(dl, 'depends on', list(t.deps));\n"
	"    var inp = t.inputs || {};\n"
	"    row(dl, 'inputs', t.cached ? list(inp.files) : '(no cache: every file of the project)');\n"
	"    if (inp.workspaceFiles && inp.workspaceFiles.length) row(dl, 'workspace files', list(inp.workspaceFiles));\n"
	"    if (inp.env && inp.env.length) row(dl, 'env', list(inp.env));\n"
	"    if (inp.runtime && inp.runtime.length) row(dl, 'runtime', list(inp.runtime));\n"
	"    row(dl, 'outputs', list(t.outputs));\n"
	"    row(dl, 'sandbox', t.sandbox === null ? '(not sandboxed)' : list(t.sandbox));\n"
	"    row(dl, 'defined in', t.config);\n"
	"    panel.replaceChildren(h, dl);\n"
	"    panel.setAttribute('data-task', t.id);\n"
	"    nodes.forEach(function (g) { g.classList.toggle('selected', +g.dataset.task === i); });\n"
	"    edges.forEach(function (e) {\n"
	"      e.classList.toggle('near', +e.dataset.from === i || +e.dataset.to === i);\n"
	"    });\n"
	"  }\n"
	"  nodes.forEach(function (g) {\n"
	"    var i = +g.dataset.task;\n"
	"    g.addEventListener('click', function () { show(i); });\n"
	"    g.addEventListener('keydown', function (e) { if (e.key === 'Enter') show(i); });\n"
	"  });\n"
	"  var m = /^#task=(.*)$/.exec(location.hash);\n"
	"  if (m) {\n"
	"    var want = decodeURIComponent(m[1]);\n"
	"    data.tasks.forEach(function (t, i) {\n"
	"      if (t.id === want) nodes[i].dispatchEvent(new MouseEvent('click', {bubbles: true}));\n"
	"    });\n"
	"  }\n"
	"  document.body.setAttribute('data-ready', '1');\n"
	"})();\n";

static void write_html(const struct view *v, FILE *f)
{
	fputs(page_head, f);
	double width = 40, height = 40;
	for (size_t i = 0; i < v->n; i++) {
		if (v->t[i].x + v->t[i].w + 20 > width)
			width = v->t[i].x + v->t[i].w + 20;
		if (v->t[i].y + 64 > height)
			height = v->t[i].y + 64;
	}
	fprintf(f, "<div id=\"graph\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		   "height=\"%.0f\" role=\"img\" aria-label=\"task graph\">\n", width, height);
	fputs("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
	      "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" "
	      "fill=\"#607d8b\"/></marker></defs>\n", f);
	for (size_t i = 0; i < v->n; i++)
		for (size_t d = 0; d < v->t[i].ndeps; d++) {
			const struct vtask *a = &v->t[v->t[i].deps[d]], *b = &v->t[i];
			double x1 = a->x + a->w, y1 = a->y + 22, x2 = b->x, y2 = b->y + 22;
			fprintf(f, "<path class=\"edge\" data-from=\"%zu\" data-to=\"%zu\" "
				   "marker-end=\"url(#arrow)\" d=\"M%.1f,%.1fC%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
				v->t[i].deps[d], i, x1, y1, x1 + 40, y1, x2 - 40, y2, x2, y2);
		}
	for (size_t i = 0; i < v->n; i++) {
		const struct vtask *t = &v->t[i];
		size_t s = style_of(t->state);
		char *label = shorten(t->id, LABEL_MAX);
		fprintf(f, "<g class=\"task st-%s\" data-task=\"%zu\" data-state=\"%s\" tabindex=\"0\" "
			   "role=\"button\"><title>", styles[s].state, i, styles[s].state);
		put_html(f, t->id);
		fprintf(f, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"44\" rx=\"6\" "
			   "fill=\"%s\" stroke=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">", t->x, t->y, t->w,
			styles[s].fill, styles[s].stroke, t->x + 10, t->y + 18);
		put_html(f, label);
		fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">%s</text></g>\n", t->x + 10,
			t->y + 35, styles[s].label);
		free(label);
	}
	fputs("</svg></div>\n<div id=\"side\">\n<h1>vx task graph</h1>\n<p class=\"legend\">", f);
	for (size_t s = 0; s < NSTYLES; s++) {
		size_t count = 0;
		for (size_t i = 0; i < v->n; i++)
			count += style_of(v->t[i].state) == s;
		fprintf(f, "<span class=\"count-%s\" style=\"background:%s;border-color:%s\">%s: %zu</span>",
			styles[s].state, styles[s].fill, styles[s].stroke, styles[s].label, count);
	}
	fprintf(f, "</p>\n<p>%zu tasks, each as its last run left it. Click a task.</p>\n"
		   "<div id=\"details\"></div>\n</div>\n<script type=\"application/json\" id=\"vx-data\">",
		v->n);
	char *data = page_data(v);
	put_script_json(f, data);
	cJSON_free(data);
	fputs("</script>\n<script>\n", f);
	fputs(page_script, f);
	fputs("</script>\n</body>\n</html>\n", f);
}

/* FILE whole or not at all (atomicw.h): a reader never sees half a page. */
static int write_page(const struct view *v, const char *path)
{
	struct atomicw w;
	FILE *f = NULL;
	if (atomicw_open(&w, path, 0666) != 0 || !(f = atomicw_stdio(&w))) {
		int e = errno;
		if (!f && w.fd >= 0)
			atomicw_abort(&w);
		errno = e;
		err_warn_errno("unable to write '%s'", path);
		return VX_EXIT_FAIL;
	}
	write_html(v, f);
	if (atomicw_commit(&w) != 0) {
		err_warn_errno("unable to write '%s'", path);
		return VX_EXIT_FAIL;
	}
	return 0;
}

bool graphview_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--dot") == 0 || strcmp(argv[i], "--html") == 0 ||
			strncmp(argv[i], "--html=", 7) == 0 || strcmp(argv[i], "--help") == 0 ||
			strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

int graphview_main(int argc, char **argv)
{
	const char *root = getenv("VX_ROOT"), *html = NULL;
	/* vx-graph's arguments: each --filter SEL, then "--" and the TASKs */
	static char **args; /* lives as long as the process, as vx run's */
	args = xcalloc((size_t)argc * 2 + 2, sizeof(*args));
	int nargs = 0;
	bool dot = false;
	int c;
	static struct opt_iter opts;
	opt_init(&opts, argc, argv, graph_specs);
	while ((c = opt_next(&opts)) != OPT_END) {
		if (c == DOT) {
			dot = true;
		} else if (c == HTML) {
			html = opts.value;
		} else if (c == ROOT) {
			root = opts.value;
		} else if (c == FILTER) {
			args[nargs++] = "--filter";
			args[nargs++] = (char *)opts.value;
		} else if (c == HELP) {
			return opt_help(graph_head, graph_specs, NULL);
		} else {
			opt_usage(stderr, graph_head, graph_specs, NULL);
			return VX_EXIT_USAGE;
		}
	}
	if (dot == !!html) {
		err_warn("give one of --dot and --html FILE; see 'vx graph --help'");
		return VX_EXIT_USAGE;
	}
	if (html && !*html) {
		err_warn("--html wants a file name; see 'vx graph --help'");
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	struct graphin g;
	if (nargs)
		args[nargs++] = "--";
	for (int i = 0; i < opts.noperands; i++)
		args[nargs++] = opts.operands[i];
	int rc = graphin_load(&g, root, args, nargs, false, false);

	if (rc)
		return rc;
	const char *wsroot = graphin_str(g.graph, "root");
	struct view v = {.t = xcalloc(g.n ? g.n : 1, sizeof(*v.t)), .n = g.n};
	struct strmap index;
	strmap_init(&index);
	/* a zeroed runcache reads the index of outcomes and writes nothing */
	struct runcache outcomes = {0};
	for (size_t i = 0; i < g.n; i++) {
		struct vtask *t = &v.t[i];
		t->rec = g.tasks[i];
		const char *id = rec_str(t->rec, "id");
		t->id = clean(id);
		const char *o = wsroot ? runcache_last_outcome(&outcomes, wsroot, id) : NULL;
		t->state = styles[style_of(o ? o : "never")].state;
		strmap_put(&index, id, (void *)(i + 1));
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(t->rec, "deps"), *d;
		t->deps = xcalloc((size_t)cJSON_GetArraySize(deps) + 1, sizeof(*t->deps));
		/* vx-graph prints dependencies first: each is already indexed */
		cJSON_ArrayForEach(d, deps) {
			size_t at = cJSON_IsString(d) ? (size_t)strmap_get(&index, d->valuestring) : 0;
			if (at)
				t->deps[t->ndeps++] = at - 1;
		}
	}
	runcache_close(&outcomes);
	layout(&v);
	if (dot) {
		write_dot(&v, stdout);
		rc = jsonl_out_finish();
	} else {
		rc = write_page(&v, html);
		if (!rc)
			printf("vx: wrote %s (%zu tasks)\n", html, v.n);
		if (!rc)
			rc = jsonl_out_finish();
	}
	for (size_t i = 0; i < v.n; i++) {
		free(v.t[i].id);
		free(v.t[i].deps);
	}
	free(v.t);
	strmap_free(&index);
	graphin_free(&g);
	return rc;
}
