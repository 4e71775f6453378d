/* remote_lib.c: see remote_lib.h. */
#define REMOTE_LIB_SELF
#include "remote_lib.h"

#include <dlfcn.h>
#include <openssl/opensslv.h>
#include <stdbool.h>

#include "err.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* the sonames the build's headers belong to */
#define CURL_SONAME "libcurl.so.4"
#define CRYPTO_SONAME "libcrypto.so." STR(OPENSSL_VERSION_MAJOR)

struct remote_lib remote_lib;

static bool sym(void *lib, const char *lname, const char *name, void *slot)
{
	void *p = dlsym(lib, name);
	if (!p) {
		err_warn("remote cache: %s has no %s; reinstall it (scripts/install-deps.sh)",
			lname, name);
		return false;
	}
	/* POSIX: a function pointer converts through void * */
	*(void **)slot = p;
	return true;
}

int remote_lib_load(void)
{
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	if (state)
		return state > 0 ? 0 : -1;
	state = -1;
	void *curl = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *crypto = curl ? dlopen(CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!curl || !crypto) {
		err_warn("remote cache: unable to load %s: %s; install it (scripts/install-deps.sh)",
			curl ? CRYPTO_SONAME : CURL_SONAME, dlerror());
		return -1;
	}
	struct remote_lib *l = &remote_lib;
	bool ok = sym(curl, CURL_SONAME, "curl_global_init", &l->global_init) &&
		  sym(curl, CURL_SONAME, "curl_global_cleanup", &l->global_cleanup) &&
		  sym(curl, CURL_SONAME, "curl_easy_init", &l->easy_init) &&
		  sym(curl, CURL_SONAME, "curl_easy_setopt", &l->easy_setopt) &&
		  sym(curl, CURL_SONAME, "curl_easy_getinfo", &l->easy_getinfo) &&
		  sym(curl, CURL_SONAME, "curl_easy_cleanup", &l->easy_cleanup) &&
		  sym(curl, CURL_SONAME, "curl_easy_strerror", &l->easy_strerror) &&
		  sym(curl, CURL_SONAME, "curl_multi_init", &l->multi_init) &&
		  sym(curl, CURL_SONAME, "curl_multi_setopt", &l->multi_setopt) &&
		  sym(curl, CURL_SONAME, "curl_multi_add_handle", &l->multi_add_handle) &&
		  sym(curl, CURL_SONAME, "curl_multi_remove_handle", &l->multi_remove_handle) &&
		  sym(curl, CURL_SONAME, "curl_multi_perform", &l->multi_perform) &&
		  sym(curl, CURL_SONAME, "curl_multi_poll", &l->multi_poll) &&
		  sym(curl, CURL_SONAME, "curl_multi_info_read", &l->multi_info_read) &&
		  sym(curl, CURL_SONAME, "curl_multi_cleanup", &l->multi_cleanup) &&
		  sym(curl, CURL_SONAME, "curl_slist_append", &l->slist_append) &&
		  sym(curl, CURL_SONAME, "curl_slist_free_all", &l->slist_free_all) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_MD_CTX_new", &l->md_ctx_new) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_MD_CTX_free", &l->md_ctx_free) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_sha256", &l->sha256) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_DigestInit_ex", &l->digest_init_ex) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_DigestUpdate", &l->digest_update) &&
		  sym(crypto, CRYPTO_SONAME, "EVP_DigestFinal_ex", &l->digest_final_ex) &&
		  sym(crypto, CRYPTO_SONAME, "HMAC", &l->hmac);
	if (!ok)
		return -1;
	state = 1;
	return 0;
}
