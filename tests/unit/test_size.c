#include <stdio.h>

#include "size.h"
#include "unit.h"

static unsigned long long sz(const char *s)
{
	unsigned long long n = 12345;
	return size_parse(s, &n) == 0 ? n : ~0ULL;
}

int main(void)
{
	/* bytes, and each unit in either case, B or iB after it */
	CHECK(sz("0") == 0);
	CHECK(sz("1500") == 1500);
	CHECK(sz("10K") == 10240 && sz("10k") == 10240 && sz("10KB") == 10240);
	CHECK(sz("500M") == 500ULL << 20 && sz("500MiB") == 500ULL << 20 && sz("500mb") == 500ULL << 20);
	CHECK(sz("10G") == 10ULL << 30 && sz("10GiB") == 10ULL << 30);
	CHECK(sz("2T") == 2ULL << 40);
	CHECK(sz("7B") == 7);
	/* nothing else: empty, signs, spaces, other units, trailing text, overflow */
	const char *bad[] = {"", " 1G", "-1", "+1", "1 G", "1X", "1GG", "1Gi", "1GiBx", "G",
		"18446744073709551616", "16777216T", "0x10"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		unsigned long long n = 99;
		CHECK(size_parse(bad[i], &n) == -1 && n == 99);
	}
	CHECK(size_parse(NULL, &(unsigned long long){0}) == -1);
	CHECK(sz("16777215T") == 16777215ULL << 40);
	return UNIT_END("size");
}
