/* grants.h: the exec.sandbox grants judged against the rest of the config
 * (issue 34), each refusal a config error line (model.h's diag_config; the
 * caller exits 2 on any).
 *
 * grants_check_home, right after config_load, for every sandboxed task: a
 * write grant reaching $HOME, ~/.config, ~/.local or a PATH directory is
 * refused (R-25a, homegrant.h), by this process's HOME and PATH.
 *
 * grants_check_keyed, after graph_keyed, for each cached sandboxed task of
 * the run (order): a read grant reaching a workspace path outside the
 * task's project must be answered for by its key (R-21a): a workspaceFiles
 * glob that matches it (a file) or all of its subtree (a directory or a
 * glob's static prefix), a root file every key folds (the fingerprint), or
 * every project it reaches being in K(T) (a dependsOn edge keying it, as
 * R-28's linked-package rule). Exempt: paths outside the root, under a
 * node_modules (the lockfile keys them, R-8; a link into a workspace
 * package is judged at its target) or a .git (key its state with
 * inputs.runtime). Write grants are not judged here: they name what the
 * task writes (a tool's cache), see docs/security.md.
 */
#ifndef VX_GRAPH_GRANTS_H
#define VX_GRAPH_GRANTS_H

#include <stddef.h>

#include "model.h"

void grants_check_home(struct workspace *ws);
void grants_check_keyed(struct workspace *ws, struct task **order, size_t n);

#endif
