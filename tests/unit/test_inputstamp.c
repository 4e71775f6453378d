/* inputstamp.h: a stamp holds while nothing moves, moves with an edit, an
 * added file seen through its directory, a lockfile, and is null when a
 * path changed in the tick the keying began. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "inputstamp.h"
#include "path.h"
#include "unit.h"

static char root[] = "/tmp/vx-test-inputstamp-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = path_join(root, rel);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(p);
}

static bool lst(const char *rel, struct stat *st)
{
	char *p = path_join(root, rel);
	bool ok = lstat(p, st) == 0;
	free(p);
	return ok;
}

/* The stamp vx-key would give for the task in "p": its src/ and src/a.js,
 * a workspace file at the root, and the lockfiles as they are. */
static cJSON *take(int64_t since)
{
	struct inputstamp s = {0};
	struct stat st, a, w;
	const struct stat *lock[8] = {0};
	inputstamp_begin(&s, "p", since);
	inputstamp_add(&s, "p/src/", lst("p/src", &st) ? &st : NULL);
	inputstamp_add(&s, "p/src/a.js", lst("p/src/a.js", &a) ? &a : NULL);
	inputstamp_add(&s, "tsconfig.json", lst("tsconfig.json", &w) ? &w : NULL);
	inputstamp_add(&s, "p/package.json", NULL);
	inputstamp_lockfiles(&s, lock);
	cJSON *j = inputstamp_take(&s);
	inputstamp_free(&s);
	return j;
}

static int64_t later(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec + 1000000000;
}

int main(void)
{
	err_init("test_inputstamp");
	CHECK(mkdtemp(root) != NULL);
	char *d = path_join(root, "p"), *src = path_join(root, "p/src");
	mkdir(d, 0755);
	mkdir(src, 0755);
	put("p/src/a.js", "a");
	put("tsconfig.json", "{}");

	/* written now: racy against a keying that began earlier */
	cJSON *j = take(0);
	CHECK(cJSON_IsNull(j));
	CHECK(inputstamp_check(root, "p", j) == -1);
	cJSON_Delete(j);

	j = take(later());
	CHECK(cJSON_IsRaw(j)); /* written as made */
	cJSON *parsed = cJSON_Parse(j->valuestring);
	CHECK(cJSON_IsObject(parsed));
	const cJSON *paths = cJSON_GetObjectItem(parsed, "paths");
	CHECK(cJSON_GetArraySize(paths) == 4);
	CHECK_STR(cJSON_GetArrayItem(paths, 0)->valuestring, "src/");
	CHECK_STR(cJSON_GetArrayItem(paths, 1)->valuestring, "src/a.js");
	CHECK_STR(cJSON_GetArrayItem(paths, 2)->valuestring, "/tsconfig.json");
	CHECK_STR(cJSON_GetArrayItem(paths, 3)->valuestring, "package.json");
	CHECK(inputstamp_check(root, "p", j) == 1);
	CHECK(inputstamp_check(root, "p", parsed) == 1);
	cJSON_Delete(parsed);
	CHECK(inputstamp_check(root, "p", NULL) == -1);
	CHECK(inputstamp_check(root, NULL, j) == -1);
	/* a file added beside the input moves its directory */
	put("p/src/b.js", "b");
	CHECK(inputstamp_check(root, "p", j) == 0);
	cJSON_Delete(j);

	j = take(later());
	CHECK(inputstamp_check(root, "p", j) == 1);
	put("p/src/a.js", "edited"); /* an edit */
	CHECK(inputstamp_check(root, "p", j) == 0);
	cJSON_Delete(j);

	j = take(later());
	put("p/package.json", "{}"); /* absent, then present */
	CHECK(inputstamp_check(root, "p", j) == 0);
	cJSON_Delete(j);

	j = take(later());
	put("yarn.lock", ""); /* a root lockfile, unlisted */
	CHECK(inputstamp_check(root, "p", j) == 0);
	cJSON_Delete(j);

	j = take(later());
	put("tsconfig.json", "{ }"); /* outside the task's dir */
	CHECK(inputstamp_check(root, "p", j) == 0);
	cJSON_Delete(j);

	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", root) > 0 && system(cmd) != 0)
		fprintf(stderr, "unable to remove %s\n", root);
	free(cmd);
	free(d);
	free(src);
	return UNIT_END("inputstamp");
}
