/* report.h: a sandboxed task's verdict, from vx-report (issue 5, 37).
 *
 * vx-report is the one judge of a task's violations, file and network, and
 * one vx-report --each serves the whole run (started with the first
 * sandboxed task, so its start overlaps that task), its stdin a unix
 * seqpacket socket. A sandboxed task's records never touch a file:
 * report_stream() makes the pipe vx-sandbox --trace-fd writes them on (the
 * request's records, the accesses, the network denies vx-sandbox took from
 * vx-proxy, the exit record: sandbox/netctl.h; a persistent task's are
 * --untraced, no accesses) and hands its read end to vx-report
 * (SCM_RIGHTS), which reads it while the task runs and judges it at its
 * end; *wfd is the write end, for the task's fd 3 (close-on-exec; the
 * caller closes it once the task started). Once the task exited,
 * report_stream_verdict() waits for that task's verdict (verdicts of other
 * tasks that come first are kept for theirs), appends each violation and
 * hint line vx-report printed to out (one per line, as ui.h's violations
 * text wants them) and returns true when the task fails on them: a
 * violation, a trace that did not end, or vx-report itself failing (never
 * a pass on a report nobody read). *off is set to the kernel's refusal
 * (malloc'd, "" when unnamed) when the verdict says the task ran untraced
 * ("trace":"off": ptrace refused, R-10a; or --untraced), else NULL. The
 * driver moves no record and judges nothing itself.
 */
#ifndef VX_BIN_REPORT_H
#define VX_BIN_REPORT_H

#include <stdbool.h>

#include "ui.h"

/* 0 with *wfd, or -1 when vx-report could not be started or reached. */
int report_stream(const char *id, int *wfd);
bool report_stream_verdict(const char *id, struct strbuf *out, char **off);
/* Start the run's vx-report now, if it is not running: false when it
 * cannot be (the task is then failed, unjudged). */
bool report_start(void);
/* The run's vx-report, kept between tasks (vx-report --each), stopped:
 * at the end of a run. */
void report_stop(void);

#endif
