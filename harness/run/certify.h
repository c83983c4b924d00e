/*
 * certify.h - `abbench certify RUN...`: a certificate (common/cert.h,
 * docs/CERTIFICATE.md) of the cases that stored runs proved byte-equal in
 * every slot.
 *
 * Each run's stored scenario text is read again (its included site files
 * are appended to it; the include keys themselves are dropped) to learn
 * what the run row does not hold: the seed, each input's generator, a
 * declared site's axes and tensors, how each user arm was named. The
 * device row, the run's env and each user arm's provenance (run_arms)
 * give the environment and the artefacts. A case byte-equal in every slot
 * (cert_case_exact) becomes an entry; any other is listed apart with the
 * reason. Nothing here reads the clock or the host: two identical runs
 * give the same certificate, byte for byte.
 */
#ifndef AB_CERTIFY_H
#define AB_CERTIFY_H

#include "common/cert.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"

/* The certificate of runs[0..n) (loaded whole; each 'ok'), sealed.
 * AB_ERR_DATA naming the run when one is not 'ok', has no scenario text,
 * or its text no longer parses. */
enum ab_rc certify_runs(struct results_run *const *runs, int n, struct cert *out, struct ab_diag *d);

/* The scenario text run r stored, parsed again (its include keys dropped:
 * the included files' text follows it), for certify_runs and
 * certify --check. */
enum ab_rc certify_stored_scenario(const struct results_run *r, struct scenario **out, struct ab_diag *d);

#endif
