/* sberrno.h: the errnos a sandbox refusal can give (issue 18 item 4), for
 * the two places that must agree on them: vx-report, which counts a traced
 * access's failure as the sandbox's only with one of them (report.c,
 * sandbox_errno), and the tracer's preload (sandbox/shim/vx-trace.c), which
 * hands pid 1 a failed call only when it could be one: any other errno the
 * host gives as well (EINVAL from readlink of a file that is no link, as
 * realpath(3) asks of every component; ELOOP, EISDIR, ENXIO, ...), so its
 * record would be dropped and its stop is saved. The sandbox hides (ENOENT,
 * ENOTDIR), mounts read-only (EROFS), refuses (EACCES, EPERM), and its
 * binds are mount points (EBUSY, EXDEV). A write's EEXIST and ENOENT are
 * the sandbox's only by what the host holds, which vx-report checks.
 * Header only: the shim links nothing of libcommon. */
#ifndef VX_SBERRNO_H
#define VX_SBERRNO_H

#include <errno.h>
#include <stdbool.h>

#define SB_ERRNO_READ ENOENT, ENOTDIR, EACCES, EPERM
#define SB_ERRNO_WRITE EROFS, EACCES, EPERM, ENOTDIR, EBUSY, EXDEV
/* a write's errnos the sandbox causes only by what the host holds */
#define SB_ERRNO_WRITE_HOST EEXIST, ENOENT

/* Could a refusal of the sandbox have given e, to a read or a write? */
static inline bool sb_errno_possible(int e)
{
	static const int all[] = {SB_ERRNO_READ, SB_ERRNO_WRITE, SB_ERRNO_WRITE_HOST};
	for (unsigned i = 0; i < sizeof(all) / sizeof(*all); i++)
		if (all[i] == e)
			return true;
	return false;
}

#endif
