/* setup.h: what vx-proxy's main prepares before the loop runs.
 *
 * setup_seconds parses a timeout option's value (seconds, > 0, at most a
 * day) and setup_count a count (1..max); setup_listen_tcp opens a listening
 * socket on 127.0.0.1:PORT (loopback only, TCP_NODELAY inherited by every
 * accepted socket); setup_request_file applies each line of a request file
 * (request.h). Each dies with one line naming the option or the file on
 * bad input (exit 2) or a failed call (exit 1).
 */
#ifndef VX_PROXY_SETUP_H
#define VX_PROXY_SETUP_H

#include "policy.h"

struct loop;

double setup_seconds(const char *opt, const char *s);
unsigned setup_count(const char *opt, const char *s, long max);
int setup_listen_tcp(const char *port);
void setup_request_file(struct loop *L, struct policy *pol, const char *path);

#endif
