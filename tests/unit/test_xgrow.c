#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "unit.h"

int main(void)
{
	/* room for nr: nothing allocated until asked, then 64, then doubling */
	int *v = NULL;
	size_t n = 0, alloc = 0, grows = 0, last = 0;
	for (int i = 0; i < 100000; i++) {
		XGROW(v, n + 1, alloc);
		v[n++] = i;
		if (alloc != last) {
			grows++;
			last = alloc;
		}
	}
	CHECK(alloc >= n && grows < 20);
	CHECK(v[0] == 0 && v[99999] == 99999);
	free(v);

	/* a jump past twice the allocation lands at a doubling that holds it */
	char *b = NULL;
	alloc = 0;
	XGROW(b, 10, alloc);
	CHECK(b && alloc == 64);
	XGROW(b, 1000, alloc);
	CHECK(alloc == 1024);
	XGROW(b, 1000, alloc); /* enough room: no change */
	CHECK(alloc == 1024);
	free(b);

	/* a count past SIZE_MAX bytes dies as xrealloc does */
	pid_t pid = fork();
	if (pid == 0) {
		close(2);
		double *big = NULL;
		size_t a = 0;
		XGROW(big, SIZE_MAX / 4, a);
		_exit(0);
	}
	int st;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == VX_EXIT_FAIL);
	return UNIT_END("xgrow");
}
