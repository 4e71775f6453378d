/* fuzz_jsonl: the JSON-lines reader every stage reads its stdin with, over
 * arbitrary bytes, with a small line limit so the over-long path is hit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct jsonl_reader r;
	jsonl_reader_init(&r, f, "<fuzz>");
	r.max = 64 + data[0];
	cJSON *rec = NULL;
	for (int i = 0; i < 1000; i++) {
		int got = jsonl_read(&r, &rec);
		if (got == 0)
			break;
		if (got == 1) {
			if (!cJSON_IsObject(rec))
				abort(); /* the reader promises objects */
			char *s = cJSON_PrintUnformatted(rec);
			free(s);
			cJSON_Delete(rec);
		}
	}
	jsonl_reader_free(&r);
	fclose(f);
	return 0;
}
