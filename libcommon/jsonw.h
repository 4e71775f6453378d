/* jsonw.h: a JSON writer into a reusable buffer, for records written in a
 * hot loop (one strbuf per writer instead of a cJSON tree per record).
 * Commas are placed by the writer; strings are escaped per RFC 8259
 * (control characters as \u00XX; other bytes pass through unchanged, as
 * cJSON does). Parsing stays with cJSON. The record so far is w.sb.buf, its
 * w.sb.len bytes NUL-terminated; jsonw_reset() empties it and keeps the
 * allocation, jsonw_free() releases it. */
#ifndef VX_JSONW_H
#define VX_JSONW_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "strbuf.h"

struct jsonw {
	struct strbuf sb;
	bool comma; /* the next value needs a comma before it */
};

void jsonw_reset(struct jsonw *w);
void jsonw_free(struct jsonw *w);
void jsonw_open(struct jsonw *w, char bracket);  /* '{' or '[' */
void jsonw_close(struct jsonw *w, char bracket); /* '}' or ']' */
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_num(struct jsonw *w, double v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Any cJSON value, recursively. */
void jsonw_cjson(struct jsonw *w, const cJSON *v);

#endif
