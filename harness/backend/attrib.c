/*
 * attrib.c - per-kernel attribution (see attrib.h).
 *
 * The per-kernel table is a growing array searched linearly by demangled
 * name: a slot sees a handful of distinct kernels. Names longer than
 * results_kernel.name are cut to 252 characters plus "..."; two kernels that
 * agree on those characters share a row.
 *
 * Records are sorted into exactly one bin, first match wins:
 *   sample_id == ATTRIB_UNTIMED           -> ignored_records
 *   start == 0, end == 0 or end < start -> bad_records
 *   sample_id > max_samples             -> out_of_range
 *   otherwise summed into the kernel's row and the sample's kernel time.
 * attrib_export reports bad_records + out_of_range as the slot's
 * kernel_records_bad: both are records that were not summed.
 *
 * The demangler is libstdc++'s __cxa_demangle, found at run time: first in
 * the process (the CUDA build links libstdc++), else in libstdc++.so.6
 * opened on first use and kept open for the life of the process. Without
 * either, names are shown mangled.
 */
#include "backend/attrib.h"

#include <ctype.h>

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static demangle_fn lookup(void *handle)
{
	demangle_fn fn = NULL;
	void *sym = handle ? dlsym(handle, "__cxa_demangle") : NULL;

	/* POSIX's sanctioned way of turning a dlsym result into a function */
	memcpy(&fn, &sym, sizeof fn);
	return fn;
}

static void find_demangler(void)
{
	demangler = lookup(dlopen(NULL, RTLD_LAZY));
	if (!demangler)
		demangler = lookup(dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL));
}

/* Copies src into buf, ending in "..." when it does not fit. */
static void copy_cut(char *buf, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n < len) {
		memcpy(buf, src, n + 1);
		return;
	}
	if (len < 4) {
		memcpy(buf, src, len - 1);
		buf[len - 1] = '\0';
		return;
	}
	memcpy(buf, src, len - 4);
	memcpy(buf + len - 4, "...", 4);
}

char *attrib_demangle(const char *name, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (strncmp(name, "_Z", 2) == 0) {
		pthread_once(&demangler_once, find_demangler);
		int status = -1;
		char *out = demangler ? demangler(name, NULL, NULL, &status) : NULL;
		if (out && status == 0) {
			copy_cut(buf, len, out);
			free(out);
			return buf;
		}
		free(out);
	}
	copy_cut(buf, len, name);
	return buf;
}

/*
 * The qualified function name without template arguments and parameters:
 * everything before the first '<' or '(' other than "(anonymous namespace)".
 * Families are matched there because PyTorch's template arguments name
 * functors and lambdas of other operations.
 */
static void base_name(const char *s, char *out, size_t len)
{
	static const char anon[] = "(anonymous namespace)";
	size_t n = 0;

	while (*s && *s != '<' && n + 1 < len) {
		if (*s == '(' && strncmp(s, anon, sizeof anon - 1) != 0)
			break;
		size_t step = *s == '(' ? sizeof anon - 1 : 1;
		for (size_t i = 0; i < step && n + 1 < len; i++)
			out[n++] = *s++;
	}
	out[n] = '\0';
}

static const struct {
	const char *pattern, *family;
} families[] = {
	{ "layer_norm_twopass", "LayerNorm two-pass" },
	{ "layer_norm_two_pass", "LayerNorm two-pass" },
	{ "fused", "fused" },
	/* a block's other work (issue 22): SDPA's kernels (cuDNN's
	 * "..._sdpa_...flash_fprop...", PyTorch's flash_fwd_kernel, the
	 * memory-efficient fmha_*), then cuBLAS's GEMMs (Hopper's nvjet_*,
	 * the older *xmma*gemm* and cutlass *gemm* names) */
	{ "sdpa", "attention" },
	{ "flash", "attention" },
	{ "fmha", "attention" },
	{ "attention", "attention" },
	{ "nvjet", "GEMM" },
	{ "gemm", "GEMM" },
	{ "xmma", "GEMM" },
	{ "layer_norm", "LayerNorm" },
	{ "elementwise", "elementwise" },
	{ "memset", "memset" },
	{ "Memset", "memset" },
	{ "flush", "harness" },
	{ "spin", "harness" },
	{ "probe", "harness" },
	{ NULL, NULL },
};

const char *attrib_family(const char *demangled)
{
	char base[256];

	base_name(demangled, base, sizeof base);
	for (int i = 0; families[i].pattern; i++)
		if (strstr(base, families[i].pattern))
			return families[i].family;
	return "other";
}

/* The identifier ending at end (exclusive), scanning back from it. */
static size_t ident_back(const char *start, const char *end)
{
	size_t n = 0;
	while (end - n > start && (isalnum((unsigned char)end[-1 - (long)n]) || end[-1 - (long)n] == '_'))
		n++;
	return n;
}

/* "ab_ew_mul" -> "mul": the functor of abbench's own eager elementwise
 * kernels (kernels/common), which stand for aten's MulFunctor and friends. */
static bool abbench_functor_op(const char *s, char *buf, size_t len)
{
	const char *p = strstr(s, "ab_ew_");
	if (!p || !len)
		return false;
	size_t k = 0;
	for (const char *q = p + 6; (isalnum((unsigned char)*q) || *q == '_') && k + 1 < len; q++)
		buf[k++] = *q;
	buf[k] = '\0';
	return k > 0;
}

/* "MulFunctor" -> "mul": the last functor named in the template arguments
 * other than the wrappers (BinaryFunctor, AUnaryFunctor, ...). */
static bool functor_op(const char *s, char *buf, size_t len)
{
	static const char *const wrappers[] = { "BinaryFunctor", "UnaryFunctor", "AUnaryFunctor", "BUnaryFunctor", NULL };
	bool found = false;
	for (const char *p = strstr(s, "Functor"); p; p = strstr(p + 1, "Functor")) {
		size_t n = ident_back(s, p);
		const char *id = p - n;
		bool wrap = false;
		for (int i = 0; wrappers[i] && !wrap; i++)
			wrap = !strncmp(id, wrappers[i], strlen(wrappers[i])) && n + 7 == strlen(wrappers[i]);
		if (p[7] == '_' && !strncmp(id, "CUDA", 4) && n == 4) { /* CUDAFunctor_add */
			size_t k = 0;
			for (const char *q = p + 8; (isalnum((unsigned char)*q) || *q == '_') && k + 1 < len; q++)
				buf[k++] = *q;
			buf[k] = '\0';
			found = k > 0;
			continue;
		}
		if (wrap || !n)
			continue;
		size_t k = 0;
		for (size_t i = 0; i < n && k + 1 < len; i++)
			buf[k++] = (char)tolower((unsigned char)id[i]);
		buf[k] = '\0';
		found = k > 0;
	}
	return found || abbench_functor_op(s, buf, len);
}

/* Drops prefix from the front of s (in place) when it is there. */
static void drop_prefix(char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	if (!strncmp(s, prefix, n) && s[n])
		memmove(s, s + n, strlen(s + n) + 1);
}

static void drop_suffix(char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n > k && !strcmp(s + n - k, suffix))
		s[n - k] = '\0';
}

char *attrib_operation(const char *demangled, char *buf, size_t len)
{
	char base[256];
	if (functor_op(demangled, buf, len))
		return buf;
	base_name(demangled, base, sizeof base);
	const char *last = base;
	for (const char *p = strstr(base, "::"); p; p = strstr(p + 2, "::"))
		last = p + 2;
	for (const char *p = strrchr(last, ' '); p; p = NULL)
		last = p + 1; /* a return type ("void f") */
	char op[256];
	snprintf(op, sizeof op, "%s", last);
	drop_prefix(op, "ab_"); /* abbench's own kernels: ab_eager_..., ab_fused_... */
	drop_prefix(op, "eager_");
	drop_prefix(op, "cpu_");
	drop_suffix(op, "_kernel");
	drop_prefix(op, "vectorized_");
	drop_prefix(op, "elementwise_");
	drop_prefix(op, "fused_");
	snprintf(buf, len, "%s", op);
	return buf;
}

static void reset_samples(struct attrib_collector *c)
{
	for (int i = 0; i < c->max_samples; i++)
		c->sample_kernel_ns[i] = NAN;
}

enum ab_rc attrib_init(struct attrib_collector *c, int max_samples, struct ab_diag *d)
{
	memset(c, 0, sizeof *c);
	if (max_samples < 0)
		return ab_fail(d, AB_ERR_INTERNAL, "negative sample count %d for kernel attribution", max_samples);
	if (max_samples > 0) {
		c->sample_kernel_ns = malloc((size_t)max_samples * sizeof *c->sample_kernel_ns);
		if (!c->sample_kernel_ns)
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate kernel times for %d samples", max_samples);
	}
	c->max_samples = max_samples;
	reset_samples(c);
	return AB_OK;
}

void attrib_free(struct attrib_collector *c)
{
	free(c->sample_kernel_ns);
	free(c->kernels);
	memset(c, 0, sizeof *c);
}

void attrib_reset(struct attrib_collector *c)
{
	reset_samples(c);
	c->n_kernels = 0;
	c->bad_records = c->ignored_records = c->out_of_range = 0;
}

/* The row for name, appended (zeroed, named, classified) when new. */
static struct results_kernel *kernel_row(struct attrib_collector *c, const char *name, struct ab_diag *d)
{
	for (int i = 0; i < c->n_kernels; i++)
		if (strcmp(c->kernels[i].name, name) == 0)
			return &c->kernels[i];
	if (c->n_kernels == c->cap_kernels) {
		int cap = c->cap_kernels ? 2 * c->cap_kernels : 8;
		struct results_kernel *k = realloc(c->kernels, (size_t)cap * sizeof *k);
		if (!k) {
			ab_fail(d, AB_ERR_NOMEM, "cannot grow the kernel table to %d entries", cap);
			return NULL;
		}
		c->kernels = k;
		c->cap_kernels = cap;
	}
	struct results_kernel *k = &c->kernels[c->n_kernels++];
	memset(k, 0, sizeof *k);
	copy_cut(k->name, sizeof k->name, name);
	copy_cut(k->family, sizeof k->family, attrib_family(name));
	return k;
}

enum ab_rc attrib_add(struct attrib_collector *c, const char *name, uint64_t start_ns, uint64_t end_ns,
		    uint32_t sample_id, struct ab_diag *d)
{
	char demangled[sizeof c->kernels->name];

	if (sample_id == ATTRIB_UNTIMED) {
		c->ignored_records++;
		return AB_OK;
	}
	if (start_ns == 0 || end_ns == 0 || end_ns < start_ns) {
		c->bad_records++;
		return AB_OK;
	}
	if (sample_id > (uint32_t)c->max_samples) {
		c->out_of_range++;
		return AB_OK;
	}
	struct results_kernel *k = kernel_row(c, attrib_demangle(name ? name : "?", demangled, sizeof demangled), d);
	if (!k)
		return AB_ERR_NOMEM;
	double ns = (double)(end_ns - start_ns);
	k->min_ns = k->launches ? fmin(k->min_ns, ns) : ns;
	k->max_ns = k->launches ? fmax(k->max_ns, ns) : ns;
	k->total_ns += ns;
	k->launches++;
	double *s = &c->sample_kernel_ns[sample_id - 1];
	*s = isnan(*s) ? ns : *s + ns;
	return AB_OK;
}

enum ab_rc attrib_merge(struct attrib_collector *dst, const struct attrib_collector *src, struct ab_diag *d)
{
	for (int k = 0; k < src->n_kernels; k++) {
		const struct results_kernel *from = &src->kernels[k];
		struct results_kernel *to = kernel_row(dst, from->name, d);
		if (!to)
			return AB_ERR_NOMEM;
		to->min_ns = to->launches ? fmin(to->min_ns, from->min_ns) : from->min_ns;
		to->max_ns = to->launches ? fmax(to->max_ns, from->max_ns) : from->max_ns;
		to->total_ns += from->total_ns;
		to->launches += from->launches;
	}
	for (int i = 0; i < src->max_samples && i < dst->max_samples; i++) {
		double x = src->sample_kernel_ns[i], *y = &dst->sample_kernel_ns[i];
		if (!isnan(x))
			*y = isnan(*y) ? x : *y + x;
	}
	dst->bad_records += src->bad_records;
	dst->ignored_records += src->ignored_records;
	dst->out_of_range += src->out_of_range;
	return AB_OK;
}

void attrib_divide(struct attrib_collector *c, int n)
{
	if (n < 2)
		return;
	for (int i = 0; i < c->max_samples; i++)
		c->sample_kernel_ns[i] /= n;
	for (int k = 0; k < c->n_kernels; k++) {
		c->kernels[k].total_ns /= n;
		c->kernels[k].launches = (c->kernels[k].launches + n / 2) / n;
	}
}

enum ab_rc attrib_export(struct attrib_collector *c, struct results_slot *slot, struct ab_diag *d)
{
	if (slot->n_samples > 0 && !slot->kernel_ns) {
		slot->kernel_ns = malloc((size_t)slot->n_samples * sizeof *slot->kernel_ns);
		if (!slot->kernel_ns)
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate kernel times for slot '%s'", slot->label);
	}
	for (int i = 0; i < slot->n_samples; i++)
		slot->kernel_ns[i] = i < c->max_samples ? c->sample_kernel_ns[i] : NAN;
	free(slot->kernels);
	slot->kernels = c->kernels;
	slot->n_kernels = c->n_kernels;
	slot->kernel_records_bad = c->bad_records + c->out_of_range;
	c->kernels = NULL;
	c->n_kernels = c->cap_kernels = 0;
	return AB_OK;
}
