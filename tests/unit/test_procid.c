/*
 * test_procid.c - process identities: this process is alive; a child that
 * exited is gone (reaped or still a zombie); a pid now used by another
 * process (same pid, other start time) is gone; a row of another host, of
 * another pid namespace or without an identity is unknown; an identity
 * from before the machine's last boot is gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/procid.h"

static void test_states(void **state)
{
	(void)state;
	char host[256], me[PROCID_MAX], other[PROCID_MAX + 32], child_id[PROCID_MAX];
	procid_host(host, sizeof host);
	procid_of(getpid(), me, sizeof me);
	assert_true(strlen(me) > 40); /* BOOT_ID/pid:[N]/TICKS */
	assert_int_equal(procid_state(host, getpid(), me), PROCID_ALIVE);

	/* the same pid with another start time: the pid was reused */
	snprintf(other, sizeof other, "%.*s999999999", (int)(strrchr(me, '/') - me + 1), me);
	assert_int_equal(procid_state(host, getpid(), other), PROCID_GONE);

	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	procid_of(child, child_id, sizeof child_id);
	assert_true(child_id[0] != '\0');
	/* a zombie until reaped: already gone. Wait for its exit without
	 * reaping it (WNOWAIT), not for a fixed time: a loaded machine may not
	 * run the child within one. */
	siginfo_t info;
	assert_int_equal(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
	assert_int_equal(procid_state(host, child, child_id), PROCID_GONE);
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(procid_state(host, child, child_id), PROCID_GONE);

	assert_int_equal(procid_state("another-host", getpid(), me), PROCID_UNKNOWN);
	assert_int_equal(procid_state(host, 0, ""), PROCID_UNKNOWN);
	assert_int_equal(procid_state(host, getpid(), ""), PROCID_UNKNOWN);
	/* another pid namespace on this boot: its pids are not ours to judge */
	size_t boot = strcspn(me, "/");
	snprintf(other, sizeof other, "%.*s/pid:[1]/123", (int)boot, me);
	assert_int_equal(procid_state(host, getpid(), other), PROCID_UNKNOWN);
	/* recorded before the last boot */
	snprintf(other, sizeof other, "00000000-0000-0000-0000-000000000000%s", me + boot);
	assert_int_equal(procid_state(host, getpid(), other), PROCID_GONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
