/* report.h: a sandboxed task's verdict, from vx-report (issue 5).
 *
 * vx-report is the one judge of a task's violations, file and network. A
 * one-shot sandboxed task runs as vx-sandbox --request R --trace
 * report_trace_path(R); once it exited, report_task() hands vx-report
 * (one vx-report --each for the whole run, started with the first sandboxed
 * task that runs, so its start overlaps that task) the request, the trace
 * (its network denies in it: sandbox/netctl.h; NULL: a persistent task,
 * untraced) and an untraced task's deny records from vx-proxy (netproxy.h;
 * written beside the request), appends
 * each violation and hint line vx-report prints to out (one per line, as
 * ui.h's violations text wants them) and removes the trace. It returns true
 * when the task fails on them: a violation, a trace that did not end, or
 * vx-report itself failing (never a pass on a report nobody read). *off is
 * set to the kernel's refusal (malloc'd, "" when unnamed) when the verdict
 * says the task ran untraced ("trace":"off": ptrace refused, R-10a), else
 * NULL: nothing then checked its accesses, so it must not be saved. The
 * driver reads vx-report's records through stage.h and judges nothing
 * itself.
 */
#ifndef VX_BIN_REPORT_H
#define VX_BIN_REPORT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "ui.h"

char *report_trace_path(const char *request);
bool report_task(const char *request, const char *trace, const cJSON *denies, int exit_code,
	struct strbuf *out, char **off);
/* Start the run's vx-report now, if it is not running: false when it
 * cannot be (report_task then tries again, and fails the task). */
bool report_start(void);
/* The run's vx-report, kept between tasks (vx-report --each), stopped:
 * at the end of a run. */
void report_stop(void);

#endif
