/*
 * allocs.c - a set of allocations freed together (allocs.h).
 */
#include "common/allocs.h"

#include <stdlib.h>

void *allocs_calloc(struct allocs *a, size_t n, size_t size)
{
	void *p = a->n < ALLOCS_MAX ? calloc(n ? n : 1, size) : NULL;
	if (!p)
		a->failed = true;
	else
		a->p[a->n++] = p;
	return p;
}

void allocs_free(struct allocs *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->p[i]);
	a->n = 0;
	a->failed = false;
}
