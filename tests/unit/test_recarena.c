/* key/recarena.c: records parsed, printed and taken back one after another,
 * small ones in the chunk and large ones spilling past it, print as they
 * were read (nothing of one reaches the next). Under ASan the chunk is
 * poisoned at each reset: a use after it is reported. */
#include <stdlib.h>
#include <string.h>

#include "recarena.h"
#include "unit.h"

static char *record(size_t n, int seed)
{
	/* {"id":"t<seed>","list":["<seed>-0",...]} with n items */
	size_t cap = 64 + n * 32, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len, "{\"id\":\"t%d\",\"list\":[", seed);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s\"%d-%zu\"", i ? "," : "", seed, i);
	snprintf(s + len, cap - len, "]}");
	return s;
}

int main(void)
{
	recarena_use_for_cjson();
	/* small, large (past the first chunk), small again, then larger still */
	static const size_t sizes[] = {3, 20000, 5, 1, 60000, 2, 100};
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
			int seed = (int)(round * 100 + i);
			char *text = record(sizes[i], seed);
			cJSON *rec = cJSON_Parse(text);
			CHECK(rec != NULL);
			cJSON *ans = cJSON_CreateObject();
			cJSON_AddItemToObject(ans, "id",
				cJSON_DetachItemFromObjectCaseSensitive(rec, "id"));
			char *out = cJSON_PrintUnformatted(rec), *a = cJSON_PrintUnformatted(ans);
			char want[32];
			snprintf(want, sizeof(want), "{\"id\":\"t%d\"}", seed);
			CHECK(a && strcmp(a, want) == 0);
			/* the record less its id, as it was read */
			CHECK(out && strncmp(out, "{\"list\":[", 9) == 0 &&
				strcmp(out + 9, strstr(text, "[") + 1) == 0);
			cJSON_free(out);
			cJSON_free(a);
			recarena_delete(ans);
			recarena_delete(rec);
			recarena_reset();
			free(text);
		}
	}
	recarena_stop();
	/* cJSON on malloc again */
	cJSON *j = cJSON_Parse("{\"a\":1}");
	CHECK(j && cJSON_GetObjectItem(j, "a")->valueint == 1);
	cJSON_Delete(j);
	return UNIT_END("recarena");
}
