/* judge.h: vx-report's modes, its options parsed by main.
 *
 * judge_one reads what is named (request NULL: the trace carries it; trace
 * NULL: the task ran untraced, judged on its network records alone; the
 * exit status the trace's exit record, unless exit_given), judges it and
 * writes its records (report.h); *fail is the verdict. VX_EXIT_USAGE after
 * one line when an input could not be read, else 0.
 * judge_each judges one task per record on stdin (--each): "judge" records
 * naming the files, or on vx run's unix seqpacket socket "stream" records
 * with a task's record pipe attached (streams.h), each answered with its
 * records and its verdict; 0, or VX_EXIT_USAGE when a line was malformed.
 */
#ifndef VX_REPORT_JUDGE_H
#define VX_REPORT_JUDGE_H

#include <stdbool.h>

int judge_one(const char *request, const char *trace, const char *network,
	bool exit_given, int code, bool *fail);
int judge_each(void);

#endif
