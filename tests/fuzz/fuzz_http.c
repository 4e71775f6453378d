/* fuzz_http: the proxy's request head parser, and the head it forwards
 * from what it accepted. The input is the bytes a client sent; it is also
 * fed in two parts, as a slow client would; and the same bytes as an
 * origin's answer head (http_resp_length). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > HTTP_HEAD_MAX * 2)
		return 0;
	/* a copy of exactly size bytes: ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	struct http_req *r = malloc(sizeof(*r));
	int status = 0;
	const char *why = NULL;
	size_t cut = size ? data[0] % size : 0;
	(void)http_parse(buf, cut, r, &status, &why);
	enum http_result res = http_parse(buf, size, r, &status, &why);
	if (res == HTTP_OK) {
		if (r->head_len > size)
			abort();
		if (r->kind == HTTP_ABSOLUTE) {
			size_t len = 0;
			free(http_forward_head(r, false, &len));
			free(http_forward_head(r, true, &len));
		}
	} else if (res == HTTP_BAD) {
		size_t len = 0;
		free(http_error(status, why ? why : "", &len));
	}
	/* the same bytes as an origin's answer, whole and cut short */
	bool keep;
	(void)http_resp_length(buf, size, &keep);
	(void)http_resp_length(buf, cut, &keep);
	free(r);
	free(buf);
	return 0;
}
