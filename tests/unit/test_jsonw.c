#include <stdlib.h>

#include "jsonw.h"
#include "unit.h"

int main(void)
{
	struct jsonw w = {0};
	jsonw_open(&w, '{');
	jsonw_key(&w, "s");
	jsonw_str(&w, "a\"b\\c\n\t\r\x01 \xc3\xa9");
	jsonw_key(&w, "n");
	jsonw_num(&w, 42);
	jsonw_key(&w, "f");
	jsonw_num(&w, 1.5);
	jsonw_key(&w, "a");
	jsonw_open(&w, '[');
	jsonw_bool(&w, true);
	jsonw_null(&w);
	jsonw_str(&w, NULL);
	jsonw_open(&w, '{');
	jsonw_close(&w, '}');
	jsonw_close(&w, ']');
	jsonw_close(&w, '}');
	CHECK_STR(w.sb.buf, "{\"s\":\"a\\\"b\\\\c\\n\\t\\r\\u0001 \xc3\xa9\",\"n\":42,\"f\":1.5,\"a\":[true,null,null,{}]}");

	/* what it writes, cJSON reads back to the same value */
	cJSON *j = cJSON_Parse(w.sb.buf);
	CHECK(j && strcmp(cJSON_GetObjectItem(j, "s")->valuestring, "a\"b\\c\n\t\r\x01 \xc3\xa9") == 0);
	jsonw_reset(&w);
	jsonw_cjson(&w, j);
	cJSON *k = cJSON_Parse(w.sb.buf);
	CHECK(k && cJSON_Compare(j, k, 1));
	cJSON_Delete(j);
	cJSON_Delete(k);
	jsonw_free(&w);
	return UNIT_END("jsonw");
}
