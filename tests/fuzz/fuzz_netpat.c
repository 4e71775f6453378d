/* fuzz_netpat: the network entry parser (netpat_check, every kind), host
 * canonicalisation and matching. Input: entry '\n' host (no '\n': both). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netpat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1024)
		return 0;
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = memchr(buf, '\n', size);
	const char *entry = buf, *host = buf;
	size_t hostlen = size;
	if (nl) {
		*nl = '\0';
		host = nl + 1;
		hostlen = size - (size_t)(host - buf);
	}
	char out[NETPAT_HOST_MAX];
	const char *why = NULL;
	enum netpat_host k = netpat_host_canon(host, hostlen, out, &why);
	if (k != NETPAT_HOST_BAD && strlen(out) >= NETPAT_HOST_MAX)
		abort();
	for (int kind = NETPAT_ALLOW; kind <= NETPAT_IGNORE; kind++) {
		if (netpat_check(entry, (enum netpat_kind)kind))
			continue;
		(void)netpat_match(entry, host, 443);
		(void)netpat_match(entry, host, (unsigned)size);
		(void)netpat_is_literal(entry);
	}
	free(buf);
	return 0;
}
