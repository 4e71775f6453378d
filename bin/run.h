/* run.h: the driver's own commands. Each takes the arguments after its name
 * and returns the exit code. */
#ifndef VX_BIN_RUN_H
#define VX_BIN_RUN_H

#include <stdbool.h>
#include <stddef.h>

int run_main(int argc, char **argv);
int why_main(int argc, char **argv);
int clean_main(int argc, char **argv);

/* vx watch's hold on one run_main (watchrun.h), set before calling it in a
 * child of vx watch. Every such run writes its exit code, one byte, to
 * done_fd once its report is out; a run that ends before its work (refused,
 * interrupted) writes nothing. serve: when the work is done and persistent
 * tasks still run, it writes the byte then 's' and goes on serving them
 * until they all exit or a signal comes, with no second summary. !serve:
 * persistent tasks are served by an earlier run, so they are not started
 * (their dependents go on), and the whole-run replay is not tried. header,
 * when set, is called once the graph is read, with the number of tasks
 * this run will settle. */
struct run_watch {
	bool on, serve;
	int done_fd;
	void (*header)(size_t ntasks);
};
void run_watch_set(const struct run_watch *w);

#endif
