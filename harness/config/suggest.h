/*
 * suggest.h - the reason given for a key a section does not know: the
 * known key it is most likely a typo of ("did you mean 'warmup'?"), else
 * the list of keys. One wording for the scenario's sections
 * (config/scenario_keys.c) and for the kinds' [arm NAME] keys
 * (harness/arms/arm_kind.c).
 */
#ifndef AB_SUGGEST_H
#define AB_SUGGEST_H

#include <stddef.h>

/* "unknown key in SECTION (did you mean 'KEY'?)": the first of keys[0..n)
 * within 2 edits of name and less than half its own length away; else
 * "(keys: a, b, ...)", or a pointer to docs/SCENARIO_FORMAT.md when that
 * list passes 100 characters. Written into msg. */
void suggest_unknown_key(const char *name, const char *const *keys, int n, const char *section, char *msg,
			 size_t len);

/* The first of words[0..n) within 2 edits of name and less than half its
 * own length away (the rule above), NULL when none: "did you mean" for
 * mistyped commands and options (harness/cli). */
const char *suggest_nearest(const char *name, const char *const *words, int n);

#endif
