/* termsafe.h: text a task controls, made unable to rewrite vx's own lines
 * on a terminal (issue 20).
 *
 * termsafe_lines writes s[0..n) to f as lines, each "<prefix><line>\n".
 * A line ends at "\n", "\r\n" or a lone "\r" (so "\r" can never return to
 * the start of a line vx wrote: a progress bar's updates become lines).
 * Kept as they are: printable text, "\t", valid UTF-8 but C1 controls, and
 * SGR sequences (ESC [ digits ; : m, the colours), which a line that used
 * any ends with a reset (ESC [ 0 m) so they never reach vx's next line.
 * Everything else is shown, not obeyed: C0 controls and DEL in caret form
 * ("^[" for ESC, so ESC [ 2 K prints as "^[[2K"), C1 controls and bytes of
 * invalid UTF-8 as "\xHH". The prefix goes through the same rendering.
 * termsafe_str is one line of it, malloc'd, for a name vx prints itself.
 */
#ifndef VX_BIN_TERMSAFE_H
#define VX_BIN_TERMSAFE_H

#include <stddef.h>
#include <stdio.h>

/* Before a line that would take f's pending bytes past TERMSAFE_WHOLE,
 * termsafe_lines flushes f: with a buffer of twice that (ui_init gives
 * stdout one) every line shorter than it is written whole, so another
 * process writing the same file between two flushes lands between lines. */
#define TERMSAFE_WHOLE 65536

void termsafe_lines(FILE *f, const char *prefix, const char *s, size_t n);
char *termsafe_str(const char *s);

#endif
