/*
 * cupti.c - CUPTI activity records, loaded with dlopen, joined to samples
 * by external correlation. See cupti.h for the protocol.
 *
 * Two halves: the record log (plain C over record bytes, testable without
 * libcupti) and the session (dlsym'd CUPTI entry points, buffer callbacks).
 * The types come from CUDA 13's cupti_activity.h; no CUPTI function is
 * linked, every call goes through a pointer resolved at load.
 */
#include "backend/cuda/cupti.h"

#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_check.h"

/* CUDA 13's kernel record. Later CUPTI versions append fields to it, so
 * the fields read here keep their offsets. */
typedef CUpti_ActivityKernel10 cupti_kernel_record;

#define CUPTI_MIN_VERSION 130000u          /* the xxyyzz scheme of CUDA 13 */
#define CUPTI_BUFFER_BYTES (8u << 20)      /* per buffer handed to CUPTI */
#define CUPTI_BUFFER_ALIGN 8u              /* ACTIVITY_RECORD_ALIGNMENT */
#define CUPTI_EXT_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0

/* ------------------------------------------------------------------ */
/* The record log                                                      */
/* ------------------------------------------------------------------ */

struct log_kernel {
	uint32_t name;  /* index into names */
	uint32_t corr;  /* CUPTI correlation id of the launching API call */
	uint64_t start, end;
};

struct log_corr {
	uint32_t corr;
	uint64_t ext;   /* the pushed external id: a sample id */
};

struct cupti_log {
	pthread_mutex_t mu;
	struct log_kernel *kernels;
	size_t n_kernels, cap_kernels;
	struct log_corr *corrs;
	size_t n_corrs, cap_corrs;
	char **names;   /* distinct kernel names, kept for the log's life */
	size_t n_names, cap_names;
	bool nomem;     /* an append failed since the last drain */
	int64_t bad_buffers;
};

enum ab_rc cupti_log_new(struct cupti_log **out, struct ab_diag *d)
{
	struct cupti_log *log = calloc(1, sizeof *log);
	if (!log)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the cupti record log");
	pthread_mutex_init(&log->mu, NULL);
	*out = log;
	return AB_OK;
}

void cupti_log_free(struct cupti_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n_names; i++)
		free(log->names[i]);
	free(log->names);
	free(log->kernels);
	free(log->corrs);
	pthread_mutex_destroy(&log->mu);
	free(log);
}

/* Makes room for one more element of size sz in *arr; false on NOMEM. */
static bool log_grow(void **arr, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 256;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

/* Index of name in the table, added when new. A slot has a handful of
 * distinct kernels, so a linear search is the cheap choice. */
static bool log_intern(struct cupti_log *log, const char *name, uint32_t *idx)
{
	for (size_t i = 0; i < log->n_names; i++) {
		if (!strcmp(log->names[i], name)) {
			*idx = (uint32_t)i;
			return true;
		}
	}
	if (!log_grow((void **)&log->names, log->n_names, &log->cap_names, sizeof *log->names))
		return false;
	char *copy = strdup(name);
	if (!copy)
		return false;
	log->names[log->n_names] = copy;
	*idx = (uint32_t)log->n_names++;
	return true;
}

static void log_add_kernel(struct cupti_log *log, const cupti_kernel_record *r)
{
	struct log_kernel k = {.corr = r->correlationId, .start = r->start, .end = r->end};
	if (!log_intern(log, r->name ? r->name : "(unnamed kernel)", &k.name) ||
	    !log_grow((void **)&log->kernels, log->n_kernels, &log->cap_kernels, sizeof *log->kernels)) {
		log->nomem = true;
		return;
	}
	log->kernels[log->n_kernels++] = k;
}

static void log_add_corr(struct cupti_log *log, const CUpti_ActivityExternalCorrelation *r)
{
	if (r->externalKind != CUPTI_EXT_KIND)
		return;
	if (!log_grow((void **)&log->corrs, log->n_corrs, &log->cap_corrs, sizeof *log->corrs)) {
		log->nomem = true;
		return;
	}
	log->corrs[log->n_corrs++] = (struct log_corr){.corr = r->correlationId, .ext = r->externalId};
}

void cupti_log_parse(struct cupti_log *log, uint8_t *buf, size_t valid, cupti_next_fn next)
{
	void *rec = NULL;
	int got;
	pthread_mutex_lock(&log->mu);
	while ((got = next(buf, valid, &rec)) == 1) {
		const CUpti_Activity *a = rec;
		if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL)
			log_add_kernel(log, rec);
		else if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
			log_add_corr(log, rec);
	}
	if (got < 0)
		log->bad_buffers++;
	pthread_mutex_unlock(&log->mu);
}

static int corr_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct log_corr *)a)->corr, y = ((const struct log_corr *)b)->corr;
	return (x > y) - (x < y);
}

/* The sample id a kernel's correlation id was pushed under, or
 * ATTRIB_UNTIMED. corrs is sorted. */
static uint32_t log_sample_of(const struct cupti_log *log, uint32_t corr)
{
	struct log_corr key = {.corr = corr};
	const struct log_corr *hit = bsearch(&key, log->corrs, log->n_corrs, sizeof key, corr_cmp);
	if (!hit || hit->ext == ATTRIB_UNTIMED || hit->ext > UINT32_MAX)
		return ATTRIB_UNTIMED;
	return (uint32_t)hit->ext;
}

/* Feeds every logged kernel to k; stops at the first collector error. */
static enum ab_rc log_feed(struct cupti_log *log, struct attrib_collector *k, struct cupti_counts *n,
			   struct ab_diag *d)
{
	qsort(log->corrs, log->n_corrs, sizeof *log->corrs, corr_cmp);
	n->correlations += (int64_t)log->n_corrs;
	for (size_t i = 0; i < log->n_kernels; i++) {
		const struct log_kernel *kr = &log->kernels[i];
		uint32_t sid = log_sample_of(log, kr->corr);
		n->kernels++;
		n->timed += sid != ATTRIB_UNTIMED;
		n->zero_ts += kr->start == 0 || kr->end == 0;
		if (k) {
			enum ab_rc rc = attrib_add(k, log->names[kr->name], kr->start, kr->end, sid, d);
			if (rc)
				return rc;
		}
	}
	return AB_OK;
}

enum ab_rc cupti_log_drain(struct cupti_log *log, struct attrib_collector *k, struct cupti_counts *n,
			   struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	pthread_mutex_lock(&log->mu);
	if (log->nomem)
		rc = ab_fail(d, AB_ERR_NOMEM, "cannot store cupti activity records: out of memory");
	else
		rc = log_feed(log, k, n, d);
	n->bad_buffers += log->bad_buffers;
	log->bad_buffers = 0;
	log->n_kernels = 0;
	log->n_corrs = 0;
	log->nomem = false;
	pthread_mutex_unlock(&log->mu);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The session                                                         */
/* ------------------------------------------------------------------ */

/* One pointer per CUPTI entry point, named after it so that AB_CHECK's
 * call text names the real function. */
struct cupti_fns {
	__typeof__(cuptiGetVersion) *cuptiGetVersion;
	__typeof__(cuptiGetResultString) *cuptiGetResultString;
	__typeof__(cuptiActivityEnable) *cuptiActivityEnable;
	__typeof__(cuptiActivityDisable) *cuptiActivityDisable;
	__typeof__(cuptiActivityRegisterCallbacks) *cuptiActivityRegisterCallbacks;
	__typeof__(cuptiActivityFlushAll) *cuptiActivityFlushAll;
	__typeof__(cuptiActivityGetNextRecord) *cuptiActivityGetNextRecord;
	__typeof__(cuptiActivityGetNumDroppedRecords) *cuptiActivityGetNumDroppedRecords;
	__typeof__(cuptiActivityPushExternalCorrelationId) *cuptiActivityPushExternalCorrelationId;
	__typeof__(cuptiActivityPopExternalCorrelationId) *cuptiActivityPopExternalCorrelationId;
};

struct cupti {
	void *lib;
	char path[256];
	uint32_t version;
	struct cupti_fns f;
	struct cupti_log *log;
	bool started, enabled, runtime;
};

/* CUPTI's buffer callbacks carry no user pointer: the started session is
 * a file-level pointer, guarded because CUPTI may call from its thread. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cupti *g_session;
/* The loaded library's entry points for the error text and the iterator. */
static __typeof__(cuptiGetResultString) *g_result_string;
static __typeof__(cuptiActivityGetNextRecord) *g_next_record;

static const char *cupti_errstr(int code)
{
	const char *s = NULL;
	if (g_result_string && g_result_string((CUptiResult)code, &s) != CUPTI_SUCCESS)
		s = NULL;
	return s;
}

static const struct ab_api cupti_api = {"cupti", cupti_errstr};

/* cuptiActivityGetNextRecord in cupti_next_fn's shape. */
static int cupti_next_record(uint8_t *buf, size_t valid, void **rec)
{
	CUpti_Activity *a = *rec;
	CUptiResult r = g_next_record(buf, valid, &a);
	*rec = a;
	if (r == CUPTI_SUCCESS)
		return 1;
	return r == CUPTI_ERROR_MAX_LIMIT_REACHED ? 0 : -1;
}

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(CUPTI_BUFFER_ALIGN, CUPTI_BUFFER_BYTES);
	*size = *buffer ? CUPTI_BUFFER_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
					     size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	pthread_mutex_lock(&g_mu);
	if (g_session && valid > 0)
		cupti_log_parse(g_session->log, buffer, valid, cupti_next_record);
	pthread_mutex_unlock(&g_mu);
	free(buffer);
}

/* Resolves every entry point; false with the missing name in why. */
static bool cupti_resolve(struct cupti *c, char *why, size_t len)
{
#define CUPTI_SYM(fn) {#fn, (void **)&c->f.fn}
	const struct {
		const char *name;
		void **slot;
	} syms[] = {
		CUPTI_SYM(cuptiGetVersion), CUPTI_SYM(cuptiGetResultString), CUPTI_SYM(cuptiActivityEnable),
		CUPTI_SYM(cuptiActivityDisable), CUPTI_SYM(cuptiActivityRegisterCallbacks),
		CUPTI_SYM(cuptiActivityFlushAll), CUPTI_SYM(cuptiActivityGetNextRecord),
		CUPTI_SYM(cuptiActivityGetNumDroppedRecords), CUPTI_SYM(cuptiActivityPushExternalCorrelationId),
		CUPTI_SYM(cuptiActivityPopExternalCorrelationId),
	};
#undef CUPTI_SYM
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		*syms[i].slot = dlsym(c->lib, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(why, len, "lacks '%s'", syms[i].name);
			return false;
		}
	}
	return true;
}

/* Opens one candidate and checks its API version; false with the reason
 * in why (the library is closed again: nothing of it was used). */
static bool cupti_try(struct cupti *c, const char *path, char *why, size_t len)
{
	c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		const char *err = dlerror();
		snprintf(why, len, "%s", err ? err : "cannot open");
		return false;
	}
	bool ok = cupti_resolve(c, why, len);
	if (ok && c->f.cuptiGetVersion(&c->version) != CUPTI_SUCCESS) {
		snprintf(why, len, "cuptiGetVersion failed");
		ok = false;
	} else if (ok && c->version < CUPTI_MIN_VERSION) {
		snprintf(why, len, "api version %u is older than cuda 13's %u", c->version, CUPTI_MIN_VERSION);
		ok = false;
	}
	if (!ok) {
		dlclose(c->lib);
		memset(c, 0, sizeof *c);
		return false;
	}
	snprintf(c->path, sizeof c->path, "%.255s", path);
	return true;
}

/* The candidate paths, in order; returns how many were written. */
static int cupti_candidates(char paths[][256], int max)
{
	const char *env = getenv("ABBENCH_CUPTI");
	const char *home = getenv("CUDA_HOME");
	int n = 0;
	if (env && *env) {
		snprintf(paths[n++], 256, "%s", env);
		return n;
	}
	snprintf(paths[n++], 256, "libcupti.so.13");
	snprintf(paths[n++], 256, "libcupti.so");
	snprintf(paths[n++], 256, "/usr/local/cuda/lib64/libcupti.so.13");
	snprintf(paths[n++], 256, "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
	if (home && *home && n + 2 <= max) {
		snprintf(paths[n++], 256, "%.200s/lib64/libcupti.so.13", home);
		snprintf(paths[n++], 256, "%.200s/extras/CUPTI/lib64/libcupti.so.13", home);
	}
	return n;
}

/* Appends "'path' (why)" to the list of attempts, truncating. */
static void append_attempt(char *list, size_t cap, const char *path, const char *why)
{
	size_t used = strlen(list);
	if (used + 1 >= cap)
		return;
	snprintf(list + used, cap - used, "%s'%.160s' (%.160s)", used ? ", " : "", path, why);
}

enum ab_rc cupti_load(struct cupti **out, struct ab_diag *d)
{
	char paths[6][256], why[256] = "", tried[AB_DIAG_MAX] = "";
	int n = cupti_candidates(paths, 6);
	struct cupti *c = calloc(1, sizeof *c);
	if (!c)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the cupti session");
	for (int i = 0; i < n; i++) {
		if (cupti_try(c, paths[i], why, sizeof why)) {
			enum ab_rc rc = cupti_log_new(&c->log, d);
			if (rc) {
				free(c);
				return rc;
			}
			*out = c;
			return AB_OK;
		}
		append_attempt(tried, sizeof tried, paths[i], why);
	}
	free(c);
	return ab_fail(d, AB_ERR_BACKEND, "cannot load libcupti: tried %s", tried);
}

const char *cupti_library(const struct cupti *c)
{
	return c->path;
}

uint32_t cupti_version(const struct cupti *c)
{
	return c->version;
}

/* The kinds enabled together. DRIVER only so that CUPTI writes the
 * external-correlation records (it emits them next to API records);
 * RUNTIME joins them when cupti_trace_runtime asks (see there). */
static const CUpti_ActivityKind cupti_kinds[] = {
	CUPTI_ACTIVITY_KIND_DRIVER,
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_RUNTIME,
};

enum ab_rc cupti_enable(struct cupti *c, bool on, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	size_t n = sizeof cupti_kinds / sizeof cupti_kinds[0] - (c->runtime ? 0 : 1);
	for (size_t i = 0; !rc && i < n; i++) {
		if (on)
			rc = AB_CHECK(d, &cupti_api, c->f.cuptiActivityEnable(cupti_kinds[i]));
		else
			rc = AB_CHECK(d, &cupti_api, c->f.cuptiActivityDisable(cupti_kinds[i]));
	}
	if (!rc)
		c->enabled = on;
	return rc;
}

enum ab_rc cupti_trace_runtime(struct cupti *c, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	if (c->enabled && !c->runtime)
		rc = AB_CHECK(d, &cupti_api, c->f.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
	if (!rc)
		c->runtime = true;
	return rc;
}

enum ab_rc cupti_start(struct cupti *c, struct ab_diag *d)
{
	pthread_mutex_lock(&g_mu);
	if (g_session && g_session != c) {
		pthread_mutex_unlock(&g_mu);
		return ab_fail(d, AB_ERR_INTERNAL, "a cupti session is already started in this process");
	}
	g_session = c;
	g_result_string = c->f.cuptiGetResultString;
	g_next_record = c->f.cuptiActivityGetNextRecord;
	pthread_mutex_unlock(&g_mu);
	/* The callbacks are this file's functions: registering them once per
	 * process serves every later session. */
	static bool registered;
	enum ab_rc rc = AB_OK;
	if (!registered)
		rc = AB_CHECK(d, &cupti_api,
			      c->f.cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed));
	registered = rc == AB_OK;
	if (!rc)
		rc = cupti_enable(c, true, d);
	c->started = rc == AB_OK;
	if (rc) {
		pthread_mutex_lock(&g_mu);
		g_session = NULL;
		pthread_mutex_unlock(&g_mu);
	}
	return rc;
}

enum ab_rc cupti_push(struct cupti *c, uint32_t sample_id, struct ab_diag *d)
{
	return AB_CHECK(d, &cupti_api, c->f.cuptiActivityPushExternalCorrelationId(CUPTI_EXT_KIND, sample_id));
}

enum ab_rc cupti_pop(struct cupti *c, struct ab_diag *d)
{
	uint64_t last = 0;
	return AB_CHECK(d, &cupti_api, c->f.cuptiActivityPopExternalCorrelationId(CUPTI_EXT_KIND, &last));
}

enum ab_rc cupti_collect(struct cupti *c, struct attrib_collector *k, struct cupti_counts *n, struct ab_diag *d)
{
	size_t dropped = 0;
	enum ab_rc rc;
	if ((rc = AB_CHECK(d, &cupti_api, c->f.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED))) ||
	    (rc = AB_CHECK(d, &cupti_api, c->f.cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped))))
		return rc;
	n->dropped += (int64_t)dropped;
	return cupti_log_drain(c->log, k, n, d);
}

void cupti_close(struct cupti *c)
{
	if (!c)
		return;
	if (c->started) {
		/* Best effort: the session is going away whatever CUPTI says. */
		if (c->enabled)
			cupti_enable(c, false, NULL);
		c->f.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		pthread_mutex_lock(&g_mu);
		g_session = NULL;
		pthread_mutex_unlock(&g_mu);
	}
	cupti_log_free(c->log);
	free(c);
}
