/*
 * supervise.c - the supervisor of `abbench run` and what the run tells it
 * (supervise.h).
 *
 * The two processes share one anonymous page (struct state). The run
 * writes; the supervisor reads, and writes only limit_seq (the call it
 * found past its limit). A call is counted by seq: odd while a call runs,
 * so a call's identity is its odd seq, and the names and the limit (set
 * by supervise_slot between calls) are read after seq with acquire order.
 */
#include "run/supervise.h"

#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arms/pyrt.h"
#include "common/procid.h"
#include "run/interrupt.h"
#include "store/store.h"

struct state {
	_Atomic uint64_t seq;       /* calls begun and ended: odd while one runs */
	_Atomic int64_t begun_ns;   /* CLOCK_MONOTONIC when the call began */
	_Atomic int64_t limit_ns;   /* that call's limit; 0: none */
	_Atomic uint64_t limit_seq; /* the supervisor found call limit_seq past its limit */
	_Atomic int64_t run_id;     /* the run's row, 0 before it exists */
	_Atomic int done;           /* the run said all it had to say */
	_Atomic int status;         /* and exits with this */
	char case_name[64], arm[32], slot[8]; /* the slot at hand, for messages */
	double slot_limit_s;        /* its calls' limit */
	bool warmup;                /* the call running is the slot's warm-up */
};

static struct state local;          /* a process nobody supervises keeps its state here */
static struct state *st = &local;
static bool supervised;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool supervise_active(void)
{
	return supervised;
}

/* ---- the running side ---------------------------------------------------- */

void supervise_note_run(int64_t id)
{
	atomic_store(&st->run_id, id);
}

void supervise_slot(const char *case_name, const char *arm, const char *slot, double limit_s)
{
	snprintf(st->case_name, sizeof st->case_name, "%s", case_name);
	snprintf(st->arm, sizeof st->arm, "%s", arm);
	snprintf(st->slot, sizeof st->slot, "%s", slot);
	st->slot_limit_s = limit_s > 0 ? limit_s : 0;
}

void supervise_call_begin(bool warmup)
{
	double limit = st->slot_limit_s * (warmup ? SUPERVISE_WARMUP_FACTOR : 1);
	st->warmup = warmup;
	atomic_store(&st->limit_ns, (int64_t)(limit * 1e9));
	atomic_store(&st->begun_ns, now_ns());
	atomic_fetch_add(&st->seq, 1); /* odd: in the call (release: the fields above first) */
}

bool supervise_limit_hit(void)
{
	uint64_t seq = atomic_load(&st->seq);
	return (seq & 1) && atomic_load(&st->limit_seq) == seq;
}

/* "M.py:3: in spin" of pyrt's line for a call that raised Stopped: where
 * the call was when it was stopped; "" when the message is not one. The
 * place ends at ": _abbench_pyrt.Stopped" and starts after the ": " before
 * it: the CPU backend's "arm 'f': " and the CUDA backend's "sample 1: "
 * alike. */
void supervise_stopped_place(const char *msg, char *where, size_t len)
{
	const char *end = strstr(msg, ": _abbench_pyrt.Stopped");
	const char *in = NULL;
	where[0] = '\0';
	for (const char *p = msg; end && (p = strstr(p, ": in ")) && p < end; p++)
		in = p; /* the last ": in FUNC" before the exception's name */
	if (!in)
		return;
	const char *colon = in; /* back over LINE to the ':' after FILE */
	while (colon > msg && isdigit((unsigned char)colon[-1]))
		colon--;
	if (colon == in || colon == msg || colon[-1] != ':')
		return;
	const char *start = msg;
	for (const char *p = msg; (p = strstr(p, ": ")) && p < colon - 1; p++)
		start = p + 2;
	snprintf(where, len, "; stopped at %.*s", (int)(end - start), start);
}

enum ab_rc supervise_call_end(enum ab_rc rc, struct ab_diag *d)
{
	uint64_t seq = atomic_load(&st->seq);
	int64_t limit = atomic_load(&st->limit_ns), took = now_ns() - atomic_load(&st->begun_ns);
	bool hit = (atomic_load(&st->limit_seq) == seq || (limit > 0 && took > limit)) && rc != AB_ERR_INTERRUPTED;
	atomic_fetch_add(&st->seq, 1);
	if (!hit)
		return rc;
	char where[AB_DIAG_MAX / 2] = "";
	if (rc)
		supervise_stopped_place(d->msg, where, sizeof where);
	if (rc && !where[0]) /* not stopped where Python runs: what the call said is the clue */
		snprintf(where, sizeof where, "; the call then failed: %.*s", (int)(sizeof where - 32), d->msg);
	return ab_fail(d, AB_ERR_BACKEND, "arm '%s' (slot %s): a call ran past the limit of %g s%s (call_limit_s)%s",
		       st->arm, st->slot, (double)limit / 1e9, st->warmup ? " of a slot's first call" : "", where);
}

int supervise_done(int status)
{
	fflush(stdout);
	fflush(stderr);
	atomic_store(&st->status, status);
	atomic_store(&st->done, 1);
	return status;
}

/* SUPERVISE_LIMIT_SIGNAL in the run: the call at hand is past its limit;
 * a Python one is stopped (pyrt.h), native code cannot be. */
static void on_limit(int sig)
{
	(void)sig;
	if (supervise_limit_hit())
		pyrt_stop_call();
}

/* ---- the supervisor -------------------------------------------------------- */

/* What the supervisor saw of the run, for its messages. */
struct watch {
	const struct supervise_target *t;
	pid_t child;
	int signal;           /* the first SIGINT, SIGTERM or SIGHUP it got; 0 none */
	int64_t signal_due;   /* when the run must have ended by then */
	uint64_t limit_seq;   /* the call it found past its limit; 0 none */
	int64_t limit_due;    /* when that call must have returned */
};

/* "case 'c': arm 'f' (slot B): " of the call running, or "" between calls. */
static void call_context(char *buf, size_t len)
{
	if (atomic_load(&st->seq) & 1)
		snprintf(buf, len, "case '%s': arm '%s' (slot %s): ", st->case_name, st->arm, st->slot);
	else
		buf[0] = '\0';
}

/* Marks the run's row (if it has one) as status with msg, says so as
 * `abbench run` does, and returns exit. */
static int answer(const struct watch *w, const char *status, const char *msg, int exit)
{
	int64_t id = atomic_load(&st->run_id);
	struct ab_diag d = { "" };
	struct store *db = NULL;
	ab_error("%s", msg);
	if (!id)
		return exit;
	enum ab_rc rc = store_open(w->t->db_path, true, &db, &d);
	if (!rc)
		rc = !strcmp(status, "failed") ? store_fail_run(db, id, msg, &d) : store_interrupt_run(db, id, msg, &d);
	store_close(db);
	if (rc)
		ab_error("run %lld could not be marked %s: %s (it reads 'running' until a later abbench command on '%s' "
			 "finds its process gone and marks it interrupted)", (long long)id, status, d.msg, w->t->db);
	else
		fprintf(stderr, "abbench: run %lld marked %s in '%s'\n", (long long)id, status, w->t->db);
	return exit;
}

/* The run ended: its own status when it said it was done, else the
 * supervisor's answer. */
static int run_ended(const struct watch *w, int ws)
{
	char ctx[160], how[96], msg[AB_DIAG_MAX];
	if (atomic_load(&st->done))
		return WIFEXITED(ws) ? WEXITSTATUS(ws) : atomic_load(&st->status);
	int sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
	call_context(ctx, sizeof ctx);
	if (sig && sig == w->signal) { /* the signal forwarded, before the run caught such signals */
		snprintf(msg, sizeof msg, "%sinterrupted by %s", ctx, interrupt_signal_name(sig));
		return answer(w, "interrupted", msg, AB_EXIT_SIGNAL_BASE + sig);
	}
	if (sig)
		snprintf(how, sizeof how, "was killed by signal %d (%s)", sig, strsignal(sig));
	else
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(ws));
	bool crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT;
	snprintf(msg, sizeof msg, "%sabbench's run process %s %s, before it finished the run%s", ctx, how,
		 ctx[0] ? "during a call of the arm" : "outside any arm's call",
		 ctx[0] ? " (an arm must return: os._exit, exit() or a crash in it ends abbench)" : "");
	if (sig && !crash)
		return answer(w, "interrupted", msg, AB_EXIT_SIGNAL_BASE + sig);
	return answer(w, "failed", msg, AB_EXIT_FAILURE);
}

static void kill_and_reap(pid_t child)
{
	int ws;
	kill(child, SIGKILL);
	while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
		;
}

/* The run did not end 1.5 s after the first signal. */
static int signal_overdue(const struct watch *w)
{
	char ctx[160], msg[AB_DIAG_MAX];
	call_context(ctx, sizeof ctx);
	kill_and_reap(w->child);
	snprintf(msg, sizeof msg, "%sinterrupted by %s (%s did not return within %.1f s: abbench's run process was "
		 "killed)", ctx[0] ? ctx : "", interrupt_signal_name(w->signal), ctx[0] ? "the call" : "the run",
		 SUPERVISE_SIGNAL_GRACE_MS / 1e3);
	return answer(w, "interrupted", msg, AB_EXIT_SIGNAL_BASE + w->signal);
}

/* The call past its limit did not return 2 s after it was stopped. */
static int limit_overdue(const struct watch *w)
{
	char ctx[160], msg[AB_DIAG_MAX];
	call_context(ctx, sizeof ctx);
	double limit = (double)atomic_load(&st->limit_ns) / 1e9;
	kill_and_reap(w->child);
	snprintf(msg, sizeof msg, "%sa call ran past the limit of %g s (call_limit_s) and did not return within %.0f s of "
		 "being asked to stop (native code cannot be stopped, nor a call that swallows the stop): abbench's run "
		 "process was killed", ctx, limit,
		 SUPERVISE_LIMIT_GRACE_MS / 1e3);
	return answer(w, "failed", msg, AB_EXIT_FAILURE);
}

/* The call at hand against its limit: the stop asked when it passes it;
 * *wake the next moment worth looking again. */
static void check_limit(struct watch *w, int64_t now, int64_t *wake)
{
	uint64_t seq = atomic_load(&st->seq);
	int64_t limit = atomic_load(&st->limit_ns), due = atomic_load(&st->begun_ns) + limit;
	if (!(seq & 1) || limit <= 0 || w->limit_seq == seq)
		return;
	if (now < due) {
		*wake = due < *wake ? due : *wake;
		return;
	}
	w->limit_seq = seq;
	w->limit_due = now + SUPERVISE_LIMIT_GRACE_MS * 1000000LL;
	atomic_store(&st->limit_seq, seq);
	kill(w->child, SUPERVISE_LIMIT_SIGNAL);
}

/* Waits for the run; the exit status. */
static int watch_run(struct watch *w, const sigset_t *set)
{
	for (;;) {
		int ws;
		pid_t r = waitpid(w->child, &ws, WNOHANG);
		if (r == w->child)
			return run_ended(w, ws);
		int64_t now = now_ns(), wake = now + 1000000000;
		if (w->signal && now >= w->signal_due)
			return signal_overdue(w);
		if (w->limit_seq && w->limit_seq == atomic_load(&st->seq) && now >= w->limit_due)
			return limit_overdue(w);
		check_limit(w, now, &wake);
		if (w->signal && w->signal_due < wake)
			wake = w->signal_due;
		if (w->limit_seq && w->limit_seq == atomic_load(&st->seq) && w->limit_due < wake)
			wake = w->limit_due;
		int64_t left = wake > now ? wake - now : 0;
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		int sig = sigtimedwait(set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			if (!w->signal) {
				w->signal = sig;
				w->signal_due = now_ns() + SUPERVISE_SIGNAL_GRACE_MS * 1000000LL;
			}
			kill(w->child, sig);
		}
	}
}

/* In the run's process, right after the fork: the signals back as they
 * were, death with the supervisor, the limit's handler. */
static void become_run(pid_t supervisor, const sigset_t *old)
{
	struct sigaction sa;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != supervisor) /* it died before the line above */
		_exit(AB_EXIT_FAILURE);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_limit;
	sigemptyset(&sa.sa_mask);
	sigaction(SUPERVISE_LIMIT_SIGNAL, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	procid_set_owner((int64_t)supervisor);
	supervised = true;
}

bool supervise_fork(const struct supervise_target *t, int *status)
{
	struct state *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigset_t set, old;
	struct sigaction dfl;
	if (shared == MAP_FAILED) {
		ab_warn("run: no supervisor (cannot map its page: %s): an arm that ends the process is not answered for",
			strerror(errno));
		return true;
	}
	memset(shared, 0, sizeof *shared);
	sigemptyset(&set);
	for (int s = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD }; s < 4; s++)
		sigaddset(&set, sigs[s]);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL; /* SIGCHLD ignored by whoever started us would reap the run for us */
	sigaction(SIGCHLD, &dfl, NULL);
	fflush(stdout);
	fflush(stderr);
	sigprocmask(SIG_BLOCK, &set, &old); /* before the fork: no signal slips between */
	pid_t self = getpid(), child = fork();
	if (child < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		munmap(shared, sizeof *shared);
		ab_warn("run: no supervisor (cannot fork: %s): an arm that ends the process is not answered for",
			strerror(errno));
		return true;
	}
	st = shared;
	if (child == 0) {
		become_run(self, &old);
		return true;
	}
	struct watch w = { .t = t, .child = child };
	*status = watch_run(&w, &set);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return false;
}
