/* vxedit.h: vx init --sandbox's edit of one vx.json, spliced in place.
 *
 * vxedit_sandbox finds tasks.<name> by parsing the text (jsonc.h's walk,
 * after the parse vx-graph does), never by searching it: a commented-out
 * copy of the task, or a string that spells its name, is never touched, and
 * every byte outside the splices stays as it was (comments, layout,
 * trailing commas). It adds sandbox (a member's text, "\"sandbox\": {...}")
 * as the last member of the task's exec and, when wfiles (a JSON array's
 * text) is given and the task has a cache object, those files first in its
 * cache.inputs.workspaceFiles. A new member goes on a line of its own when
 * its neighbour has one, with the neighbour's indent.
 *
 * It refuses a file it cannot edit safely: NULL, after one line naming the
 * file, the key and the fix. That is a file that does not parse, a key on
 * the way that appears twice (which of the two is the task is the reader's
 * guess), a task that is not there or has no exec (a group: nothing to
 * sandbox), and an exec with a sandbox member already: a block the user
 * wrote is theirs, never replaced. Otherwise the new text (malloc'd). */
#ifndef VX_INIT_VXEDIT_H
#define VX_INIT_VXEDIT_H

char *vxedit_sandbox(const char *file, const char *text, const char *name, const char *sandbox,
	const char *wfiles);

#endif
