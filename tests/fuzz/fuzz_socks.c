/* fuzz_socks: the proxy's SOCKS5 greeting and request parsers over what a
 * client sent, greeting then request in one buffer, and each prefix of it
 * (a client may write a byte at a time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "socks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1024)
		return 0;
	unsigned char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	const char *why = NULL;
	size_t used = 0;
	for (size_t n = 0; n <= size; n++) {
		/* each prefix through a buffer of exactly n bytes */
		unsigned char *pre = malloc(n ? n : 1);
		memcpy(pre, buf, n);
		used = 0;
		enum socks_result g = socks_greeting(pre, n, &used, &why);
		if (used > n)
			abort();
		if (g == SOCKS_OK) {
			struct socks_req r;
			size_t used2 = 0;
			(void)socks_request(pre + used, n - used, &r, &used2, &why);
			if (used2 > n - used || r.host_raw_len > sizeof(r.host_raw))
				abort();
		}
		free(pre);
	}
	struct socks_req r;
	(void)socks_request(buf, size, &r, &used, &why);
	unsigned char out[10];
	socks_reply(out, size ? buf[0] : 0);
	free(buf);
	return 0;
}
