/* vx-test-memoseal FILE: give the memo FILE (memo.h) the header its body
 * has now: the suites edit a saved memo's body (a marker only a replay
 * prints) and seal it, so that the edit is trusted as vx would have written
 * it. A test helper (tests/vx-graph.bats), built beside the programs but
 * never installed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "memo.h"

int main(int argc, char **argv)
{
	err_init(argv[0]);
	if (argc != 2)
		err_die(VX_EXIT_USAGE, "usage: vx-test-memoseal FILE");
	size_t n;
	char *text = fileio_read_at(AT_FDCWD, argv[1], &n);
	if (!text)
		err_die_errno(VX_EXIT_FAIL, "unable to read '%s'", argv[1]);
	char kind[64];
	unsigned version;
	char *nl = strchr(text, '\n');
	if (!nl || sscanf(text, "vx-memo %63s %u ", kind, &version) != 2)
		err_die(VX_EXIT_FAIL, "%s: not a memo", argv[1]);
	if (memo_save(argv[1], kind, version, nl + 1, n - (size_t)(nl + 1 - text), 0644) != 0)
		err_die_errno(VX_EXIT_FAIL, "unable to write '%s'", argv[1]);
	free(text);
	return 0;
}
