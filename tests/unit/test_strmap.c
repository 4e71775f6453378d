#include <stdio.h>
#include <stdlib.h>

#include "strmap.h"
#include "unit.h"

int main(void)
{
	static char keys[3000][16];
	struct strmap m;
	strmap_init(&m);
	strmap_prefetch(&m, "k0", false); /* an empty map: nothing to ask for */
	strmap_prefetch(&m, "k0", true);
	/* a reserve before any put, then more puts than it reserved */
	strmap_reserve(&m, 1000);
	CHECK(m.cap >= 2000 && m.len == 0);
	size_t cap = m.cap;
	for (int i = 0; i < 1000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		strmap_put(&m, keys[i], keys[i]);
	}
	CHECK(m.cap == cap); /* no growth within what was reserved */
	/* a reserve over a full map keeps every key */
	strmap_reserve(&m, 3000);
	CHECK(m.cap >= 6000 && m.len == 1000);
	for (int i = 1000; i < 3000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		strmap_put(&m, keys[i], keys[i]);
	}
	/* hints change nothing */
	for (int i = 0; i < 3000; i += 7) {
		strmap_prefetch(&m, keys[i], false);
		strmap_prefetch(&m, keys[i], true);
	}
	strmap_prefetch(&m, "absent", true);
	CHECK(m.len == 3000);
	int found = 0;
	for (int i = 0; i < 3000; i++)
		found += strmap_get(&m, keys[i]) == keys[i];
	CHECK(found == 3000);
	CHECK(strmap_get(&m, "k3000") == NULL);
	/* a smaller reserve changes nothing */
	cap = m.cap;
	strmap_reserve(&m, 10);
	CHECK(m.cap == cap && m.len == 3000);
	strmap_free(&m);
	return UNIT_END("strmap");
}
