/* filter.h: turbo's --filter grammar over the workspace's projects.
 *
 * A selector is [!][...[^]]BODY[[^]...] where BODY is a name glob ('*' any
 * run of characters, '/' too), a directory glob (./apps/web; "." the root;
 * {./dir} beside a name), and/or [REF] / [FROM...TO]: the
 * projects owning a file changed since REF (git diff against REF's merge
 * base with HEAD, the working tree and untracked files included). "NAME..."
 * adds what it depends on, "...NAME" what depends on it, '^' next to the
 * dots leaves the matched project itself out, "NAME...[REF]" picks NAME when
 * it or anything it depends on changed, and '!' subtracts. Several selectors
 * union; no positive one starts from every project.
 *
 * filter_select sets picked[i] for each project index the selectors keep.
 * A selector that matches no project is an error naming it (a typo cannot
 * be told from intent), except one with a [REF], where "nothing changed" is
 * an answer: one note line. Returns 0, or -1 after one error line each.
 */
#ifndef VX_GRAPH_FILTER_H
#define VX_GRAPH_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

int filter_select(struct workspace *ws, char *const *filters, size_t n, bool *picked);
/* Does any selector ask git ([REF])? Its answer moves with no config file. */
bool filter_uses_git(char *const *filters, size_t n);

#endif
