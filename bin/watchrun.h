/* watchrun.h: vx watch TASK... [vx run's options].
 *
 * Runs the tasks once, then again each time vx-watch's token moves (a
 * change under the root but node_modules, .git and .vx), after 100 ms with
 * no further move; never two runs at once: a change made during a run is
 * one rerun after it. Each run is run_main in a child (run.h): the cache
 * makes a rerun cheap, every unaffected task a hit. The token is polled
 * (vx-watch has no query that waits). A run that moved the token may have
 * done so by its own outputs: it is rerun, and that rerun, all hits in
 * place, writes nothing and settles; after 3 such reruns in a row it waits
 * for the next change. Persistent tasks are started by the first run and
 * kept running by it; a rerun does not restart them, even when their own
 * inputs changed; one that exited is started again by the next rerun. A
 * failing rerun does not end the watch; a first run refused (usage, config)
 * does, with its code. SIGINT/SIGTERM stop the runs and the servers: 130
 * or 143.
 */
#ifndef VX_BIN_WATCHRUN_H
#define VX_BIN_WATCHRUN_H

int watch_main(int argc, char **argv);

#endif
