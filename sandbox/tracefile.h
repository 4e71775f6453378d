/* tracefile.h: where vx-sandbox --trace sends the access records.
 *
 * trace_to() opens FILE as trace_open() does (trace.h), or for "-" takes
 * stdout for the records and makes the task's stdout go to stderr, so that
 * records and output never mix in one stream; there, the request's records
 * (records, one per line, or NULL) come first, so that vx-report reads one
 * stream: `vx-sandbox --request - --trace - | vx-report`. Returns the fd, or
 * -1 after one line. trace_to_fd() does the same on an inherited fd
 * (--trace-fd N: vx run's pipe to vx-report), made close-on-exec, the task's
 * stdout left alone. trace_untraced() writes the "off" record of a task
 * run with no tracer (--untraced): {"trace":"off","reason":"untraced"}; 0,
 * or -1 after one line. trace_exit() ends the records with the task's exit
 * status: {"trace":"exit","status":N} (docs/protocol.md).
 */
#ifndef VX_SANDBOX_TRACEFILE_H
#define VX_SANDBOX_TRACEFILE_H

int trace_to(const char *path, const char *records);
int trace_to_fd(int fd, const char *records);
int trace_untraced(int fd);
void trace_exit(int fd, int status);

#endif
