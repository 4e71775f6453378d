/* fuzz_netpat: the network entry parser (netpat_check, every kind), host
 * canonicalisation and matching. Input: entry '\n' host (no '\n': both). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "netpat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1024)
		return 0;
	const char *entry, *host;
	size_t hostlen;
	char *buf = fuzz_split(data, size, &entry, &host, &hostlen);
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
