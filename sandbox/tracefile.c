#include "tracefile.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "trace.h"

int trace_to(const char *path, const char *records)
{
	if (strcmp(path, "-") != 0)
		return trace_open(path);
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		err_warn_errno("--trace -: unable to take stdout for the records");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (records && fileio_write_all(fd, records, strlen(records)) != 0) {
		err_warn_errno("--trace -: unable to write the request's records");
		close(fd);
		return -1;
	}
	return fd;
}

int trace_to_fd(int fd, const char *records)
{
	int fl = fcntl(fd, F_GETFD);
	if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0) {
		err_warn_errno("--trace-fd %d: not an open descriptor", fd);
		return -1;
	}
	if (records && fileio_write_all(fd, records, strlen(records)) != 0) {
		err_warn_errno("--trace-fd %d: unable to write the request's records", fd);
		return -1;
	}
	return fd;
}

int trace_untraced(int fd)
{
	static const char off[] = "{\"trace\":\"off\",\"reason\":\"untraced\"}\n";
	if (fileio_write_all(fd, off, sizeof(off) - 1) != 0) {
		err_warn_errno("unable to write the records");
		return -1;
	}
	return 0;
}

void trace_exit(int fd, int status)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "{\"trace\":\"exit\",\"status\":%d}\n", status);
	if (fileio_write_all(fd, line, (size_t)n) != 0)
		err_warn_errno("unable to write the trace's exit record");
}
