/* stream.h: vx-key's records in and out (docs/protocol.md, vx-key).
 *
 * key_stream reads vx-graph's records on stdin and writes them to stdout
 * (jsonl.h's writer, set up by the caller): each task record with "key"
 * and "final" (and "explain", "stamp" when asked) as soon as it is read,
 * every other record passed through. Live (the driver's co-process, which
 * sends a task only when it is ready and waits for the answer), each task
 * is answered once with its id and what vx-key added, a {"type":"rescan"}
 * record reads the root lockfiles again, and nothing else is written. The
 * stat cache loads while the graph record is on its way and is saved at
 * the end (and every few seconds live). Returns 0 or 1 after a line on
 * stderr naming the record.
 */
#ifndef VX_KEY_STREAM_H
#define VX_KEY_STREAM_H

#include <stdbool.h>

struct key_stream_opts {
	const char *root; /* NULL: the graph record's */
	bool explain, stamps, live;
};

int key_stream(const struct key_stream_opts *opt);

#endif
