/* remote_lib.h: libcurl and OpenSSL's libcrypto, loaded when a remote cache
 * is first opened rather than when vx starts.
 *
 * Linked at build time, libcurl's dependencies (TLS, HTTP/2, LDAP, Kerberos:
 * 30 shared objects) cost every vx invocation ~500 page faults and ~10 ms on
 * a virtualised host, although most runs use no remote cache. remote.c calls
 * the libraries by their own names; this header maps those names onto
 * pointers that remote_lib_load fills with dlopen/dlsym. The headers are the
 * libraries' own, so the prototypes (and curl's option type checks) are
 * theirs. remote_lib_load: 0, or -1 having said on stderr what is missing.
 */
#ifndef VX_REMOTE_LIB_H
#define VX_REMOTE_LIB_H

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

struct remote_lib {
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned, int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	EVP_MD_CTX *(*md_ctx_new)(void);
	void (*md_ctx_free)(EVP_MD_CTX *);
	const EVP_MD *(*sha256)(void);
	int (*digest_init_ex)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
	int (*digest_update)(EVP_MD_CTX *, const void *, size_t);
	int (*digest_final_ex)(EVP_MD_CTX *, unsigned char *, unsigned int *);
	unsigned char *(*hmac)(const EVP_MD *, const void *, int, const unsigned char *, size_t,
		unsigned char *, unsigned int *);
};

extern struct remote_lib remote_lib;

int remote_lib_load(void);

#ifndef REMOTE_LIB_SELF
/* curl's typecheck-gcc.h defines some of these as macros: ours replace them */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_global_init remote_lib.global_init
#define curl_global_cleanup remote_lib.global_cleanup
#define curl_easy_init remote_lib.easy_init
#define curl_easy_setopt remote_lib.easy_setopt
#define curl_easy_getinfo remote_lib.easy_getinfo
#define curl_easy_cleanup remote_lib.easy_cleanup
#define curl_easy_strerror remote_lib.easy_strerror
#define curl_multi_init remote_lib.multi_init
#define curl_multi_setopt remote_lib.multi_setopt
#define curl_multi_add_handle remote_lib.multi_add_handle
#define curl_multi_remove_handle remote_lib.multi_remove_handle
#define curl_multi_perform remote_lib.multi_perform
#define curl_multi_poll remote_lib.multi_poll
#define curl_multi_info_read remote_lib.multi_info_read
#define curl_multi_cleanup remote_lib.multi_cleanup
#define curl_slist_append remote_lib.slist_append
#define curl_slist_free_all remote_lib.slist_free_all
#define EVP_MD_CTX_new remote_lib.md_ctx_new
#define EVP_MD_CTX_free remote_lib.md_ctx_free
#define EVP_sha256 remote_lib.sha256
#define EVP_DigestInit_ex remote_lib.digest_init_ex
#define EVP_DigestUpdate remote_lib.digest_update
#define EVP_DigestFinal_ex remote_lib.digest_final_ex
#define HMAC remote_lib.hmac
#endif

#endif
