/* remote.h: a remote cache over HTTP, the protocol bazel-remote and
 * an nginx WebDAV location serve, through libcurl:
 *   GET/PUT <url>/ac/<key>        the manifest (the local one, each blob
 *                                 with its "sha256" added)
 *   GET/HEAD/PUT <url>/cas/<sha256 hex of the bytes>   each blob
 * <url> may carry an instance prefix in its path.
 *
 * Or, for a url "turbo+http(s)://...", Turborepo's remote cache API (what
 * turborepo-remote-cache and Vercel serve): each manifest and each blob is
 * an artifact, GET/HEAD/PUT <url>/v8/artifacts/<key or sha256>, with
 * "?teamId=" TURBO_TEAMID or else "?slug=" TURBO_TEAM, TURBO_TOKEN as the
 * bearer token when token is NULL or empty, and every request
 * "Content-Type: application/octet-stream". With
 * TURBO_REMOTE_CACHE_SIGNATURE_KEY set, every PUT carries turbo's
 * x-artifact-tag, base64 of HMAC-SHA256 under that key of the artifact's
 * name, the team and the body, and a manifest fetched without the tag its
 * bytes call for is a miss and one warning (a blob is bound by the sha256
 * of the manifest). The body is vx's (the manifest, a blob's bytes), not
 * turbo's .tar.zst: turbo and vx share a server, never an entry.
 *
 * A PUT answered 413 (the server's body limit) leaves that entry without
 * its manifest on the server: one warning for the entry, and the server
 * stays in use for the others.
 *
 * Downloads are written through to a local cache (cache.h): every blob is
 * checked against its sha256, its local XXH3 name and its size before it is
 * renamed into cas/, and the manifest is written to ac/ only once the local
 * cache would take it as a hit; the caller then restores through the local
 * cache as for any hit. A bad entry is a miss and one warning; so, before
 * any blob is fetched, is one no save would make (a file asking for setuid,
 * setgid or sticky bits) or one over the local cache's size limits.
 *
 * Signed entries: the server is trusted for nothing but availability when
 * a signing key is set (VX_REMOTE_CACHE_SIGNING_KEY, or the bytes of the
 * file VX_REMOTE_CACHE_SIGNING_KEY_FILE less trailing newlines; at least
 * 16 bytes), which the server never holds. An upload then ends the
 * manifest's JSON with one more member, ,"sig":"hmac-sha256:<64 hex>"}, the
 * HMAC-SHA256 under that key of "vx-remote-ac 1\n" <key> "\n" and the
 * manifest's text without that member (the bytes before it and a '}').
 * A download is checked before anything of it is parsed or fetched: one not
 * ending so, or whose MAC differs, is a miss and one warning, and what is
 * parsed is the signed text alone. The manifest names each blob by its
 * sha256 and XXH3, both checked as it arrives, so a signed entry binds its
 * blobs too. Without a key any well-formed entry is taken for its key.
 *
 * The server is never a reason to fail: a transport error, a timeout or an
 * unexpected status costs one warning, after which the handle asks nothing
 * more for the rest of its life. Transfers of one entry run in parallel
 * (libcurl multi); blobs are streamed through files, never held whole.
 *
 * Single-threaded. struct remote belongs to the caller (remote_close).
 */
#ifndef VX_CACHE_REMOTE_H
#define VX_CACHE_REMOTE_H

#include <stdbool.h>

struct cache;
struct remote;

/* url: the base (a trailing '/' is dropped); token: sent as
 * "Authorization: Bearer <token>" when not NULL; readonly: never uploads.
 * The signing key (and, for turbo+, its team and signature key) are read
 * from the environment here. NULL after a message when url is not
 * http(s):// or turbo+http(s)://, the team has a character other than
 * [A-Za-z0-9._-], libcurl will not start, or a signing
 * key is set but unusable (both variables, an unreadable file, too short):
 * no remote then, rather than one that takes unsigned entries. */
struct remote *remote_open(const char *url, const char *token, bool readonly);
void remote_close(struct remote *r);

/* Fetch key's entry into c: 1 when c now holds it whole (look it up and
 * restore it), 0 a miss (absent, bad, or the server is off). */
int remote_fetch(struct remote *r, struct cache *c, const char *key);

/* Upload c's entry of key: blobs the server lacks (HEAD), then the
 * manifest. Nothing in read-only mode or once the server is off. 0, or -1
 * when the upload did not happen (already said). */
int remote_push(struct remote *r, struct cache *c, const char *key);

#endif
