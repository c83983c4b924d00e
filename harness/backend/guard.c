/*
 * guard.c - compares the guard zones of a tensor (guard.h).
 */
#include "backend/guard.h"

#include <stdio.h>

/* Bytes of zone that differ from GUARD_FILL; *first is the index of the
 * first one counted from the tensor's edge outwards. */
static size_t count_changed(const unsigned char *zone, bool before, size_t *first)
{
	size_t n = 0;
	for (size_t i = 0; i < GUARD_BYTES; i++) {
		size_t at = before ? GUARD_BYTES - 1 - i : i; /* nearest the tensor first */
		if (zone[at] == GUARD_FILL)
			continue;
		if (n++ == 0)
			*first = i;
	}
	return n;
}

bool guard_check(const unsigned char *before, const unsigned char *after, char *why, size_t len)
{
	size_t first_b = 0, first_a = 0;
	size_t nb = count_changed(before, true, &first_b), na = count_changed(after, false, &first_a);
	if (nb == 0 && na == 0)
		return true;
	if (na)
		snprintf(why, len, "%zu of the %d guard bytes after its end changed (the first at end+%zu)%s", na,
			 GUARD_BYTES, first_a, nb ? ", and some before its start" : "");
	else
		snprintf(why, len, "%zu of the %d guard bytes before its start changed (the nearest at start-%zu)", nb,
			 GUARD_BYTES, first_b + 1);
	return false;
}
