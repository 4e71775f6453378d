/* fuzz_request: vx-sandbox's request file (a graph record, then a task
 * record) as any bytes, read and resolved as vx-sandbox does before it
 * plans a sandbox. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sandbox/request.h"

static char file[] = "/tmp/vx-fuzz-request-XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	int fd = mkstemp(file);
	if (fd < 0)
		abort();
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	int fd = open(file, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	struct sb_request *r = request_read(file);
	if (r) {
		(void)request_resolve(r);
		request_free(r);
	}
	return 0;
}
