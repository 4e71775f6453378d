/* fileio.h: whole-file reads. */
#ifndef VX_FILEIO_H
#define VX_FILEIO_H

#include <stddef.h>

/* The whole file name (relative to dirfd, or AT_FDCWD), NUL-terminated, in a
 * malloc'd buffer; *len gets its size. NULL with errno set on failure. */
char *fileio_read_at(int dirfd, const char *name, size_t *len);

/* The same for small regular files, in fewer system calls (open, read,
 * close): a short read is taken as the end of the file, which holds for
 * regular files. Not for pipes, sockets or /proc. */
char *fileio_slurp_at(int dirfd, const char *name, size_t *len);

#endif
