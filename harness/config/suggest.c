/*
 * suggest.c - "did you mean" for unknown keys (suggest.h), by the edit
 * distance (insertions, deletions, substitutions) of short words.
 */
#include "config/suggest.h"

#include <stdio.h>
#include <string.h>

/* Levenshtein distance; 99 for words of 64 characters or more. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64];
	if (la >= 64 || lb >= 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *suggest_nearest(const char *name, const char *const *words, int n)
{
	for (int i = 0; i < n; i++) {
		int dist = edit_distance(name, words[i]);
		if (dist <= 2 && 2 * dist < (int)strlen(words[i]))
			return words[i];
	}
	return NULL;
}

void suggest_unknown_key(const char *name, const char *const *keys, int n, const char *section, char *msg,
			 size_t len)
{
	char list[160] = "";
	size_t used = 0;
	const char *near = suggest_nearest(name, keys, n);
	if (near) {
		snprintf(msg, len, "unknown key in %s (did you mean '%s'?)", section, near);
		return;
	}
	for (int i = 0; i < n && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", keys[i]);
	if (strlen(list) > 100)
		snprintf(msg, len, "unknown key in %s (docs/SCENARIO_FORMAT.md lists the keys)", section);
	else
		snprintf(msg, len, "unknown key in %s (keys: %s)", section, list);
}
