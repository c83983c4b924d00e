/*
 * plot_run.c - running gnuplot on a chart's script (plot.h), its PNG (or
 * SVG) read from a pipe into an outfile (common/outfile.h) of abbench's
 * own: a full disk is an IO error of the command, never a truncated chart,
 * and a temporary file is removed on a signal like any outfile's.
 */
#include "print/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"

bool plot_find_gnuplot(char *path, size_t len, char *why, size_t why_len)
{
	const char *env = getenv("PATH");
	for (const char *p = env ? env : ""; ; ) {
		size_t n = strcspn(p, ":"); /* an empty entry is the current directory */
		int w = snprintf(path, len, "%.*s/gnuplot", n ? (int)n : 1, n ? p : ".");
		if (w < (int)len && access(path, X_OK) == 0)
			return true;
		if (!p[n])
			break;
		p += n + 1;
	}
	snprintf(why, why_len, "gnuplot not found on PATH (install gnuplot, e.g. 'apt-get install gnuplot-nox')");
	return false;
}

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
static const unsigned char png_end[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };

/* A whole PNG: the signature first and the IEND chunk last (a PNG cut
 * short by a full disk keeps its signature). */
static bool png_whole(const unsigned char *head, size_t n_head, const unsigned char *tail, size_t n_tail)
{
	return n_head == sizeof png_signature && !memcmp(head, png_signature, sizeof png_signature) &&
	       n_tail == sizeof png_end && !memcmp(tail, png_end, sizeof png_end);
}

bool plot_png_valid(const char *path)
{
	unsigned char head[8], tail[12];
	size_t nh = 0, nt = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	nh = fread(head, 1, sizeof head, f);
	if (fseek(f, -(long)sizeof tail, SEEK_END) == 0)
		nt = fread(tail, 1, sizeof tail, f);
	fclose(f);
	return png_whole(head, nh, tail, nt);
}

/* Child side: run gnuplot in dir, the PNG to png_fd, messages to log_fd. */
static void exec_gnuplot(const char *gnuplot, const char *dir, const char *stem, int png_fd, int log_fd)
{
	char script[300];
	snprintf(script, sizeof script, "%s.gp", stem);
	dup2(png_fd, STDOUT_FILENO);
	dup2(log_fd, STDERR_FILENO);
	close(png_fd);
	close(log_fd);
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	if (chdir(dir) != 0) {
		dprintf(STDERR_FILENO, "cannot enter '%s': %s", dir, strerror(errno));
		_exit(126);
	}
	execl(gnuplot, "gnuplot", "-e", "outfile='/dev/stdout'", script, (char *)NULL);
	dprintf(STDERR_FILENO, "cannot run '%s': %s", gnuplot, strerror(errno));
	_exit(127);
}

/* What the reader of gnuplot's two pipes keeps: the PNG in the outfile,
 * its first and last bytes (a ring of n_seen so far) to check it, and the
 * messages' first log_len - 1 bytes. */
struct gp_read {
	struct outfile *png;
	unsigned char head[8], ring[12];
	size_t n_head, n_seen;
	char *log;
	size_t log_len, log_used;
};

static void png_bytes(struct gp_read *g, const unsigned char *b, size_t n)
{
	size_t w = fwrite(b, 1, n, g->png->f); /* a write error is sticky: the commit reports it */
	(void)w;
	for (size_t i = 0; i < n; i++) {
		if (g->n_head < sizeof g->head)
			g->head[g->n_head++] = b[i];
		g->ring[g->n_seen++ % sizeof g->ring] = b[i];
	}
}

/* Reads both pipes until both end (poll: neither can fill and block the
 * child while the other is read). */
static void drain(int png_fd, int log_fd, struct gp_read *g)
{
	struct pollfd fds[2] = { { png_fd, POLLIN, 0 }, { log_fd, POLLIN, 0 } };
	unsigned char chunk[65536];
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[k].fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fds[k].fd = -1;
				continue;
			}
			if (k == 0)
				png_bytes(g, chunk, (size_t)n);
			else /* the messages on one line */
				for (ssize_t i = 0; i < n && g->log_used + 1 < g->log_len; i++)
					g->log[g->log_used++] = chunk[i] == '\n' ? ' ' : (char)chunk[i];
		}
	}
	while (g->log_used && g->log[g->log_used - 1] == ' ')
		g->log_used--;
	g->log[g->log_used] = '\0';
}

static enum ab_rc spawn_gnuplot(const char *gnuplot, const char *dir, const char *stem, struct gp_read *g,
				int *status, struct ab_diag *d)
{
	int png[2] = { -1, -1 }, log[2] = { -1, -1 };
	pid_t pid = -1;
	enum ab_rc rc = AB_OK;
	if (pipe(png) != 0 || pipe(log) != 0)
		rc = ab_fail(d, AB_ERR_IO, "cannot create a pipe for gnuplot: %s", strerror(errno));
	else {
		fflush(NULL);
		if ((pid = fork()) < 0)
			rc = ab_fail(d, AB_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
	}
	if (rc != AB_OK) {
		for (int k = 0; k < 2; k++) { /* the ends that are open (-1: not) */
			close(png[k]);
			close(log[k]);
		}
		return rc;
	}
	if (pid == 0) {
		close(png[0]);
		close(log[0]);
		exec_gnuplot(gnuplot, dir, stem, png[1], log[1]);
	}
	close(png[1]);
	close(log[1]);
	drain(png[0], log[0], g);
	close(png[0]);
	close(log[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return ab_fail(d, AB_ERR_IO, "cannot wait for gnuplot: %s", strerror(errno));
	return AB_OK;
}

/* Whether the last bytes of an SVG close it: "</svg>" and then only
 * line ends (gnuplot writes two). */
static bool svg_closed(const unsigned char *tail, size_t n)
{
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		n--;
	return n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
}

static enum ab_rc render_as(const char *gnuplot, const char *dir, const char *stem, bool svg, struct ab_diag *d)
{
	char log[400], png[4096];
	unsigned char tail[12];
	struct outfile of;
	int status;
	enum ab_rc rc = plot_path(png, sizeof png, dir, stem, svg ? "svg" : "png", d);
	if (rc != AB_OK || (rc = outfile_open(&of, png, d)) != AB_OK)
		return rc;
	struct gp_read g = { .png = &of, .log = log, .log_len = sizeof log };
	errno = 0;
	if ((rc = spawn_gnuplot(gnuplot, dir, stem, &g, &status, d)) != AB_OK) {
		outfile_abort(&of);
		return rc;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		outfile_abort(&of);
		return ab_fail(d, AB_ERR_DATA, "gnuplot failed on '%s.gp': %s", stem, log[0] ? log : "no message");
	}
	size_t n_tail = g.n_seen < sizeof tail ? g.n_seen : sizeof tail;
	for (size_t i = 0; i < n_tail; i++) /* the ring's last bytes in order */
		tail[i] = g.ring[(g.n_seen - n_tail + i) % sizeof g.ring];
	bool whole = svg ? g.n_head >= 5 && !memcmp(g.head, "<?xml", 5) && svg_closed(tail, n_tail)
			 : png_whole(g.head, g.n_head, tail, n_tail);
	if (!whole && !ferror(of.f)) {
		outfile_abort(&of);
		return ab_fail(d, AB_ERR_DATA, "gnuplot wrote no valid %s for '%s.gp'%s%s", svg ? "SVG" : "PNG", stem,
			       log[0] ? ": " : "", log);
	}
	return outfile_commit(&of, d);
}

enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d)
{
	return render_as(gnuplot, dir, stem, false, d);
}

enum ab_rc plot_render_svg(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d)
{
	return render_as(gnuplot, dir, stem, true, d);
}
