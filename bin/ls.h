/* ls.h: vx ls [PKG...] [--json] [--filter SEL]... [--root DIR], turbo's ls:
 * the workspace's packages (name, directory), or with PKG the tasks of each
 * (command, dependsOn, cached, sandboxed). Everything it says comes from
 * vx-graph's records (graphin.h): the projects of its graph record, its task
 * records; it parses no workspace file itself. Returns the exit code. */
#ifndef VX_BIN_LS_H
#define VX_BIN_LS_H

int ls_main(int argc, char **argv);

#endif
