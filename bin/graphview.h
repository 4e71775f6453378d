/* graphview.h: vx graph --dot and vx graph --html FILE, the task graph as a
 * picture: one node per task, an edge per dependsOn, each task drawn as its
 * last run left it (runcache_last_outcome: hit, ran, failed, violation,
 * skipped; none kept is "never run").
 *
 * --dot writes Graphviz dot to stdout. --html writes FILE, one page that
 * fetches nothing (inline CSS, SVG and script; a Content-Security-Policy of
 * default-src 'none' holds it to that): the layers are laid out here, in C,
 * so the picture needs no script; the script shows a task's id, command,
 * inputs, outputs, sandbox and state when it is clicked (or named by
 * #task=ID in the URL). Task names, commands and paths are user data: each
 * is escaped for where it lands (a dot string, HTML text or attribute, JSON
 * inside a script element), and bytes that are not UTF-8 become U+FFFD.
 */
#ifndef VX_BIN_GRAPHVIEW_H
#define VX_BIN_GRAPHVIEW_H

#include <stdbool.h>

/* vx graph ARGS asks for a picture (--dot or --html) or for --help:
 * graphview_main's, else vx-graph's records. */
bool graphview_wanted(int argc, char **argv);
/* argv[0] is "graph". Returns the exit code. */
int graphview_main(int argc, char **argv);

#endif
