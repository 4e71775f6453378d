/* fuzz_dns: the sandbox bridge's DNS query parser and answer over what a
 * task sent (any bytes, any length), with the answer bounded by the query,
 * and the same bytes as a proxy request's first line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sandbox/dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	/* a buffer of exactly size bytes: a read past it is ASan's */
	unsigned char *buf = malloc(size ? size : 1), out[DNS_MAX_QUERY];
	memcpy(buf, data, size);
	struct dns_query q;
	enum dns_result r = dns_parse(buf, size, &q);
	if (r == DNS_QUESTION) {
		size_t n = strlen(q.name);
		if (n > 253 || q.qend > size)
			abort();
		for (size_t i = 0; i < n; i++)
			if (q.name[i] == '"' || q.name[i] == '\\' || (unsigned char)q.name[i] < 0x20 ||
				(unsigned char)q.name[i] > 0x7e)
				abort(); /* the name goes into a JSON record unescaped */
	}
	size_t an = dns_answer(buf, size, r, &q, out, sizeof(out));
	if (an > size || (r == DNS_IGNORE && an))
		abort();
	char host[254];
	if (dns_proxy_host(buf, size, host)) {
		size_t n = strlen(host);
		if (n == 0 || n > 253)
			abort();
		for (size_t i = 0; i < n; i++)
			if (host[i] == '"' || host[i] == '\\' || (unsigned char)host[i] < 0x20 ||
				(unsigned char)host[i] > 0x7e)
				abort();
	}
	char tb[12];
	(void)dns_type_name(q.type, tb);
	free(buf);
	return 0;
}
