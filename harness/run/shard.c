/*
 * shard.c - the round-robin split of a scenario's cases (shard.h).
 */
#include "run/shard.h"

#include <stdio.h>
#include <string.h>

#include "common/numparse.h"

enum ab_rc shard_parse(const char *text, struct shard *out, struct ab_diag *d)
{
	char i_text[16], n_text[16];
	const char *slash = strchr(text, '/');
	size_t li = slash ? (size_t)(slash - text) : 0;
	int i = 0, n = 0;
	if (slash && li > 0 && li < sizeof i_text && strlen(slash + 1) < sizeof n_text) {
		memcpy(i_text, text, li);
		i_text[li] = '\0';
		snprintf(n_text, sizeof n_text, "%s", slash + 1);
		if (numparse_int(i_text, &i) && numparse_int(n_text, &n) && n >= 1 && n <= SHARD_MAX && i >= 1 &&
		    i <= n) {
			out->index = i;
			out->count = n;
			return AB_OK;
		}
	}
	return ab_fail(d, AB_ERR_USAGE, "--shard must be I/N with 1 <= I <= N <= %d, not '%s'", SHARD_MAX, text);
}

bool shard_has(const struct shard *s, int k)
{
	return s->count == 0 || k % s->count == s->index - 1;
}

enum ab_rc shard_check_set_id(const char *id, struct ab_diag *d)
{
	size_t n = strlen(id);
	if (n >= 1 && n <= 63 && strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n)
		return AB_OK;
	return ab_fail(d, AB_ERR_USAGE, "run set id '%s' must be 1 to 63 letters, digits, '.', '_' or '-'", id);
}
