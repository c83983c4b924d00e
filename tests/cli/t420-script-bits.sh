#!/usr/bin/env bash
# Every script keeps its run bit: each file under scripts/ and tests/ that
# starts with "#!" is executable on disk and in git's index (mode 100755),
# so `scripts/gpu/session.sh sites` and a CI step that runs a script by
# its path never meet "Permission denied" (scripts/gpu/sites.sh once had
# no bit); and a .sh file without "#!" is a library that is sourced, named
# lib.sh or *_lib.sh. A file added without the bit fails here, named.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2

# bad_bits: of the files named on stdin, each script without its run bit
# on disk ("FILE: no run bit") or in git's index ("FILE: mode M in git"),
# and each .sh that is neither a script nor a *lib.sh ("FILE: no #!").
bad_bits() {
	local f mode
	while IFS= read -r f; do
		[ -f "$f" ] || continue
		if [ "$(head -c 2 "$f")" = "#!" ]; then
			[ -x "$f" ] || echo "$f: no run bit"
			if git ls-files --error-unmatch -- "$f" >/dev/null 2>&1; then
				mode=$(git ls-files -s -- "$f" | cut -d' ' -f1)
				[ "$mode" = 100755 ] || echo "$f: mode $mode in git"
			fi
		else
			case "$f" in
			*lib.sh) ;;
			*.sh) echo "$f: no #!" ;;
			esac
		fi
	done
}

files=$(git ls-files scripts tests 2>/dev/null)
[ -n "$files" ] || files=$(find scripts tests -type f | sort) # not a git checkout: the files on disk
n_scripts=$(while IFS= read -r f; do [ "$(head -c 2 "$f")" = "#!" ] && echo; done <<<"$files" | wc -l)
bad=$(bad_bits <<<"$files")
check "scripts under scripts/ and tests/: $n_scripts" test "$n_scripts" -gt 100
check "every one executable, on disk and in git's index${bad:+: $(echo $bad)}" test -z "$bad"
check "scripts/gpu/sites.sh among them, with its bit" test -x scripts/gpu/sites.sh
check "every CLI test among them" \
	test "$(ls tests/cli/t[0-9]*.sh | wc -l)" -eq "$(grep -c '^tests/cli/t[0-9].*\.sh$' <<<"$files")"

# The check finds what it is for: a script without its bit, a .sh that
# is neither script nor library; a library and a script with its bit pass.
mkdir -p "$T/s"
printf '#!/bin/sh\necho hi\n' >"$T/s/nobit.sh"
printf '#!/bin/sh\necho hi\n' >"$T/s/bit.sh"
chmod +x "$T/s/bit.sh"
printf 'helper() { :; }\n' >"$T/s/lib.sh"
printf 'echo hi\n' >"$T/s/stray.sh"
found=$(printf '%s\n' "$T/s/nobit.sh" "$T/s/bit.sh" "$T/s/lib.sh" "$T/s/stray.sh" | bad_bits)
check "a script without its bit is named" grep -qx "$T/s/nobit.sh: no run bit" <<<"$found"
check "a .sh without #! that is no library is named" grep -qx "$T/s/stray.sh: no #!" <<<"$found"
check "nothing else" test "$(grep -c . <<<"$found")" -eq 2
finish
