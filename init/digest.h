/* digest.h: what a learning run wrote, to compare with its verifying run
 * (vx init --sandbox, issue 35).
 *
 * digest_layer hashes every regular file and symlink the learning run left
 * in its overlay's upper layer (SCRATCH/upper, the root's tree) under each
 * write grant of the project (grants as the block spells them, project-
 * relative: "dist/", "index.d.ts"): an object of project-relative path ->
 * content hash (a symlink: "link:" and its target). A whiteout (what the
 * run deleted) is no output. digest_differ names the paths of d whose file
 * in the real project now differs or is missing (an array; empty when all
 * agree). digest_rm removes a scratch tree, whatever modes the overlay left
 * in it (its work directory is mode 0). */
#ifndef VX_INIT_DIGEST_H
#define VX_INIT_DIGEST_H

#include <cjson/cJSON.h>

cJSON *digest_layer(const char *upper, const char *root, const char *proj, const cJSON *writes);
cJSON *digest_differ(const cJSON *d, const char *proj);
void digest_rm(const char *path);

#endif
