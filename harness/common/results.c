/*
 * results.c - releasing a run's results and finding a slot by its label.
 *
 * Ownership (results.h): a results_run owns its scenario_text, command_line and
 * cases array; each case owns its slots array; each slot owns samples_ns,
 * kernel_ns and kernels. results_run_free releases all of that and the results_run
 * itself, so the run must come from malloc/calloc (store_load_run's does).
 */
#include "common/results.h"

#include <stdlib.h>
#include <string.h>

void results_slot_release(struct results_slot *s)
{
	if (!s)
		return;
	free(s->samples_ns);
	free(s->kernel_ns);
	free(s->kernels);
	s->samples_ns = NULL;
	s->kernel_ns = NULL;
	s->kernels = NULL;
	s->n_samples = 0;
	s->n_kernels = 0;
}

static void case_release(struct results_case *c)
{
	for (int i = 0; i < c->n_slots; i++)
		results_slot_release(&c->slots[i]);
	free(c->slots);
	c->slots = NULL;
	c->n_slots = 0;
}

void results_run_free(struct results_run *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n_cases; i++)
		case_release(&r->cases[i]);
	free(r->cases);
	free(r->scenario_text);
	free(r->command_line);
	free(r);
}

const struct results_slot *results_case_slot(const struct results_case *c, const char *label)
{
	if (!c || !label)
		return NULL;
	for (int i = 0; i < c->n_slots; i++)
		if (strcmp(c->slots[i].label, label) == 0)
			return &c->slots[i];
	return NULL;
}
