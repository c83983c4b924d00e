/*
 * backend_cpu.c - the CPU backend: the same sites computed in C.
 *
 * Not a mock: every step computes its output. It exists so that the whole
 * pipeline runs and is tested without a GPU, and as an executable
 * specification of the arithmetic. Each step of a variant is timed with the
 * monotonic clock (timing = events: wall time) or, with timing = cpu, the
 * process's CPU clock (CLOCK_PROCESS_CPUTIME_ID: the time its threads ran
 * on a core, so that the time a step waited while other processes had the
 * core is not charged to it: on the project's shared 2-core VM, under a
 * load of about 4, the wall clock left every glm_cpu case drifted, 2-34%
 * between A1 and A2, and the CPU clock none, 0.5-3.7%), and fed to the
 * same attribution collector that CUPTI records feed on the CUDA backend.
 * A step's CPU time sums its threads': an arm that runs on several
 * threads is charged its work, not its latency. "L2 flush" here writes a buffer larger
 * than the last-level cache before every sample, outside the timed span.
 *
 * ABBENCH_FAKE_TIMER=1 replaces the clock by a deterministic cost model
 * (every step still computes its outputs): a step costs 2 us plus 0.5 ns per
 * element of the case's activation, times 1 + 0.5% seeded noise keyed by the
 * sample id and step. An eager chain of four steps thus costs about four
 * times a one-step fused arm on any machine, so the CLI tests of the gate,
 * compare and report get the same verdicts everywhere (hyperfine tests its
 * CLI with a fake timer for the same reason). Runs made with it say so in
 * their device name and record it (runs.fake_timer). ABBENCH_CPU_DEVICES=N
 * gives it N devices (tests of --devices).
 *
 * ABBENCH_FAKE_DRIFT plants a drift of the machine into the fake timer,
 * for the tests of the brackets that cancel one: every step's cost is
 * scaled by a factor of the case's modelled time so far (the fake clock,
 * which every call of the case advances, warm-ups included, from 0 at
 * case_begin): `linear:PCT@MS`, PCT percent more for every MS ms of it
 * (1 + PCT/100 x t/MS), or `step:PCT@MS`, PCT percent more from its MS-th
 * ms on. Both arms and the copy floor alike: it is the machine that moves.
 *
 * Copy bandwidth: the best of a few memcpy of CPU_COPY_BYTES, counted read
 * + write like the CUDA backend's device copy. Under the fake timer it is
 * the fastest rate the cost model lets a step move, CPU_FAKE_COPY_GBPS:
 * the fused qk step moves q, k, q_out and k_out, 8 bytes per activation
 * element, in 0.5 ns: 16 GB/s, which it approaches on a large shape as its
 * fixed 2 us fades, so no arm passes 100% of copy. The fake device has a
 * uuid of its own so that this figure is never cached for the real CPU.
 *
 * An arm from outside abbench (a plugin's cpu function, site_ext_arm) is
 * one timed step. Every tensor buffer has guard bytes at both ends
 * (guard.h), filled when a slot begins and checked when it ends.
 *
 * The copy floor (copy_floor.h) is one method, "memcpy": the case's
 * minimum bytes read once and written once by memcpy, one timed step. Its
 * working set is the case's, so for a case that fits in the cache it runs
 * at cache speed, above the device copy bandwidth (a DRAM copy of 64 MiB).
 * Under the fake timer it costs 2 us plus its bytes at CPU_FAKE_COPY_GBPS:
 * no arm of the cost model moves its bytes faster.
 */
#include "backend/backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend/copy_floor.h"
#include "backend/guard.h"
#include "common/numparse.h"
#include "common/rng.h"
#include "kernels/common/site.h"

#define CPU_FLUSH_BYTES (64u << 20)
#define CPU_COPY_BYTES ((size_t)64 << 20)
#define CPU_COPY_REPS 3
#define CPU_FAKE_COPY_GBPS 16.0

/* A drift planted into the fake timer (ABBENCH_FAKE_DRIFT, above). */
enum cpu_drift_kind { CPU_DRIFT_NONE, CPU_DRIFT_LINEAR, CPU_DRIFT_STEP };

struct cpu_drift {
	enum cpu_drift_kind kind;
	double pct, at_ns;
};

struct backend {
	struct bk_options opt;
	bool fake_timer;
	struct cpu_drift drift;
	double fake_clock_ns; /* the case's modelled time so far (fake timer) */
	unsigned char *flush_buf;
	const struct site_desc *site;
	struct site_args args; /* our own copies of every tensor */
	size_t bytes[SITE_MAX_TENSORS];
	char case_name[64];
	char arm[32];
	/* the copy floor's one method: a variant of our own, planned per slot */
	struct copy_floor_plan floor_plan;
	struct site_ext_arm floor_ext;
	struct site_variant floor_var;
	const struct site_ext_arm *ext; /* the slot's arm from outside, for slot_end */
};

static int cpu_floor_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len);
static int cpu_floor_step(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err,
			  size_t len);

static bool cpu_env_fake_timer(void)
{
	const char *fake = getenv("ABBENCH_FAKE_TIMER");
	return fake && !strcmp(fake, "1");
}

static bool cpu_fake_timer(struct backend *b)
{
	return b->fake_timer;
}

/* ABBENCH_FAKE_DRIFT's value: KIND:PCT@MS. AB_ERR_USAGE for anything
 * else, or without the fake timer (a real clock's drift is the machine's). */
static enum ab_rc cpu_drift_parse(const char *text, bool fake_timer, struct cpu_drift *out, struct ab_diag *d)
{
	static const char *const kinds[] = { [CPU_DRIFT_LINEAR] = "linear", [CPU_DRIFT_STEP] = "step" };
	char buf[64], *colon, *at = NULL;
	double ms = 0;
	memset(out, 0, sizeof *out);
	if (!text || !*text)
		return AB_OK;
	if (!fake_timer)
		return ab_fail(d, AB_ERR_USAGE, "ABBENCH_FAKE_DRIFT plants a drift into the fake timer: set "
			       "ABBENCH_FAKE_TIMER=1 too");
	snprintf(buf, sizeof buf, "%s", text);
	colon = strchr(buf, ':');
	if (colon && (at = strchr(colon, '@'))) {
		*colon = *at = '\0';
		for (int k = CPU_DRIFT_LINEAR; k <= CPU_DRIFT_STEP; k++)
			if (!strcmp(buf, kinds[k]))
				out->kind = (enum cpu_drift_kind)k;
	}
	if (!out->kind || !numparse_double(colon + 1, &out->pct) || !(out->pct > -100) || out->pct > 1000 ||
	    !numparse_double(at + 1, &ms) || !(ms > 0))
		return ab_fail(d, AB_ERR_USAGE, "ABBENCH_FAKE_DRIFT='%s' is not linear:PCT@MS or step:PCT@MS (PCT above "
			       "-100 and at most 1000, MS above 0)", text);
	out->at_ns = ms * 1e6;
	return AB_OK;
}

/* The planted drift's factor at the fake clock t (ns into the case). */
static double cpu_drift_factor(const struct cpu_drift *dr, double t)
{
	switch (dr->kind) {
	case CPU_DRIFT_LINEAR: return 1 + dr->pct / 100 * t / dr->at_ns;
	case CPU_DRIFT_STEP: return t >= dr->at_ns ? 1 + dr->pct / 100 : 1;
	case CPU_DRIFT_NONE: break;
	}
	return 1;
}

/* The code a variant has for this backend, NULL for an arm from outside
 * or a variant without it. */
static const struct site_cpu_impl *cpu_impl(const struct site_variant *v)
{
	return v->ext ? NULL : site_variant_impl(v, SITE_IMPL_CPU);
}

static bool cpu_supports(const struct site_variant *v)
{
	return v->ext ? site_ext_callable(v->ext, SITE_EXT_HOST) : cpu_impl(v) != NULL;
}

/* What cpu_case_begin allocates for tensor t: the tensor and its guard
 * zones (cpu_case_memory counts the same). */
static size_t cpu_tensor_alloc(const struct site_tensor *t, const struct site_dims *dims)
{
	return (size_t)site_tensor_bytes(t, dims) + 2 * GUARD_BYTES;
}

/* The allocation of tensor i: GUARD_BYTES before the tensor. */
static unsigned char *cpu_base(const struct backend *b, int i)
{
	return (unsigned char *)b->args.t[i] - GUARD_BYTES;
}

static bool cpu_available(char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	return true;
}

/* One device: the CPU. ABBENCH_CPU_DEVICES=N (a test hook, like the fake
 * timer) makes it N interchangeable ones, so that `run --devices` and its
 * workers are tested without a GPU. */
static int cpu_device_count(void)
{
	const char *env = getenv("ABBENCH_CPU_DEVICES");
	int n = 1;
	if (env && *env && (!numparse_int(env, &n) || n < 1))
		n = 1;
	return n;
}

static enum ab_rc cpu_open(struct backend **out, const struct bk_options *o, struct ab_diag *d)
{
	int n = cpu_device_count();
	/* A device the backend does not have is bad usage (exit 2), as on CUDA. */
	if (o->device_index < 0 || o->device_index >= n)
		return ab_fail(d, AB_ERR_USAGE, "cpu device %d does not exist: the cpu backend has %d device%s", o->device_index,
			       n, n == 1 ? " (ABBENCH_CPU_DEVICES=N pretends to have N, for tests)" : "s");
	/* Graphs replay launches without their launch overhead: the CPU launches
	 * nothing, so an emulation would time exactly what events-mode times
	 * and call it something else. Refused. */
	if (o->timing == BACKEND_TIMING_GRAPH)
		return ab_fail(d, AB_ERR_USAGE, "timing = graph needs CUDA graphs: the cpu backend times each step with the "
			       "clock and launches nothing (use timing = events, or the cuda backend)");
	struct backend *b = calloc(1, sizeof *b);
	if (!b)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the cpu backend");
	b->opt = *o;
	b->fake_timer = cpu_env_fake_timer();
	enum ab_rc rc = cpu_drift_parse(getenv("ABBENCH_FAKE_DRIFT"), b->fake_timer, &b->drift, d);
	if (rc) {
		free(b);
		return rc;
	}
	b->floor_ext = (struct site_ext_arm){ .ctx = b, .step = "copy_floor_memcpy", .prepare = cpu_floor_prepare,
					      .on = SITE_EXT_ON_BIT(SITE_EXT_HOST), .call = cpu_floor_step };
	b->floor_var = (struct site_variant){ .name = BACKEND_FLOOR_PREFIX "memcpy",
					      .summary = "the case's minimum bytes moved by memcpy", .ext = &b->floor_ext };
	if (o->l2_flush && !b->fake_timer) {
		b->flush_buf = malloc(CPU_FLUSH_BYTES);
		if (!b->flush_buf) {
			free(b);
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the %u MiB cache-flush buffer", CPU_FLUSH_BYTES >> 20);
		}
	}
	*out = b;
	return AB_OK;
}

static void cpu_free_tensors(struct backend *b)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++) {
		if (b->args.t[i])
			free(cpu_base(b, i));
		b->args.t[i] = NULL;
		b->bytes[i] = 0;
	}
	b->site = NULL;
}

static void cpu_close(struct backend *b)
{
	if (!b)
		return;
	cpu_free_tensors(b);
	free(b->flush_buf);
	free(b);
}

/* The first "model name" line of /proc/cpuinfo, or the machine type. */
static void cpu_model_name(char *buf, size_t len)
{
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (!strncmp(line, "model name", 10) && colon) {
				colon += 2;
				colon[strcspn(colon, "\n")] = '\0';
				snprintf(buf, len, "CPU %.100s", colon);
				fclose(f);
				return;
			}
		}
		fclose(f);
	}
	snprintf(buf, len, "CPU %s", uname(&u) == 0 ? u.machine : "unknown");
}

/* The largest cache of cpu0 (sysfs: index<N>/size, "307200K"), in bytes;
 * 0 when unknown. Stored as the device's l2_bytes: the last-level cache
 * the summary holds working sets against (cache-resident cases). */
static int64_t cpu_llc_bytes(void)
{
	int64_t best = 0;
	for (int i = 0; i < 16; i++) {
		char path[96], unit = 0;
		long long v = 0;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int got = fscanf(f, "%lld%c", &v, &unit);
		fclose(f);
		int64_t bytes = got >= 1 && v > 0 ? v * (unit == 'K' ? 1024 : unit == 'M' ? 1048576 : 1) : 0;
		best = bytes > best ? bytes : best;
	}
	return best;
}

static void cpu_describe(struct backend *b, struct results_device *dev)
{
	struct utsname u;
	char host[64] = "unknown";
	memset(dev, 0, sizeof *dev);
	if (b->fake_timer)
		snprintf(dev->name, sizeof dev->name, "CPU fake timer (ABBENCH_FAKE_TIMER=1)");
	else
		cpu_model_name(dev->name, sizeof dev->name);
	gethostname(host, sizeof host - 1);
	if (b->fake_timer)
		snprintf(dev->uuid, sizeof dev->uuid, "cpu-fake-timer");
	else
		snprintf(dev->uuid, sizeof dev->uuid, "cpu-%.58s", host);
	snprintf(dev->backend, sizeof dev->backend, "%s", SITE_IMPL_CPU);
	if (uname(&u) == 0)
		snprintf(dev->driver_version, sizeof dev->driver_version, "linux %.24s", u.release);
	snprintf(dev->runtime_version, sizeof dev->runtime_version, "c11 single-threaded");
	dev->sm_count = 1;
	/* the fake timer's cost model has no cache: its runs stay host-independent */
	dev->l2_bytes = b->fake_timer ? 0 : cpu_llc_bytes();
}

static uint64_t now_ns(void);

static enum ab_rc cpu_copy_gbps(struct backend *b, double *gbps, struct ab_diag *d)
{
	uint64_t best = 0;
	*gbps = 0.0;
	if (b->fake_timer) {
		*gbps = CPU_FAKE_COPY_GBPS;
		return AB_OK;
	}
	unsigned char *src = malloc(CPU_COPY_BYTES), *dst = malloc(CPU_COPY_BYTES);
	if (!src || !dst) {
		free(src);
		free(dst);
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate 2 x %zu MiB to measure the copy bandwidth",
			       CPU_COPY_BYTES >> 20);
	}
	memset(src, 1, CPU_COPY_BYTES);
	memset(dst, 0, CPU_COPY_BYTES);
	for (int i = 0; i <= CPU_COPY_REPS; i++) { /* the first one warms up */
		uint64_t t0 = now_ns();
		memcpy(dst, src, CPU_COPY_BYTES);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		uint64_t t = now_ns() - t0;
		if (i && t && (!best || t < best))
			best = t;
	}
	free(src);
	free(dst);
	*gbps = best ? 2.0 * (double)CPU_COPY_BYTES / (double)best : 0.0; /* bytes per ns = GB/s */
	return AB_OK;
}

static enum ab_rc cpu_case_begin(struct backend *b, const struct site_desc *s, const struct site_args *host,
				 const char *case_name, struct ab_diag *d)
{
	cpu_free_tensors(b);
	b->site = s;
	b->fake_clock_ns = 0;
	b->args.dims = host->dims;
	b->args.eps = host->eps;
	b->args.affine = host->affine;
	snprintf(b->case_name, sizeof b->case_name, "%s", case_name);
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (!site_tensor_present(t, host->affine))
			continue;
		size_t bytes = (size_t)site_tensor_bytes(t, &host->dims);
		unsigned char *base = malloc(cpu_tensor_alloc(t, &host->dims));
		b->args.t[i] = base ? base + GUARD_BYTES : NULL;
		if (!b->args.t[i]) {
			cpu_free_tensors(b);
			return ab_fail(d, AB_ERR_NOMEM, "case '%s': cannot allocate tensor '%s' (%zu bytes)", case_name,
				       t->name, bytes);
		}
		b->bytes[i] = bytes;
		if (t->role == SITE_IN_ACT || t->role == SITE_IN_PARAM)
			memcpy(b->args.t[i], host->t[i], bytes);
	}
	return AB_OK;
}

/* Outputs, statistics and intermediates start as 0xFF bytes (bf16 NaN
 * 0xFFFF), so an element no step wrote cannot pass as a result; every
 * buffer's guard zones are filled anew. */
static enum ab_rc cpu_slot_begin(struct backend *b, const struct site_variant *v, const char *range_name,
				 struct results_clocks *before, struct ab_diag *d)
{
	(void)range_name;
	memset(before, 0, sizeof *before);
	if (!cpu_supports(v))
		return ab_fail(d, AB_ERR_INPUT, "case '%s': variant '%s' has no cpu implementation", b->case_name,
			       v->name);
	snprintf(b->arm, sizeof b->arm, "%s", v->name);
	b->ext = v->ext;
	for (int i = 0; i < b->site->n_tensors; i++) {
		enum site_role r = b->site->tensors[i].role;
		if (!b->args.t[i])
			continue;
		if (r == SITE_OUT || r == SITE_AUX || r == SITE_SCRATCH)
			memset(b->args.t[i], 0xFF, b->bytes[i]);
		memset(cpu_base(b, i), GUARD_FILL, GUARD_BYTES);
		memset((unsigned char *)b->args.t[i] + b->bytes[i], GUARD_FILL, GUARD_BYTES);
	}
	char err[AB_DIAG_MAX / 2] = "";
	if (v->ext && v->ext->prepare && v->ext->prepare(v->ext->ctx, &b->args, SITE_EXT_HOST, err, sizeof err))
		return ab_fail(d, AB_ERR_BACKEND, "arm '%s': %s", v->name, err);
	return AB_OK;
}

static uint64_t clock_ns(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The clock a step is timed by: the scenario's timing. */
static uint64_t step_clock_ns(const struct backend *b)
{
	return clock_ns(b->opt.timing == BACKEND_TIMING_CPU ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC);
}

/* splitmix64 of (sample id, step): the fake timer's noise in [-0.5, 0.5). */
static double fake_noise(uint32_t sample_id, int step)
{
	uint64_t z = rng_mix((uint64_t)sample_id << 8 | (uint64_t)step);
	return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

/* A step's modelled cost; the copy floor's: its bytes at the fastest rate
 * the model allows. */
static uint64_t fake_step_ns(const struct backend *b, const struct site_variant *v, uint32_t sample_id, int step,
			     double drift)
{
	double elems = (double)(b->args.dims.rows * b->args.dims.row_len);
	double floor_bytes = (double)(b->floor_plan.read_bytes + b->floor_plan.write_bytes);
	double ns = v == &b->floor_var ? 2000.0 + floor_bytes / CPU_FAKE_COPY_GBPS : 2000.0 + 0.5 * elems;
	return (uint64_t)(ns * drift * (1.0 + 0.01 * fake_noise(sample_id, step)));
}

/* Step i of the variant (impl: its code, looked up before the clock
 * starts); an arm from outside is one step that can fail. */
static enum ab_rc cpu_step(struct backend *b, const struct site_variant *v, const struct site_cpu_impl *impl, int i,
			   const char **name, struct ab_diag *d)
{
	if (!v->ext) {
		*name = impl->steps[i].name;
		impl->steps[i].fn(&b->args);
		return AB_OK;
	}
	char err[AB_DIAG_MAX / 2] = "";
	*name = v->ext->step;
	if (v->ext->call(v->ext->ctx, &b->args, SITE_EXT_HOST, NULL, err, sizeof err))
		return ab_fail(d, AB_ERR_BACKEND, "arm '%s': %s", v->name, err);
	return AB_OK;
}

static enum ab_rc cpu_sample(struct backend *b, const struct site_variant *v, uint32_t sample_id,
			     struct attrib_collector *kernels, struct bk_sample *out, struct ab_diag *d)
{
	if (b->flush_buf) {
		memset(b->flush_buf, (int)(sample_id & 0xFF), CPU_FLUSH_BYTES);
		__asm__ __volatile__("" : : "r"(b->flush_buf) : "memory");
	}
	uint64_t first = 0, last = 0;
	const struct site_cpu_impl *impl = cpu_impl(v);
	if (!v->ext && !impl)
		return ab_fail(d, AB_ERR_INTERNAL, "cpu sample of '%s', which has no cpu implementation", v->name);
	int n_steps = v->ext ? 1 : impl->n_steps;
	double drift = cpu_drift_factor(&b->drift, b->fake_clock_ns);
	for (int i = 0; i < n_steps; i++) {
		const char *name;
		uint64_t t0 = step_clock_ns(b);
		enum ab_rc src = cpu_step(b, v, impl, i, &name, d);
		uint64_t t1 = step_clock_ns(b);
		if (src)
			return src;
		if (b->fake_timer) {
			t0 = i == 0 ? 1000 : last;
			t1 = t0 + fake_step_ns(b, v, sample_id, i, drift);
		}
		if (i == 0)
			first = t0;
		last = t1;
		enum ab_rc rc = attrib_add(kernels, name, t0, t1, sample_id, d);
		if (rc)
			return ab_wrap(d, rc, "case '%s', arm '%s'", b->case_name, v->name);
	}
	out->wall_ns = (double)(last - first);
	if (b->fake_timer)
		b->fake_clock_ns += out->wall_ns;
	out->discarded = false;
	out->clock_ratio = NAN;
	out->host_ns = NAN; /* the host is the device: its call is the work (backend.h) */
	return AB_OK;
}

/* The guard zones of every buffer, as slot_begin filled them? */
static enum ab_rc cpu_check_guards(struct backend *b, struct ab_diag *d)
{
	char why[160];
	for (int i = 0; i < b->site->n_tensors; i++) {
		if (!b->args.t[i])
			continue;
		if (!guard_check(cpu_base(b, i), (unsigned char *)b->args.t[i] + b->bytes[i], why, sizeof why))
			return ab_fail(d, AB_ERR_BACKEND, "arm '%s': wrote outside tensor '%s': %s", b->arm,
				       b->site->tensors[i].name, why);
	}
	return AB_OK;
}

static enum ab_rc cpu_slot_end(struct backend *b, struct attrib_collector *kernels, struct results_clocks *after,
			       struct ab_diag *d)
{
	const struct site_ext_arm *ext = b->ext;
	char err[AB_DIAG_MAX / 2] = "";
	(void)kernels;
	memset(after, 0, sizeof *after);
	b->ext = NULL;
	enum ab_rc rc = cpu_check_guards(b, d);
	if (!rc && ext && ext->finish && ext->finish(ext->ctx, err, sizeof err))
		return ab_fail(d, AB_ERR_BACKEND, "arm '%s': %s", b->arm, err);
	return rc;
}

static enum ab_rc cpu_read_tensor(struct backend *b, int tensor_index, void *host, size_t bytes, struct ab_diag *d)
{
	if (tensor_index < 0 || tensor_index >= SITE_MAX_TENSORS || !b->args.t[tensor_index] ||
	    b->bytes[tensor_index] != bytes)
		return ab_fail(d, AB_ERR_INTERNAL, "case '%s': bad read of tensor %d (%zu bytes)", b->case_name,
			       tensor_index, bytes);
	memcpy(host, b->args.t[tensor_index], bytes);
	return AB_OK;
}

static void cpu_case_end(struct backend *b)
{
	cpu_free_tensors(b);
}

/* cpu_case_begin's copies of every present tensor and the cache-flush
 * buffer; no device. */
static enum ab_rc cpu_case_memory(struct backend *b, const struct site_desc *s, const struct site_args *shape,
				  struct bk_memory *m, struct ab_diag *d)
{
	(void)d;
	memset(m, 0, sizeof *m);
	m->host_bytes = b->flush_buf ? CPU_FLUSH_BYTES : 0; /* malloc'd, not yet touched */
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (site_tensor_present(t, shape->affine))
			m->host_bytes += cpu_tensor_alloc(t, &shape->dims);
	}
	return AB_OK;
}

/* The copy floor: planned over our buffers when its slot begins. */
static int cpu_floor_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len)
{
	struct backend *b = ctx;
	(void)on;
	if (!b->site || !copy_floor_plan(b->site, a, &b->floor_plan)) {
		snprintf(err, len, "case '%s': its tensors give no copy floor", b->case_name);
		return 1;
	}
	return 0;
}

static int cpu_floor_step(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err,
			  size_t len)
{
	struct backend *b = ctx;
	(void)a;
	(void)on;
	(void)stream;
	(void)err;
	(void)len;
	copy_floor_memcpy(&b->floor_plan);
	return 0;
}

static int cpu_floor_methods(struct backend *b)
{
	(void)b;
	return 1;
}

static const struct site_variant *cpu_floor_variant(struct backend *b, int i)
{
	return i == 0 ? &b->floor_var : NULL;
}

/* What the CPU backend's times are, when they are not wall time (the
 * device line says when the fake timer ran). */
static const char *cpu_notes(struct backend *b)
{
	if (b->opt.timing == BACKEND_TIMING_CPU && !b->fake_timer)
		return "timing cpu: each step timed by the process's CPU clock, the time it ran on a core (waits for "
		       "a core not counted)";
	return "";
}

const struct backend_ops backend_cpu = {
	.name = SITE_IMPL_CPU,
	.build = "",
	.caps = BACKEND_CAP_HOST_BUFFERS, /* arms from outside over host memory: no GPU, no driver modules */
	.supports = cpu_supports,
	.available = cpu_available,
	.device_count = cpu_device_count,
	.open = cpu_open,
	.close = cpu_close,
	.describe = cpu_describe,
	.fake_timer = cpu_fake_timer,
	.measure_copy_gbps = cpu_copy_gbps,
	.case_begin = cpu_case_begin,
	.slot_begin = cpu_slot_begin,
	.sample = cpu_sample,
	.slot_end = cpu_slot_end,
	.read_tensor = cpu_read_tensor,
	.case_end = cpu_case_end,
	.case_memory = cpu_case_memory,
	.floor_methods = cpu_floor_methods,
	.floor_variant = cpu_floor_variant,
	.notes = cpu_notes,
};
