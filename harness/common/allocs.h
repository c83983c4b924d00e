/*
 * allocs.h - allocations made one by one as a set, checked once and freed
 * together: the ten or more arrays a chart is built from (print/).
 */
#ifndef AB_ALLOCS_H
#define AB_ALLOCS_H

#include <stdbool.h>
#include <stddef.h>

#define ALLOCS_MAX 24

struct allocs {
	void *p[ALLOCS_MAX];
	int n;
	bool failed; /* an allocation failed: out of memory, or more than ALLOCS_MAX */
};

/* calloc(n, size), kept in a; NULL, and a->failed set, when out of memory
 * or a is full. */
void *allocs_calloc(struct allocs *a, size_t n, size_t size);

/* Frees each allocation of a; a is empty after. */
void allocs_free(struct allocs *a);

#endif
