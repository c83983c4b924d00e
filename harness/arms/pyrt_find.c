/*
 * pyrt_find.c - which Python, and what it says about itself (pyrt.h).
 *
 * The interpreter is run once, as a child process: argv is the program,
 * "-c" and the probe below; no shell, stdin from /dev/null, stdout and
 * stderr read through pipes under a deadline (a hung interpreter is
 * killed); nothing of the working directory is imported (probe_code). It runs with abbench's environment, so PYTHONPATH, a venv's
 * pyvenv.cfg and PYTHONHOME count exactly as they will for the embedded
 * interpreter. The probe prints one JSON object (parsed with jansson): its
 * version, implementation, sys.executable, prefixes, sys.path and what
 * sysconfig says of its library (Py_ENABLE_SHARED, LIBDIR, LDLIBRARY,
 * INSTSONAME, MULTIARCH, LIBPL), plus any libpython its own process has
 * mapped (/proc/self/maps: the real path when the interpreter is linked
 * against it). The probe is valid Python 2 too, so an old interpreter is
 * told "too old" rather than "not a Python".
 */
#include "arms/pyrt.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PROBE_OUT_MAX ((size_t)1 << 20)
#define PROBE_ERR_KEEP 2048

/* Its first statement drops sys.path[0], the '' that `-c` puts there for
 * the working directory (unless safe_path, -P, left it out), before any
 * import: so a json.py or types.py in abbench's working directory never
 * runs, and the path reported is the one any script of that interpreter
 * starts with. Python's own start-up (site, .pth files) does not look in
 * the working directory. Only that entry goes: PYTHONPATH, a venv and
 * the user's site directory count, as for the embedded interpreter (so
 * not -I, which would drop them too); the working directory itself is
 * kept, as a pyenv shim picks its version from .python-version there. */
#define PROBE_NO_CWD                                                                          \
	"import sys\n"                                                                          \
	"if sys.path and sys.path[0] == '' and not getattr(sys.flags, 'safe_path', False):\n" \
	"    del sys.path[0]\n"
static const char probe_code[] =
	PROBE_NO_CWD
	"import os, json\n"
	"try:\n"
	"    import sysconfig\n"
	"    v = sysconfig.get_config_var\n"
	"except ImportError:\n"
	"    v = lambda name: None\n"
	"p = list(sys.path)\n"
	"loaded = []\n"
	"try:\n"
	"    for line in open('/proc/self/maps'):\n"
	"        f = line.split()[-1]\n"
	"        if os.path.basename(f).startswith('libpython') and f not in loaded:\n"
	"            loaded.append(f)\n"
	"except (IOError, OSError, IndexError):\n"
	"    pass\n"
	"impl = getattr(sys, 'implementation', None)\n"
	"sys.stdout.write(json.dumps({'abbench_probe': 1,\n"
	"    'implementation': impl.name if impl else 'cpython',\n"
	"    'version': list(sys.version_info[:3]), 'executable': sys.executable,\n"
	"    'prefix': sys.prefix, 'base_prefix': getattr(sys, 'base_prefix', sys.prefix),\n"
	"    'shared': v('Py_ENABLE_SHARED'), 'libdir': v('LIBDIR'), 'ldlibrary': v('LDLIBRARY'),\n"
	"    'instsoname': v('INSTSONAME'), 'multiarch': v('MULTIARCH'), 'libpl': v('LIBPL'),\n"
	"    'loaded': loaded, 'path': p}))\n";

/* What the child printed and how it ended. */
struct probe_run {
	char *out;
	size_t out_len;
	char err[PROBE_ERR_KEEP]; /* the last bytes of its stderr */
	size_t err_len;
	int status;               /* waitpid's */
	bool timed_out;
};

/* ---- choosing the program --------------------------------------------------- */

/* Sets ip->program to name, or to name found on PATH when it has no '/'. */
static bool resolve(const char *name, struct pyrt_interp *ip)
{
	if (strchr(name, '/')) {
		snprintf(ip->program, sizeof ip->program, "%s", name);
		return true;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		char cand[PATH_MAX];
		snprintf(cand, sizeof cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
		if (access(cand, X_OK) == 0) {
			snprintf(ip->program, sizeof ip->program, "%s", cand);
			return true;
		}
		p += n + (p[n] == ':');
	}
	return false;
}

/* The advice every message ends with; Debian's interpreter as the
 * example when it is there and is not the one that failed. */
static const char *how_to_pick(const char *failed)
{
	bool debian = access("/usr/bin/python3", X_OK) == 0 && strcmp(failed, "/usr/bin/python3") != 0;
	return debian ? "pick one with ABBENCH_PYTHON, e.g. ABBENCH_PYTHON=/usr/bin/python3"
		      : "pick one with ABBENCH_PYTHON=/path/to/python3";
}

static enum ab_rc choose(const char *python, struct pyrt_interp *ip, struct ab_diag *d)
{
	const char *env = getenv("ABBENCH_PYTHON");
	const char *name = python ? python : env && *env ? env : "python3";
	snprintf(ip->chosen_by, sizeof ip->chosen_by, "%s", python ? "the caller" : env && *env ? "ABBENCH_PYTHON" : "PATH");
	struct stat st;
	if (!resolve(name, ip))
		return ab_fail(d, AB_ERR_INPUT, "no python interpreter: '%s' is not on PATH (install python3, or %s)", name,
			       how_to_pick(name));
	if (stat(ip->program, &st) != 0)
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s): %s (%s)", ip->program, ip->chosen_by,
			       strerror(errno), how_to_pick(ip->program));
	if (!S_ISREG(st.st_mode) || access(ip->program, X_OK) != 0)
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) is not an executable file (%s)", ip->program,
			       ip->chosen_by, how_to_pick(ip->program));
	return AB_OK;
}

/* ---- running the probe ------------------------------------------------------- */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Appends what fd has to the run's buffers; false at end of file. */
static bool drain(int fd, bool is_out, struct probe_run *r)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (is_out) {
		size_t room = PROBE_OUT_MAX - r->out_len;
		size_t take = (size_t)n < room ? (size_t)n : room;
		memcpy(r->out + r->out_len, buf, take);
		r->out_len += take;
	} else {
		size_t keep = sizeof r->err - 1;
		size_t k = (size_t)n > keep ? keep : (size_t)n;
		size_t old = r->err_len + k > keep ? keep - k : r->err_len;
		memmove(r->err, r->err + r->err_len - old, old);
		memcpy(r->err + old, buf + n - k, k);
		r->err_len = old + k;
	}
	return true;
}

/* Reads both pipes until both close or the deadline passes. */
static void collect(int out_fd, int err_fd, long deadline, struct probe_run *r)
{
	struct pollfd p[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
	while ((p[0].fd >= 0 || p[1].fd >= 0) && !r->timed_out) {
		long left = deadline - now_ms();
		if (left <= 0) {
			r->timed_out = true;
			break;
		}
		int k = poll(p, 2, (int)left);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2 && k > 0; i++)
			if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(p[i].fd, i == 0, r))
				p[i].fd = -1;
	}
}

/* Waits for the child until the deadline, then kills it. */
static void reap(pid_t pid, long deadline, struct probe_run *r)
{
	while (!r->timed_out) {
		pid_t w = waitpid(pid, &r->status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			return;
		if (now_ms() >= deadline)
			r->timed_out = true;
		else
			usleep(2000);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
}

static int spawn(const char *program, const char *code, int out[2], int err[2], pid_t *pid)
{
	char *argv[] = { (char *)program, "-c", (char *)code, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	int e = posix_spawn(pid, program, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

/* A pipe whose ends the child does not inherit (its stdout and stderr are
 * dup2'd copies). */
static int cloexec_pipe(int fd[2])
{
	if (pipe(fd) != 0)
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Runs `program -c code` under a deadline into r (r->out malloc'd, the
 * caller frees it): 0, or the errno of what failed (-1: no memory). */
static int run_child(const char *program, const char *code, int timeout_ms, struct probe_run *r)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t pid;
	memset(r, 0, sizeof *r);
	if (!(r->out = malloc(PROBE_OUT_MAX + 1)))
		return -1;
	if (cloexec_pipe(out) != 0 || cloexec_pipe(err) != 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (out[i] >= 0)
				close(out[i]);
			if (err[i] >= 0)
				close(err[i]);
		}
		return e;
	}
	int e = spawn(program, code, out, err, &pid);
	close(out[1]);
	close(err[1]);
	if (e == 0) {
		long deadline = now_ms() + timeout_ms;
		collect(out[0], err[0], deadline, r);
		reap(pid, deadline, r);
	}
	close(out[0]);
	close(err[0]);
	r->out[r->out_len] = '\0';
	r->err[r->err_len] = '\0';
	return e;
}

static enum ab_rc run_probe(const struct pyrt_interp *ip, int timeout_ms, struct probe_run *r, struct ab_diag *d)
{
	int e = run_child(ip->program, probe_code, timeout_ms, r);
	if (e < 0)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the python probe's buffer");
	if (e != 0)
		return ab_fail(d, AB_ERR_INPUT, "cannot run python '%s' (from %s): %s (%s)", ip->program, ip->chosen_by,
			       strerror(e), how_to_pick(ip->program));
	return AB_OK;
}

/* The last non-empty line of text, in line[len]. */
static void last_line(const char *text, char *line, size_t len)
{
	const char *end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	const char *start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(line, len, "%.*s", (int)(end - start), start);
}

/* A probe that did not answer: timed out, died, exited non-zero. */
static enum ab_rc probe_failed(const struct pyrt_interp *ip, const struct probe_run *r, int timeout_ms,
			       struct ab_diag *d)
{
	char why[256];
	last_line(r->err, why, sizeof why);
	if (r->timed_out)
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) did not answer within %.1f s (%s)", ip->program,
			       ip->chosen_by, timeout_ms / 1000.0, how_to_pick(ip->program));
	if (WIFSIGNALED(r->status))
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) was killed by signal %d%s%s", ip->program,
			       ip->chosen_by, WTERMSIG(r->status), why[0] ? ": " : "", why);
	return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) failed (exit status %d)%s%s (%s)", ip->program,
		       ip->chosen_by, WEXITSTATUS(r->status), why[0] ? ": " : "", why, how_to_pick(ip->program));
}

/* ---- reading the answer ------------------------------------------------------ */

static void copy_str(json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));
	snprintf(buf, len, "%s", s ? s : "");
}

static enum ab_rc read_path(json_t *o, struct pyrt_interp *ip, struct ab_diag *d)
{
	json_t *p = json_object_get(o, "path");
	size_t n = json_array_size(p);
	if (n && !(ip->path = calloc(n, sizeof *ip->path)))
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate sys.path");
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(p, i));
		if (!s)
			continue;
		if (!(ip->path[ip->n_path] = strdup(s)))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate sys.path");
		ip->n_path++;
	}
	return AB_OK;
}

/* The answer's version, implementation and paths into ip. */
static enum ab_rc read_answer(json_t *o, struct pyrt_interp *ip, struct ab_diag *d)
{
	json_t *v = json_object_get(o, "version");
	ip->major = (int)json_integer_value(json_array_get(v, 0));
	ip->minor = (int)json_integer_value(json_array_get(v, 1));
	ip->micro = (int)json_integer_value(json_array_get(v, 2));
	copy_str(o, "executable", ip->executable, sizeof ip->executable);
	copy_str(o, "prefix", ip->prefix, sizeof ip->prefix);
	const char *impl = json_string_value(json_object_get(o, "implementation"));
	if (impl && strcmp(impl, "cpython") != 0)
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) is %s %d.%d: abbench embeds CPython only (%s)",
			       ip->program, ip->chosen_by, impl, ip->major, ip->minor, how_to_pick(ip->program));
	if (ip->major < PYRT_MIN_MAJOR || (ip->major == PYRT_MIN_MAJOR && ip->minor < PYRT_MIN_MINOR))
		return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s) is %d.%d.%d, too old: abbench needs %d.%d or newer (%s)",
			       ip->program, ip->chosen_by, ip->major, ip->minor, ip->micro, PYRT_MIN_MAJOR,
			       PYRT_MIN_MINOR, how_to_pick(ip->program));
	return read_path(o, ip, d);
}

/* ---- finding libpython -------------------------------------------------------- */

static bool usable(const char *path, struct pyrt_interp *ip)
{
	struct stat st;
	if (!path[0] || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0)
		return false;
	if (!realpath(path, ip->libpython))
		snprintf(ip->libpython, sizeof ip->libpython, "%s", path);
	return true;
}

/* The library names an interpreter of this version may have. */
static int lib_names(json_t *o, const struct pyrt_interp *ip, char names[4][128])
{
	int n = 0;
	const char *inst = json_string_value(json_object_get(o, "instsoname"));
	const char *ld = json_string_value(json_object_get(o, "ldlibrary"));
	if (inst && *inst)
		snprintf(names[n++], 128, "%s", inst);
	if (ld && strstr(ld, ".so"))
		snprintf(names[n++], 128, "%s", ld);
	snprintf(names[n++], 128, "libpython%d.%d.so.1.0", ip->major, ip->minor);
	snprintf(names[n++], 128, "libpython%d.%d.so", ip->major, ip->minor);
	return n;
}

/* The folders a libpython may be in: sysconfig's, then the base prefix's. */
static int lib_dirs(json_t *o, char dirs[6][PATH_MAX])
{
	const char *libdir = json_string_value(json_object_get(o, "libdir"));
	const char *arch = json_string_value(json_object_get(o, "multiarch"));
	const char *libpl = json_string_value(json_object_get(o, "libpl"));
	const char *base = json_string_value(json_object_get(o, "base_prefix"));
	int n = 0;
	if (libdir && *libdir) {
		snprintf(dirs[n++], PATH_MAX, "%s", libdir);
		if (arch && *arch)
			snprintf(dirs[n++], PATH_MAX, "%.2000s/%.200s", libdir, arch);
	}
	if (libpl && *libpl)
		snprintf(dirs[n++], PATH_MAX, "%s", libpl);
	if (base && *base) {
		snprintf(dirs[n++], PATH_MAX, "%.2000s/lib", base);
		if (arch && *arch)
			snprintf(dirs[n++], PATH_MAX, "%.2000s/lib/%.200s", base, arch);
		snprintf(dirs[n++], PATH_MAX, "%.2000s/lib64", base);
	}
	return n;
}

static enum ab_rc find_lib(json_t *o, struct pyrt_interp *ip, struct ab_diag *d)
{
	json_t *loaded = json_object_get(o, "loaded");
	for (size_t i = 0; i < json_array_size(loaded); i++) {
		const char *s = json_string_value(json_array_get(loaded, i));
		if (s && strstr(s, ".so") && usable(s, ip))
			return AB_OK;
	}
	char names[4][128], dirs[6][PATH_MAX], cand[PATH_MAX];
	int nn = lib_names(o, ip, names), nd = lib_dirs(o, dirs);
	for (int i = 0; i < nd; i++)
		for (int k = 0; k < nn; k++) {
			snprintf(cand, sizeof cand, "%.3800s/%.200s", dirs[i], names[k]);
			if (usable(cand, ip))
				return AB_OK;
		}
	const char *ld = json_string_value(json_object_get(o, "ldlibrary"));
	json_t *shared = json_object_get(o, "shared");
	if (json_is_integer(shared) && json_integer_value(shared) == 0)
		return ab_fail(d, AB_ERR_INPUT,
			       "python '%s' (from %s) has no shared libpython: it was built without --enable-shared "
			       "(LDLIBRARY '%s', LIBDIR '%s'); abbench loads libpython at run time (%s)",
			       ip->program, ip->chosen_by, ld ? ld : "", nd ? dirs[0] : "", how_to_pick(ip->program));
	return ab_fail(d, AB_ERR_INPUT, "python '%s' (from %s): its libpython (%s) is in none of its folders (%s ...) (%s)",
		       ip->program, ip->chosen_by, names[0], nd ? dirs[0] : "none named", how_to_pick(ip->program));
}

/* ---- pyrt_find ------------------------------------------------------------------ */

/* The probe's answer: the JSON object on its last line (a sitecustomize
 * or a .pth file may print before it); AB_ERR_INPUT when there is none. */
static enum ab_rc parse(const struct pyrt_interp *ip, const struct probe_run *r, json_t **o, struct ab_diag *d)
{
	json_error_t je;
	char got[80];
	size_t end = r->out_len;
	while (end > 0 && (r->out[end - 1] == '\n' || r->out[end - 1] == '\r'))
		end--;
	size_t start = end;
	while (start > 0 && r->out[start - 1] != '\n')
		start--;
	*o = json_loadb(r->out + start, end - start, 0, &je);
	if (*o && json_is_object(*o) && json_integer_value(json_object_get(*o, "abbench_probe")) == 1)
		return AB_OK;
	json_decref(*o);
	*o = NULL;
	last_line(r->out, got, sizeof got);
	return ab_fail(d, AB_ERR_INPUT, "'%s' (from %s) is not a python interpreter: asked with -c, it printed %s%s%s (%s)",
		       ip->program, ip->chosen_by, got[0] ? "'" : "nothing", got, got[0] ? "'" : "", how_to_pick(ip->program));
}

enum ab_rc pyrt_find(const char *python, int timeout_ms, struct pyrt_interp *out, struct ab_diag *d)
{
	struct probe_run r = { 0 };
	json_t *o = NULL;
	memset(out, 0, sizeof *out);
	timeout_ms = timeout_ms > 0 ? timeout_ms : PYRT_PROBE_TIMEOUT_MS;
	enum ab_rc rc = choose(python, out, d);
	if (rc || (rc = run_probe(out, timeout_ms, &r, d)))
		goto done;
	if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		rc = probe_failed(out, &r, timeout_ms, d);
	else if (!(rc = parse(out, &r, &o, d)) && !(rc = read_answer(o, out, d)))
		rc = find_lib(o, out, d);
	json_decref(o);
done:
	if (rc)
		pyrt_interp_free(out);
	free(r.out);
	return rc;
}

void pyrt_interp_free(struct pyrt_interp *ip)
{
	for (int i = 0; i < ip->n_path; i++)
		free(ip->path[i]);
	free(ip->path);
	ip->path = NULL;
	ip->n_path = 0;
}

/* ---- another interpreter that has what a run needs ------------------------------ */

/* Whether path is one of the NULL-terminated list. */
static bool listed(const char *path, const char *const *list)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(path, list[i]))
			return true;
	return false;
}

/* Whether `path -c check` exits 0 within the hint's deadline; the working
 * directory dropped from sys.path first, as for the probe (a numpy.py
 * there neither runs nor passes for numpy). */
static bool runs_check(const char *path, const char *check)
{
	struct probe_run r;
	struct stat st;
	char code[1024];
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return false;
	if (snprintf(code, sizeof code, "%s%s\n", PROBE_NO_CWD, check) >= (int)sizeof code)
		return false;
	int e = run_child(path, code, PYRT_HINT_TIMEOUT_MS, &r);
	bool ok = e == 0 && !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
	free(r.out);
	return ok;
}

/* The candidates in order: python3 in each folder of PATH, then the
 * distribution's and a local install's; each once, at most
 * PYRT_HINT_MAX_TRIED of them. */
static int candidates(char cand[][PATH_MAX], int max)
{
	static const char *const fixed[] = { "/usr/bin/python3", "/usr/local/bin/python3" };
	const char *path = getenv("PATH");
	int n = 0;
	for (const char *p = path ? path : ""; *p && n < max;) {
		size_t len = strcspn(p, ":");
		if (len)
			snprintf(cand[n], PATH_MAX, "%.*s/python3", (int)len, p);
		bool dup = !len;
		for (int i = 0; !dup && i < n; i++)
			dup = !strcmp(cand[i], cand[n]);
		n += !dup;
		p += len + (p[len] == ':');
	}
	for (size_t k = 0; k < sizeof fixed / sizeof fixed[0] && n < max; k++) {
		bool dup = false;
		for (int i = 0; !dup && i < n; i++)
			dup = !strcmp(cand[i], fixed[k]);
		if (!dup)
			snprintf(cand[n++], PATH_MAX, "%s", fixed[k]);
	}
	return n;
}

bool pyrt_find_other(const char *check, const char *const *skip, char *buf, size_t len)
{
	char(*cand)[PATH_MAX] = malloc(PYRT_HINT_MAX_TRIED * sizeof *cand);
	bool found = false;
	if (!cand)
		return false;
	int n = candidates(cand, PYRT_HINT_MAX_TRIED);
	for (int i = 0; i < n && !found; i++) {
		if (listed(cand[i], skip) || !runs_check(cand[i], check))
			continue;
		snprintf(buf, len, "%s", cand[i]);
		found = true;
	}
	free(cand);
	return found;
}
