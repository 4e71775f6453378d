/* traceprobe.h: may this run trace its sandboxed tasks? (R-10a)
 *
 * vx-sandbox's pid 1 ptraces each one-shot task to record what it read and
 * wrote past its grants. Where the kernel refuses (vx itself under strace -f
 * or a debugger that follows forks, whose tracer holds every child already;
 * yama ptrace_scope 3; a container profile refusing ptrace) the task still
 * runs sandboxed, but nothing checked its accesses: its result is neither
 * saved (the verdict's "trace":"off", run_end.c) nor restored. The restore
 * half is decided before the lookup, here: traceprobe_refused() does what
 * pid 1 does, a child in a new user namespace PTRACE_SEIZEs a child of its
 * own, and returns 0 when that worked, else the errno. It probes once per
 * process, and only when first asked (the first sandboxed cached task looked
 * up), so a run without one forks nothing for it.
 * traceprobe_line() is the run's one line about it (NULL once said): why the
 * kernel refused (why, an errno's text) and the way back.
 */
#ifndef VX_BIN_TRACEPROBE_H
#define VX_BIN_TRACEPROBE_H

int traceprobe_refused(void);
char *traceprobe_line(const char *why);

#endif
