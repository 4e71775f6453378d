/* vx-test-nouserns COMMAND [ARG]...: run COMMAND where new namespaces are
 * refused as Docker's default seccomp profile (and many CI runners', which
 * use it) refuses them to a container without CAP_SYS_ADMIN: unshare and
 * setns fail with EPERM, clone with any CLONE_NEW* flag fails with EPERM,
 * clone3 with ENOSYS (so glibc falls back to clone). Everything else is
 * allowed. A test helper (tests/vx-run-sandbox.bats), built beside the
 * programs but never installed. */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

int main(int argc, char **argv)
{
	static const unsigned long newns[] = {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP};
	scmp_filter_ctx f;
	int rc = 0;

	if (argc < 2) {
		fputs("usage: vx-test-nouserns COMMAND [ARG]...\n", stderr);
		return 2;
	}
	f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f) {
		fputs("vx-test-nouserns: seccomp_init failed\n", stderr);
		return 1;
	}
	rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
	rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
	rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	for (size_t i = 0; i < sizeof(newns) / sizeof(newns[0]); i++)
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, newns[i], newns[i]));
	if (rc || seccomp_load(f)) {
		fputs("vx-test-nouserns: unable to load the filter\n", stderr);
		seccomp_release(f);
		return 1;
	}
	seccomp_release(f);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "vx-test-nouserns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
