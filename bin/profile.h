/* profile.h: vx run --profile FILE, a Chrome trace of one run in the Trace
 * Event Format's JSON object form, which Perfetto and chrome://tracing
 * open: {"traceEvents":[...],"displayTimeUnit":"ms"}. Each span is one
 * complete event ("ph":"X"; ts and dur in microseconds since profile_open)
 * on a lane, the trace's thread (tid): PROFILE_MAIN is the driver's own
 * work (the graph, keying, hits settled while keying), then one lane per -j
 * slot, then one per hit the writers restore beside it. A lane is held from
 * profile_take to profile_give, so spans of one lane nest and never
 * overlap. Spans are kept in memory and written once, whole, by
 * profile_write (temp then rename: atomicw.h), after an "M" event naming
 * the process and one per lane used. Times are ui_now_ms()'s (CLOCK_MONOTONIC,
 * ms). Until profile_open every call returns at once, so a run without
 * --profile pays one test per call. One profile per process. */
#ifndef VX_BIN_PROFILE_H
#define VX_BIN_PROFILE_H

#include <stdbool.h>

#define PROFILE_MAIN 0
enum profile_pool { PROFILE_SLOT, PROFILE_RESTORE };

/* FILE can be written once the run is over: its directory exists and it is
 * no directory. false after a one-line message (checked before anything
 * runs). */
bool profile_check(const char *path);
void profile_open(const char *path);
bool profile_on(void);
/* The lowest free lane of pool, held until given back; PROFILE_MAIN when off. */
int profile_take(enum profile_pool pool);
void profile_give(int lane);
/* A span of lane from t0 to t1 (ms), with args: pairs of strings (name,
 * value), then NULL. */
void profile_span(int lane, const char *cat, const char *name, double t0, double t1, ...)
	__attribute__((sentinel));
/* Write FILE: 0, or -1 after a message naming it (nothing half-written). */
int profile_write(void);

#endif
