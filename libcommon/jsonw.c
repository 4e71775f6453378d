#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static void put(struct jsonw *w, const char *s, size_t n)
{
	strbuf_add(&w->sb, s, n);
}

static void sep(struct jsonw *w)
{
	if (w->comma)
		put(w, ",", 1);
	w->comma = true;
}

void jsonw_reset(struct jsonw *w)
{
	strbuf_reset(&w->sb);
	w->comma = false;
}

void jsonw_free(struct jsonw *w)
{
	strbuf_release(&w->sb);
	w->comma = false;
}

void jsonw_open(struct jsonw *w, char bracket)
{
	sep(w);
	put(w, &bracket, 1);
	w->comma = false;
}

void jsonw_close(struct jsonw *w, char bracket)
{
	put(w, &bracket, 1);
	w->comma = true;
}

static void quoted(struct jsonw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s);
	/* the worst case at once (every byte \u00XX), then written in place:
	 * one bounds check a string instead of one a byte */
	strbuf_grow(&w->sb, n * 6 + 2);
	char *o = w->sb.buf + w->sb.len;
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c >= 0x20) {
			*o++ = (char)c;
		} else if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (c == '\r') {
			*o++ = '\\';
			*o++ = 'r';
		} else {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		}
	}
	*o++ = '"';
	*o = '\0';
	w->sb.len = (size_t)(o - w->sb.buf);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	sep(w);
	quoted(w, key);
	put(w, ":", 1);
	w->comma = false;
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	sep(w);
	quoted(w, s);
}

void jsonw_num(struct jsonw *w, double v)
{
	char b[32];
	int n;
	sep(w);
	if (!isfinite(v))
		n = snprintf(b, sizeof(b), "null");
	else if (v == (double)(long long)v && fabs(v) < 1e15)
		n = snprintf(b, sizeof(b), "%lld", (long long)v);
	else
		n = snprintf(b, sizeof(b), "%.17g", v);
	put(w, b, (size_t)n);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	sep(w);
	put(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_null(struct jsonw *w)
{
	sep(w);
	put(w, "null", 4);
}

void jsonw_cjson(struct jsonw *w, const cJSON *v)
{
	const cJSON *e;
	if (cJSON_IsObject(v)) {
		jsonw_open(w, '{');
		cJSON_ArrayForEach(e, v) {
			jsonw_key(w, e->string);
			jsonw_cjson(w, e);
		}
		jsonw_close(w, '}');
	} else if (cJSON_IsArray(v)) {
		jsonw_open(w, '[');
		cJSON_ArrayForEach(e, v) jsonw_cjson(w, e);
		jsonw_close(w, ']');
	} else if (cJSON_IsString(v)) {
		jsonw_str(w, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		jsonw_num(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		jsonw_bool(w, cJSON_IsTrue(v));
	} else {
		jsonw_null(w);
	}
}
