/*
 * suggest.h - "did you mean": the one helper behind every lookup of a name
 * a user typed (a command, an option, a site, a variant or arm, a tensor, a
 * run label or baseline, a format, a backend, a scenario or profile key).
 * It sits in common/ so that every layer that looks a name up (config/,
 * store/, backend/, cli/) words the miss the same way.
 *
 * Nearness: the optimal-string-alignment distance (insertions, deletions,
 * substitutions and swaps of two neighbours, each 1), case ignored. A word
 * is near when that distance is at most 2 and less than half the longer
 * word's length ("rnu" is near "run": one swap), or when the name is a
 * prefix of it of 3 characters or more that no other word shares ("rep"
 * for "report"). The nearest wins; among equals, the first.
 */
#ifndef AB_SUGGEST_H
#define AB_SUGGEST_H

#include <stddef.h>

/* Lists longer than this are not spelled out in a hint (the fallback is
 * given instead). */
#define SUGGEST_LIST_MAX 100

/* The word of words[0..n) nearest to name (the rule above), NULL when
 * none is near. NULL entries are skipped. */
const char *suggest_nearest(const char *name, const char *const *words, int n);

/* suggest_nearest over a list written as text: words separated by commas
 * and/or spaces ("eager, fused, twopass"). The word found is copied into
 * out; NULL when none is near. */
const char *suggest_nearest_in(const char *name, const char *list, char *out, size_t len);

/* The parenthesised hint for a name that is not among words[0..n),
 * written into buf (which it returns):
 *   " (did you mean 'X'?)"          a near word;
 *   " (NOUN: a, b, c)"              else the words, while they fit in
 *                                   SUGGEST_LIST_MAX characters;
 *   " (FALLBACK)"                   else the fallback ("see 'abbench
 *                                   sites'"), or "" when it is NULL or
 *                                   the list is empty and there is none.
 * With list_too (a few words), a near word and the list are both given:
 * " (did you mean 'X'? NOUN: a, b, c)". */
const char *suggest_hint(const char *name, const char *const *words, int n, const char *noun, const char *fallback,
			 int list_too, char *buf, size_t len);

/* suggest_hint over a list written as text (suggest_nearest_in's form). */
const char *suggest_hint_in(const char *name, const char *list, const char *noun, const char *fallback, int list_too,
			    char *buf, size_t len);

/* "unknown key in SECTION (did you mean 'KEY'?)", else "(keys: a, b,
 * ...)", or a pointer to docs/SCENARIO_FORMAT.md when that list passes
 * SUGGEST_LIST_MAX characters. Written into msg. One wording for the
 * scenario's sections (config/scenario_keys.c), the kinds' [arm NAME] keys
 * (harness/arms/arm_kind.c) and a profile's keys (config/profile.c). */
void suggest_unknown_key(const char *name, const char *const *keys, int n, const char *section, char *msg,
			 size_t len);

#endif
