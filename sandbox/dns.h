/* dns.h: a DNS query as a sandboxed task sends it, and the sandbox's answer.
 *
 * The task's network namespace has no resolver: the bridge answers every
 * query on its 127.0.0.1:53 with REFUSED and records the name asked, so a
 * tool that looks a host up itself (ignoring HTTP(S)_PROXY) is named. The
 * bytes come from the task, so from a possibly hostile writer: dns_parse()
 * reads only within len, follows no compression pointer, and accepts a name
 * only of host-name bytes (letters, digits, '-', '_'), at most 253
 * characters; dns_answer() writes at most cap bytes. Nothing is allocated.
 * The relay also notes which names went through the proxy (a lookup of one
 * of those is no sign of a tool ignoring it): dns_proxy_host().
 */
#ifndef VX_SANDBOX_DNS_H
#define VX_SANDBOX_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest query read over UDP or TCP: a name is at most 255 bytes on the
 * wire, so a plain query fits; an EDNS option past the question is cut. */
#define DNS_MAX_QUERY 512

enum dns_result {
	DNS_QUESTION, /* a query with one question: name and type are set */
	DNS_BAD,      /* a query whose question does not parse: FORMERR */
	DNS_IGNORE,   /* no query (too short, or a response): no answer */
};

struct dns_query {
	char name[254];  /* dotted, lowercase, no final dot; "" for the root */
	uint16_t type;   /* QTYPE */
	size_t qend;     /* where the question ends in the message */
};

/* Parse the query in msg[0..len). */
enum dns_result dns_parse(const unsigned char *msg, size_t len, struct dns_query *q);
/* Write the answer to the query parse gave res for: the header with QR set,
 * the same id, opcode and RD, rcode REFUSED (5) echoing the question for
 * DNS_QUESTION, FORMERR (1) with no question for DNS_BAD. The answer's
 * length, 0 for DNS_IGNORE or when cap is too small. */
size_t dns_answer(const unsigned char *msg, size_t len, enum dns_result res,
	const struct dns_query *q, unsigned char *out, size_t cap);
/* The host a request to the bridge's HTTP proxy port names, from its first
 * bytes: "CONNECT host:port ..." or "METHOD http://host[:port]/...". The
 * lowercase name into host (same rules as a query's name) and true; false
 * for anything else (an IP literal, a cut line, another protocol). */
bool dns_proxy_host(const unsigned char *buf, size_t len, char host[254]);
/* The type's mnemonic ("A", "AAAA", ...), or "TYPE<n>" written into buf. */
const char *dns_type_name(uint16_t type, char buf[12]);

#endif
