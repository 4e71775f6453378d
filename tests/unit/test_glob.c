#include <stdlib.h>

#include "glob.h"
#include "unit.h"

#define M(p, s) CHECK(glob_match(p, s))
#define N(p, s) CHECK(!glob_match(p, s))

static void owned(char *got, const char *want, const char *what)
{
	if (strcmp(got, want) == 0) {
		unit_passed++;
	} else {
		unit_failed++;
		fprintf(stderr, "%s: got '%s', want '%s'\n", what, got, want);
	}
	free(got);
}

/* pat with each plain segment's first byte written as a class ("src" ->
 * "[s]rc"): the same glob, which glob_match must decide by its sets, not
 * by comparing leading plain segments as bytes. */
static char *classed(const char *pat)
{
	char *out = malloc(4 * strlen(pat) + 1), *o = out;
	bool plain = true;
	const char *seg = pat;
	for (const char *p = pat;; p++) {
		if (*p == '/' || !*p) {
			for (const char *q = seg; q < p && plain; q++)
				plain = !strchr("*?[\\", *q);
			if (plain && p > seg) {
				*o++ = '[';
				*o++ = *seg;
				*o++ = ']';
				memcpy(o, seg + 1, (size_t)(p - seg - 1));
				o += p - seg - 1;
			} else {
				memcpy(o, seg, (size_t)(p - seg));
				o += p - seg;
			}
			if (!*p)
				break;
			*o++ = '/';
			seg = p + 1;
			plain = true;
		}
	}
	*o = '\0';
	return out;
}

/* The byte comparison of leading plain segments gives what the sets give. */
static void same_as_sets(void)
{
	static const char *const pats[] = {"src/**", "src/**/*", "src", "src/", "src/*.js",
		"dist/**", "a/b/c", "a/b/**/c.js", "a/**/b", "a/b", "a/b/", "a/**", "**",
		"**/x.js", "a//b", "src/**/", "src/*/**", "a/b*/c", "ab/**", "a/\\b/**",
		"[x]/y", "a/[b]/**"};
	static const char *const paths[] = {"src", "src/", "src/a.js", "src/a/b.js", "srcx/a.js",
		"sr", "s", "", "dist", "dist/a", "a/b/c", "a/b/c/d", "a/b", "a/b/", "a",
		"a/", "a/x/b", "a/b/x/c.js", "a/b/c.js", "ab/c", "a//b", "a/bc/c", "x.js",
		"q/x.js", "x/y", "a/b/z"};
	for (size_t i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
		char *c = classed(pats[i]);
		for (size_t j = 0; j < sizeof(paths) / sizeof(*paths); j++) {
			bool fast = glob_match(pats[i], paths[j]), sets = glob_match(c, paths[j]);
			if (fast == sets) {
				unit_passed++;
				continue;
			}
			unit_failed++;
			fprintf(stderr, "glob_match('%s', '%s') = %d, but '%s' gives %d\n", pats[i],
				paths[j], fast, c, sets);
		}
		free(c);
	}
	/* and a few outright */
	M("src/**", "src");
	M("src/**", "src/a/b.js");
	N("src/**", "srcx/a.js");
	N("src/**", "sr");
	N("dist/**", "src/a.js");
	M("a/b/c", "a/b/c");
	N("a/b/c", "a/b/c/d");
	N("a/b", "a/b/");
	M("a/**/b", "a/b");
	M("a/**/b", "a/x/y/b");
}

int main(void)
{
	same_as_sets();
	/* literals */
	M("a/b.js", "a/b.js");
	N("a/b.js", "a/b.jsx");
	N("a/b.js", "a");
	N("a", "a/b.js");
	M("", "");
	N("", "a");

	/* star: any run but '/', dotfiles included */
	M("*.js", "x.js");
	M("*.js", ".js");
	M("*", ".env");
	N("*.js", "src/x.js");
	M("src/*.js", "src/x.js");
	M("src/*", "src/x.js");
	N("src/*", "src/a/x.js");
	M("a*b*c", "abc");
	M("a*b*c", "aXbYbZc");
	N("a*b*c", "aXbYbZ");
	M("*a", "aaa");

	/* question mark: one char, never '/' */
	M("?.js", "a.js");
	N("?.js", "ab.js");
	N("a?b", "a/b");

	/* globstar */
	M("**", "a");
	M("**", "a/b/c");
	M("**/*", "a/b/c");
	M("**/*.js", "x.js");
	M("**/*.js", "a/b/x.js");
	N("**/*.js", "a/b/x.ts");
	M("src/**", "src");
	M("src/**", "src/a/b");
	N("src/**", "srcx/a");
	M("src/**/*", "src/a");
	M("a/**/b", "a/b");
	M("a/**/b", "a/x/y/b");
	N("a/**/b", "a/x/y/c");
	M("a/**/**/b", "a/b");
	M("a/**/b/**/c", "a/x/b/y/z/c");
	M("a**b", "axxb");     /* not a whole segment: acts as '*' */
	N("a**b", "ax/xb");

	/* globstar edges: an empty last path segment, a trailing '/' */
	M("a/**/", "a/b");
	N("a/**/", "a");
	N("**/a", "");
	M("**", "");
	M("a/**", "a/");
	N("a/**/b", "a/");
	M("a//b", "a//b");
	M("a/**/b", "a//b");

	/* many globstars over a deep path: the recursive matcher tried every
	 * split of the path among them (issue 20.14: minutes for ten over 40
	 * levels); these never finished before the set-of-segments matcher */
	{
		char pat[256] = "", path[256] = "";
		for (int i = 0; i < 12; i++)
			strcat(pat, "**/a/");
		strcat(pat, "b");
		for (int i = 0; i < 60; i++)
			strcat(path, i ? "/a" : "a");
		N(pat, path);
		strcat(path, "/c");
		N(pat, path);
		path[strlen(path) - 1] = 'b';
		M(pat, path);
		memset(pat, 0, sizeof(pat));
		for (int i = 0; i < 20; i++)
			strcat(pat, "**/*a*/");
		strcat(pat, "x");
		N(pat, path);
	}

	/* classes */
	M("[abc].js", "b.js");
	N("[abc].js", "d.js");
	M("[a-c]x", "bx");
	N("[a-c]x", "dx");
	M("[!a-c]x", "dx");
	N("[!a-c]x", "ax");
	M("[^a-c]x", "dx");
	M("[]]", "]");
	M("[!]]", "a");
	N("[!]]", "]");
	N("a[/]b", "a/b");
	M("pages/[id].tsx", "pages/i.tsx");
	N("pages/[id].tsx", "pages/[id].tsx");
	M("[", "[");       /* unclosed: literal */
	M("a[b", "a[b");
	M("[\\]]", "]");

	/* escapes */
	M("pages/\\[id\\].tsx", "pages/[id].tsx");
	N("pages/\\[id\\].tsx", "pages/i.tsx");
	M("a\\*b", "a*b");
	N("a\\*b", "axb");
	M("a\\?", "a?");
	N("a\\?", "ab");
	M("\\\\", "\\");

	/* magic detection */
	CHECK(glob_has_magic("src/*.js"));
	CHECK(glob_has_magic("a?"));
	CHECK(glob_has_magic("[id]"));
	CHECK(!glob_has_magic("\\[id\\]"));
	CHECK(!glob_has_magic("dist/vx"));

	/* R-21 collapse */
	owned(glob_collapse("dir/**"), "dir", "collapse dir/**");
	owned(glob_collapse("dir/**/*"), "dir", "collapse dir/**/*");
	owned(glob_collapse("a/b/**"), "a/b", "collapse a/b/**");
	owned(glob_collapse("**"), ".", "collapse **");
	owned(glob_collapse("**/*"), ".", "collapse **/*");
	owned(glob_collapse("dist/"), "dist", "collapse dist/");
	owned(glob_collapse(".*.tmp/**"), ".*.tmp", "collapse glob dir");
	owned(glob_collapse("src/*.js"), "src/*.js", "no collapse");
	owned(glob_collapse("src/**/*.js"), "src/**/*.js", "no collapse inner");

	/* static prefix and unescape */
	owned(glob_static_prefix("src/**"), "src", "prefix src/**");
	owned(glob_static_prefix("*.js"), "", "prefix *.js");
	owned(glob_static_prefix("a/b"), "a/b", "prefix literal");
	owned(glob_static_prefix("a/\\[x\\]/*.js"), "a/[x]", "prefix escaped");
	owned(glob_static_prefix("a/b[0-9]/c"), "a", "prefix class");
	owned(glob_unescape("\\[id\\].tsx"), "[id].tsx", "unescape");

	/* pruning */
	CHECK(glob_may_match_under("packages/*", "packages"));
	CHECK(glob_may_match_under("packages/*", "packages/a"));
	CHECK(!glob_may_match_under("packages/*", "apps"));
	CHECK(!glob_may_match_under("packages/*", "packages/a/b"));
	CHECK(glob_may_match_under("apps/**", "apps/a/b/c"));
	CHECK(glob_may_match_under("*/x", "anything"));

	return UNIT_END("glob");
}
