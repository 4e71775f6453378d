/* hash.h: the one content hash of vx: XXH3-128 (libxxhash), written as 32
 * lowercase hex characters. */
#ifndef VX_HASH_H
#define VX_HASH_H

#include <stddef.h>

#define HASH_HEX_LEN 32

/* out gets HASH_HEX_LEN hex characters and a NUL. */
void hash_hex(const void *data, size_t len, char out[HASH_HEX_LEN + 1]);
/* Is s exactly HASH_HEX_LEN lowercase hex characters? */
int hash_is_hex(const char *s);

#endif
