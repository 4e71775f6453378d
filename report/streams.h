/* streams.h: vx-report --each on a socket: the one vx-report of a vx run
 * judges every sandboxed task's record stream as it comes (issue 37).
 *
 * stdin is a unix SOCK_SEQPACKET socket (vx run's), one record a message:
 * {"type":"stream","id":ID} with the read end of the pipe that task's
 * vx-sandbox --trace-fd writes on attached (SCM_RIGHTS), or a "judge"
 * record (files by name, as --each on a pipe takes them), handed to
 * judge_files. The streams are read side by side while their tasks run,
 * each kept in memory; at its end a stream is judged as one `vx-sandbox
 * --trace -` output is (the request, the accesses, the network denies, the
 * exit record), and its records and verdict are written together: what
 * comes before a verdict is its task's. A stream without a request gets a
 * failed verdict, "trace":"unreadable", its stream record's id. It ends
 * at EOF on stdin once every stream has ended: the exit code (2 after a
 * malformed message, each named on stderr).
 */
#ifndef VX_REPORT_STREAMS_H
#define VX_REPORT_STREAMS_H

#include <cjson/cJSON.h>

/* Is stdin a SOCK_SEQPACKET socket (vx run's), not a pipe or a file? */
int streams_on_stdin(void);
int streams_serve(int (*judge_files)(const cJSON *rec, size_t n));

#endif
