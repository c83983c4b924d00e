/*
 * suggest.c - "did you mean" (suggest.h): the optimal-string-alignment
 * distance of short words, case ignored, and the hints built on it.
 */
#include "common/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define WORD_MAX 64

/* Optimal string alignment distance (Levenshtein plus the swap of two
 * neighbours), case ignored; 99 for words of WORD_MAX characters or more.
 * Three rows: the swap looks two rows back. */
static int osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int rows[3][WORD_MAX + 1];
	if (la >= WORD_MAX || lb >= WORD_MAX)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *cur = rows[i % 3], *up = rows[(i - 1) % 3], *up2 = rows[(i + 1) % 3];
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int best = up[j - 1] + (ca != cb);
			if (up[j] + 1 < best)
				best = up[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && up2[j - 2] + 1 < best)
				best = up2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[la % 3][lb];
}

/* Whether name starts word (case ignored). */
static int is_prefix(const char *name, const char *word)
{
	size_t n = strlen(name);
	if (n > strlen(word))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)name[i]) != tolower((unsigned char)word[i]))
			return 0;
	return 1;
}

/* The one word name is a prefix of (3 characters or more), NULL when
 * none or several. */
static const char *unique_prefix(const char *name, const char *const *words, int n)
{
	const char *found = NULL;
	if (strlen(name) < 3)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!words[i] || !is_prefix(name, words[i]))
			continue;
		if (found && strcmp(found, words[i]))
			return NULL;
		found = words[i];
	}
	return found;
}

const char *suggest_nearest(const char *name, const char *const *words, int n)
{
	const char *best = NULL;
	int best_dist = 3;
	if (!name || !*name)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!words[i] || !*words[i])
			continue;
		int dist = osa_distance(name, words[i]);
		size_t longer = strlen(name) > strlen(words[i]) ? strlen(name) : strlen(words[i]);
		if (dist <= 2 && 2 * (size_t)dist < longer && dist < best_dist) {
			best = words[i];
			best_dist = dist;
		}
	}
	return best ? best : unique_prefix(name, words, n);
}

/* Splits list into words (commas and spaces separate them) in place in
 * buf; returns how many, at most max. */
static int split_list(const char *list, char *buf, size_t len, const char **words, int max)
{
	int n = 0;
	snprintf(buf, len, "%s", list ? list : "");
	for (char *p = buf; *p && n < max;) {
		p += strspn(p, ", ");
		if (!*p)
			break;
		size_t k = strcspn(p, ", ");
		words[n++] = p;
		if (!p[k])
			break;
		p[k] = '\0';
		p += k + 1;
	}
	return n;
}

const char *suggest_nearest_in(const char *name, const char *list, char *out, size_t len)
{
	char buf[1024];
	const char *words[128];
	int n = split_list(list, buf, sizeof buf, words, 128);
	const char *near = suggest_nearest(name, words, n);
	if (!near)
		return NULL;
	snprintf(out, len, "%s", near);
	return out;
}

/* The words joined by ", " into buf; its length (past len when cut). */
static size_t join(const char *const *words, int n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!words[i] || !*words[i])
			continue;
		int k = snprintf(buf + (used < len ? used : len - 1), used < len ? len - used : 1, "%s%s", used ? ", " : "",
				 words[i]);
		used += (size_t)(k > 0 ? k : 0);
	}
	return used;
}

const char *suggest_hint(const char *name, const char *const *words, int n, const char *noun, const char *fallback,
			 int list_too, char *buf, size_t len)
{
	char list[SUGGEST_LIST_MAX + 32];
	const char *near = suggest_nearest(name, words, n);
	size_t used = join(words, n, list, sizeof list);
	int fits = used > 0 && used <= SUGGEST_LIST_MAX;
	if (near && list_too && fits)
		snprintf(buf, len, " (did you mean '%s'? %s: %s)", near, noun, list);
	else if (near)
		snprintf(buf, len, " (did you mean '%s'?)", near);
	else if (fits)
		snprintf(buf, len, " (%s: %s)", noun, list);
	else if (fallback && *fallback)
		snprintf(buf, len, " (%s)", fallback);
	else if (used == 0)
		snprintf(buf, len, " (there are no %s)", noun);
	else
		buf[0] = '\0';
	return buf;
}

const char *suggest_hint_in(const char *name, const char *list, const char *noun, const char *fallback, int list_too,
			    char *buf, size_t len)
{
	char words_buf[1024];
	const char *words[128];
	int n = split_list(list, words_buf, sizeof words_buf, words, 128);
	return suggest_hint(name, words, n, noun, fallback, list_too, buf, len);
}

void suggest_unknown_key(const char *name, const char *const *keys, int n, const char *section, char *msg,
			 size_t len)
{
	char hint[SUGGEST_LIST_MAX + 64];
	suggest_hint(name, keys, n, "keys", "docs/SCENARIO_FORMAT.md lists the keys", 0, hint, sizeof hint);
	snprintf(msg, len, "unknown key in %s%s", section, hint);
}
