/* record.c: vx-proxy's records on stdout, one whole line each, flushed
 * at once: the driver reads them while the run goes on (docs/protocol.md).
 * Each is built in a buffer of its own: they are few (a refusal, a task
 * socket's start and end). */
#include <stdio.h>

#include "err.h"
#include "jsonl.h"
#include "jsonw.h"
#include "loop.h"

/* A host as the record shows it: the canonical form when there is one,
 * else the client's bytes with anything unprintable as \xNN. */
void show_host(char *out, size_t cap, const char *raw, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c > 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static void emit(struct jsonw *rec)
{
	jsonl_write_raw(rec->sb.buf, rec->sb.len);
	jsonw_free(rec);
	if (fflush(stdout) != 0)
		err_die_errno(1, "write error");
}

static const char *via_name(enum via v)
{
	switch (v) {
	case VIA_HTTP: return "http";
	case VIA_CONNECT: return "connect";
	case VIA_SOCKS5: return "socks5";
	case VIA_SOCKS4: return "socks4";
	default: return "unknown";
	}
}

/* One refusal, one line: the driver prints it under the task's violations
 * as `deny network-outbound <host>:<port> (<reason>)`. */
void record_deny(const struct conn *c, const char *host, unsigned port, const char *reason)
{
	struct jsonw rec = { 0 };
	jsonw_open(&rec, '{');
	jsonw_key(&rec, "type");
	jsonw_str(&rec, "deny");
	jsonw_key(&rec, "task");
	jsonw_str(&rec, c->task->id);
	jsonw_key(&rec, "host");
	jsonw_str(&rec, host);
	jsonw_key(&rec, "port");
	jsonw_num(&rec, port);
	jsonw_key(&rec, "reason");
	jsonw_str(&rec, reason);
	jsonw_key(&rec, "via");
	jsonw_str(&rec, via_name(c->via));
	jsonw_close(&rec, '}');
	if (control_keep(c->lis, rec.sb.buf, rec.sb.len)) {
		jsonw_free(&rec);
		return;
	}
	emit(&rec);
}

void record_listening(const struct ptask *t, const char *path, int fd)
{
	struct jsonw rec = { 0 };
	jsonw_open(&rec, '{');
	jsonw_key(&rec, "type");
	jsonw_str(&rec, "listening");
	jsonw_key(&rec, "v");
	jsonw_num(&rec, 1);
	jsonw_key(&rec, "task");
	jsonw_str(&rec, t->id);
	if (path) {
		jsonw_key(&rec, "socket");
		jsonw_str(&rec, path);
	} else {
		jsonw_key(&rec, "fd");
		jsonw_num(&rec, fd);
	}
	jsonw_close(&rec, '}');
	emit(&rec);
}

void record_done(const struct ptask *t)
{
	struct jsonw rec = { 0 };
	jsonw_open(&rec, '{');
	jsonw_key(&rec, "type");
	jsonw_str(&rec, "done");
	jsonw_key(&rec, "task");
	jsonw_str(&rec, t->id);
	jsonw_close(&rec, '}');
	emit(&rec);
}
