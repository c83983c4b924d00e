/*
 * backend.h - the one interface every backend implements, and the table of
 * the backends abbench knows, found by name (SQLite's VFS list and
 * sqlite3_vfs_find are the model).
 *
 * The runner drives a backend through a case's life:
 *
 *   open -> describe
 *   for each case:  case_begin (copy the host inputs in, allocate outputs)
 *     for each slot: slot_begin (poison outputs, clocks before, NVTX range;
 *                    an arm from outside may be called once here, untimed)
 *                    sample(warm-up) x warmup, sample(measured) until the
 *                    stopping rule says enough
 *                    slot_end (kernel records into the collector, clocks after;
 *                    an arm from outside's finish, v->ext->finish)
 *                    read_tensor (outputs of the slot's last sample)
 *     case_end
 *   close
 *
 * A measured sample carries a 1-based sample id; the backend tags every
 * kernel it launches for that sample with the id (CUPTI external
 * correlation on CUDA), so attribution never guesses from time windows.
 *
 * The table (backend.c, backend_table) lists every backend by name, built
 * into this binary or not (a build without nvcc has no CUDA backend, and
 * says why). Everything above backend/ reaches a backend through it, by
 * name: backend_choose for a run, backend_find, and for what a backend runs
 * backend_supports_variant and its capabilities (backend_has_caps), which
 * the kinds of arm ask for. Nothing above backend/ names a particular
 * backend; a new one is its own files, one row of the table and one
 * declaration below (docs/ARCHITECTURE.md, "Where each kind of change
 * goes").
 */
#ifndef AB_BACKEND_H
#define AB_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/attrib.h"
#include "common/diag.h"
#include "common/results.h"
#include "kernels/common/site.h"

struct backend;

/* What a backend offers arms from outside abbench: the capabilities a
 * kind of arm asks for (arms/: a plugin's cpu function needs host
 * buffers, its cuda function a CUDA stream; a cubin a CUDA stream and
 * driver modules; a Python function either), never a list of kinds. A
 * backend calls arms one way (kernels/common/site.h, enum site_ext_on):
 * the bit of that way is its buffers' capability. */
enum backend_cap {
	/* tensors in host memory, an arm called synchronously (SITE_EXT_HOST) */
	BACKEND_CAP_HOST_BUFFERS = SITE_EXT_ON_BIT(SITE_EXT_HOST),
	/* tensors in CUDA device memory, an arm queueing its work on the
	 * backend's cudaStream_t (SITE_EXT_CUDA_STREAM) */
	BACKEND_CAP_CUDA_STREAM = SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM),
	/* once open, CUDA driver modules (cubin, PTX, fatbin) load into its
	 * context, current on the calling thread */
	BACKEND_CAP_DRIVER_MODULE = 1u << 8,
};

/* Launch gaps between the arm's kernels: measured as they are, or hidden
 * (CUDA: the launches queued behind a spin kernel). */
enum backend_launch_gaps { BACKEND_GAPS_INCLUDE, BACKEND_GAPS_HIDE };

/* How a sample is timed (a scenario's `timing`): events around the arm's
 * launches (on the CPU backend the monotonic clock, the wall time), or a
 * CUDA graph of BACKEND_GRAPH_LAUNCHES launches of the arm, each behind
 * its L2 flush, replayed, less a replay of the flushes alone, over the
 * launches: the arm's time without its launch overhead; or (CPU backend
 * only) the process's CPU clock, the time the arm's threads ran on a core,
 * not the time they waited for one. A backend that cannot time a sample
 * so refuses it at open (AB_ERR_USAGE). */
enum backend_timing { BACKEND_TIMING_EVENTS, BACKEND_TIMING_GRAPH, BACKEND_TIMING_CPU };
#define BACKEND_GRAPH_LAUNCHES 10

/* "events", "graph" or "cpu": what the run row stores. */
const char *backend_timing_str(enum backend_timing t);

struct bk_options {
	bool l2_flush;
	enum backend_launch_gaps launch_gaps;
	enum backend_timing timing;
	bool cupti;           /* per-kernel records (CUDA); the CPU always times steps */
	int device_index;     /* --device: the CUDA device; the CPU has only 0 (else AB_ERR_USAGE) */
};

struct bk_sample {
	double wall_ns;       /* events (CUDA) or monotonic clock (CPU) around the arm */
	bool discarded;       /* throttle probe: effective SM clock under 75% of default */
	double clock_ratio;   /* effective / default SM clock, NAN when not probed */
	/* The host time of the arm's call (entered to returned, monotonic
	 * clock): what queueing its work costs the host, apart from the GPU
	 * time it queued. NAN where the host is not apart from the device (the
	 * CPU backend: the call is the work) or a sample makes no call of the
	 * arm (timing = graph replays a captured one). */
	double host_ns;
};

/* What one case would take from a backend, and what there is: the memory
 * admission of a run (run/admission.h) adds the runner's own share. */
struct bk_memory {
	uint64_t host_bytes;   /* the backend's own host allocations for the case */
	uint64_t device_bytes; /* its device allocations: inputs, outputs, scratch, guard bytes */
	uint64_t device_free;  /* device memory free now, the backend's fixed buffers already out */
	bool has_device;       /* false: device_bytes and device_free mean nothing */
};

struct backend_ops {
	const char *name; /* its row's name in backend_table; the variants' code is filed under it (SITE_IMPL_*) */
	/* What --version says of it, after "NAME backend: built in" (CUDA: the
	 * architectures it is compiled for); "" for nothing. */
	const char *build;
	/* What it offers arms from outside abbench: BACKEND_CAP_* bits, one of
	 * the buffers' (the way it calls them) among them. */
	unsigned caps;
	/* Whether it runs variant v: a built-in variant with code filed under
	 * its name, or an arm from outside callable its way. Pure. */
	bool (*supports)(const struct site_variant *v);
	/* Whether this backend can run here at all (a device answers). Fills a
	 * reason when not. Cheap; no state. */
	bool (*available)(char *why, size_t len);
	/* How many devices `--devices all` spreads over (0 when none answers). */
	int (*device_count)(void);
	enum ab_rc (*open)(struct backend **out, const struct bk_options *o, struct ab_diag *d);
	void (*close)(struct backend *b);
	void (*describe)(struct backend *b, struct results_device *dev);
	/* Whether its times come from a deterministic model instead of a clock
	 * (the CPU's ABBENCH_FAKE_TIMER=1): recorded with the run. */
	bool (*fake_timer)(struct backend *b);
	/* Measures the device copy bandwidth (GB/s, read + write); may be slow. */
	enum ab_rc (*measure_copy_gbps)(struct backend *b, double *gbps, struct ab_diag *d);
	/* host holds pointers to host copies of every present input tensor. */
	enum ab_rc (*case_begin)(struct backend *b, const struct site_desc *s, const struct site_args *host,
				 const char *case_name, struct ab_diag *d);
	/* May call an arm from outside (v->ext) once, untimed (CUDA does: its
	 * prepare and first launch); never a built-in variant. */
	enum ab_rc (*slot_begin)(struct backend *b, const struct site_variant *v, const char *range_name,
				 struct results_clocks *before, struct ab_diag *d);
	/* sample_id: 1-based for measured samples, ATTRIB_UNTIMED for warm-up. */
	enum ab_rc (*sample)(struct backend *b, const struct site_variant *v, uint32_t sample_id,
			     struct attrib_collector *kernels, struct bk_sample *out, struct ab_diag *d);
	enum ab_rc (*slot_end)(struct backend *b, struct attrib_collector *kernels, struct results_clocks *after,
			       struct ab_diag *d);
	enum ab_rc (*read_tensor)(struct backend *b, int tensor_index, void *host, size_t bytes,
				  struct ab_diag *d);
	void (*case_end)(struct backend *b);
	/* The memory case_begin would allocate for site s at shape's dims and
	 * affine flag, and the device's free memory; allocates nothing. */
	enum ab_rc (*case_memory)(struct backend *b, const struct site_desc *s, const struct site_args *shape,
				  struct bk_memory *m, struct ab_diag *d);
	/* The copy floor of the current case (backend/copy_floor.h): its
	 * methods, each a variant of the backend's own (an arm from outside:
	 * v->ext, its prepare planning the copy from the case's tensors) that
	 * the runner measures like an arm, after the case's last slot, through
	 * slot_begin, sample and slot_end. floor_methods returns how many (0:
	 * none); floor_variant(b, i) the i-th, valid until close. Its name is
	 * "copy_floor.METHOD". */
	int (*floor_methods)(struct backend *b);
	const struct site_variant *(*floor_variant)(struct backend *b, int i);
	/* The backend's remarks for the run's notes (CUDA: where CUPTI came
	 * from, its measured overhead, record counts, whether NVML answered;
	 * "" when it has none). Asked after the last case, before close; the
	 * string belongs to the backend (valid until the next call or close)
	 * and fits results_run.notes. */
	const char *(*notes)(struct backend *b);
	/* Optional (NULL: nothing): what a run records of the backend's
	 * libraries beyond the device row, as KEY=VALUE words
	 * (common/results.h, results_run.env; CUDA: "cupti=130100"), for
	 * certificates. Asked once the backend is open; the string belongs
	 * to the backend. */
	const char *(*environment)(struct backend *b);
};

/* ---- the table ---------------------------------------------------------- */

/* One backend abbench knows. */
struct backend_entry {
	const char *name;
	const struct backend_ops *ops; /* NULL: not in this build */
	const char *absent;            /* why not, when ops is NULL */
	/* `auto` takes it only when no backend without this flag can run
	 * here (the CPU: it always can, and measures no GPU). */
	bool fallback;
};

/* Every backend, in listing order; the last entry's name is NULL. */
extern const struct backend_entry backend_table[];

/* The entry named name, NULL for a name abbench does not know. */
const struct backend_entry *backend_entry_find(const char *name);
/* Its ops when it is built in, else NULL. */
const struct backend_ops *backend_find(const char *name);

/* Whether the entry is built in and can run here; the reason when not. */
bool backend_usable(const struct backend_entry *e, char *why, size_t len);

/* The names for messages that list them, joined with ", " and the last
 * with last_sep: "cpu, cuda" (", "), "cpu or cuda" (" or "). */
void backend_names(char *buf, size_t len, const char *last_sep);

/* ---- what a run asks for: "auto" or a backend's name ---------------------- */

#define BACKEND_AUTO "auto"

/* The prefix of a copy floor variant's name ("copy_floor.vec_cs"). */
#define BACKEND_FLOOR_PREFIX "copy_floor."

/* "auto" or a name of the table: *out is the table's own string (static),
 * false for anything else (*out untouched). The one parser of backend
 * names: a scenario's `backend =`, `run --backend`, profiles. */
bool backend_choice_parse(const char *text, const char **out);
/* "auto" and the table's names, NULL-terminated (for "did you mean"). */
const char *const *backend_choice_names(void);

/* The backend for a choice. A name: its ops, or AB_ERR_USAGE saying why
 * it cannot run here. auto: the first usable backend of the table that is
 * not a fallback, else the first usable fallback, with *fell_back set and
 * why naming each backend passed over and its reason ("cuda is not
 * available (no usable cuda device: ...)"). */
enum ab_rc backend_choose(const char *want, const struct backend_ops **out, bool *fell_back, char *why,
			  size_t why_len, struct ab_diag *d);

/* ---- what a backend runs -------------------------------------------------- */

/* ops->supports(v): a built-in variant with code for it, or an arm from
 * outside with a function for it. */
bool backend_supports_variant(const struct backend_ops *ops, const struct site_variant *v);
/* Whether the backend named backend (built in) offers every capability
 * of caps (BACKEND_CAP_*); false for a backend abbench does not have. For
 * arms/, whose kinds know the run's backend by name. */
bool backend_has_caps(const char *backend, unsigned caps);
/* The capabilities of the backend named backend (0: none, or not built in). */
unsigned backend_caps(const char *backend);
/* The built-in backends that run v; those that offer every capability of
 * caps (any: at least one of them), joined with ", " ("cuda"); "" when
 * none: for messages ("it runs on: cuda"). */
void backend_names_for_variant(const struct site_variant *v, char *buf, size_t len);
void backend_names_with_caps(unsigned caps, bool any, char *buf, size_t len);

/* ---- the backends of this build (backend_table's rows) ------------------- */

/* The tests drive the CPU backend directly; everything else finds a
 * backend by name. */
extern const struct backend_ops backend_cpu;
#if AB_HAVE_CUDA
extern const struct backend_ops backend_cuda;
#endif

#endif
