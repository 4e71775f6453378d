/* run.h: the driver's own commands. Each takes the arguments after its name
 * and returns the exit code. */
#ifndef VX_BIN_RUN_H
#define VX_BIN_RUN_H

int run_main(int argc, char **argv);
int why_main(int argc, char **argv);
int clean_main(int argc, char **argv);

#endif
