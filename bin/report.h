/* report.h: a sandboxed task's violations, from vx-report (issue 5).
 *
 * A one-shot sandboxed task runs as vx-sandbox --request R --trace
 * report_trace_path(R); once it exited, report_task() runs vx-report on the
 * two files, appends each violation and hint line to out (one per line, as
 * ui.h's violations text wants them) and removes the trace. It returns true
 * when the task fails on them: a violation, a trace that did not end, or
 * vx-report itself failing (never a pass on a report nobody read). A
 * persistent task is given no trace (enforced, not reported).
 */
#ifndef VX_BIN_REPORT_H
#define VX_BIN_REPORT_H

#include <stdbool.h>

#include "ui.h"

char *report_trace_path(const char *request);
bool report_task(const char *request, const char *trace, int exit_code, struct ui_buf *out);

#endif
