#!/usr/bin/env bash
# Bad plugin arms are bad input: exit 2, one line naming the scenario's
# FILE:LINE (the [arm] key at fault, or the a/b line of a shortcut), and
# the database exactly as it was (no file made, no row added).
. "$(dirname "$0")/lib.sh"
build=$(dirname "$AB")
rga="$build/examples/plugin/librga_plugin.so"
fault="$build/examples/plugin/libfault_plugin.so"
db="$T/keep.db"
expect_exit 0 "a first good run" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --no-progress
sum_before=$(md5sum "$db" | cut -d' ' -f1)

# scenario FILE B_ARM [ARM SECTION]: one residual_gate_add case (line 7).
scenario() {
	printf '[scenario]\nbackend = cpu\n[arms]\na = eager\nb = %s\n[case gate]\nsite = residual_gate_add\nshape = 1x16x256\n%s\n' \
		"$2" "${3:-}" >"$1"
}
n=0
# refused DESCRIPTION LINE MESSAGE-REGEX: the scenario in $T/s.ini.
refused() {
	n=$((n + 1))
	expect_exit 2 "$1 is refused" "$AB" run "$T/s.ini" --db "$db" --no-progress
	check "$1: the message names $T/s.ini:$2" grep -Eq "^abbench: error: $T/s.ini:$2: $3" "$T/err"
	check "$1: one line" test "$(wc -l <"$T/err")" -eq 1
	expect_exit 2 "$1 is refused before a database is made" "$AB" run "$T/s.ini" --db "$T/new$n.db" --no-progress
	check "$1: no database file" test ! -e "$T/new$n.db"
}

scenario "$T/s.ini" "plugin:$T/nope.so:rga_exact"
refused "a missing library" 5 "arm 'rga_exact': cannot open '$T/nope.so': No such file or directory"
cp scenarios/smoke.ini "$T/not_elf.so"
scenario "$T/s.ini" "plugin:$T/not_elf.so:x"
refused "a file that is not a shared library" 5 "arm 'x': cannot load '$T/not_elf.so': .*"
scenario "$T/s.ini" "plugin:$build/tests/plugins/libno_entry.so:rga_exact"
refused "a library without the entry symbol" 5 "arm 'rga_exact': '.*libno_entry.so' has no symbol 'abbench_plugin_entry': not an abbench plugin"
scenario "$T/s.ini" "plugin:$build/tests/plugins/libabi_mismatch.so:rga_exact"
refused "an ABI version mismatch" 5 "arm 'rga_exact': '.*libabi_mismatch.so' was built for plugin ABI version 999; this abbench speaks version 2"
scenario "$T/s.ini" "plugin:$rga:rga_fast"
refused "an arm the plugin lacks" 5 "arm 'rga_fast': '.*librga_plugin.so' has no arm 'rga_fast' \(its arms: rga_exact, rga_inexact\)"
scenario "$T/s.ini" "plugin:$fault:wrong_site"
refused "a shortcut arm of another site" 5 "arm 'wrong_site': the plugin's arm implements site 'ln_modulate', but case 'gate' \(line 6\) has site 'residual_gate_add'"
scenario "$T/s.ini" mine "[arm mine]
type = plugin
site = residual_gate_add
library = $fault
name = wrong_site"
refused "an [arm] whose plugin arm is of another site than its site key" 11 "arm 'mine': the plugin's arm 'wrong_site' implements site 'ln_modulate', not 'residual_gate_add'"
scenario "$T/s.ini" mine "[arm mine]
type = plugin
site = ln_modulate
library = $rga
name = rga_exact"
refused "an [arm] whose site key is not the case's" 11 "site: arm 'mine' is for site 'ln_modulate', but case 'gate' \(line 6\) has site 'residual_gate_add'"
scenario "$T/s.ini" "plugin:$fault:no_such_site"
refused "a plugin arm of a site abbench lacks" 5 "arm 'no_such_site': the plugin's arm 'no_such_site' is for site 'no_such_site', which abbench does not have"
scenario "$T/s.ini" "plugin:$fault:bad_tensor"
refused "an arm whose check asks for a tensor the site lacks" 5 "arm 'bad_tensor': refuses case 'gate' \(line 6\): the plugin's check function failed \(status 2\): site 'residual_gate_add' has no tensor 'y'"
scenario "$T/s.ini" "plugin:$fault:cuda_only"
refused "an arm without a cpu function on the cpu backend" 5 "arm 'cuda_only': the plugin's arm has no cpu function, and this run uses the cpu backend"
scenario "$T/s.ini" "plugin:$rga"
refused "a shortcut without an arm name" 5 "b: 'plugin:$rga' is not of the form plugin:PATH:ARM"
scenario "$T/s.ini" "plugin:$rga:a/b"
refused "a shortcut arm name with a slash" 5 "b: 'plugin:$rga:a/b': the arm name 'a/b' may use only letters"
scenario "$T/s.ini" mine "[arm mine]
type = plugin
site = residual_gate_add
name = rga_exact"
refused "an [arm] without a library" 9 "\[arm mine\]: missing key 'library' \(the plugin's shared library\)"
scenario "$T/s.ini" mine "[arm mine]
site = residual_gate_add
library = $rga
name = rga_exact"
refused "an [arm] without a type" 9 "\[arm mine\]: missing key 'type' \(plugin, cubin or python\)"
scenario "$T/s.ini" mine "[arm mine]
type = plugin
library = $rga
name = rga_exact
kernel = rga"
refused "a cubin key in a plugin arm" 13 "kernel: not a key of plugin arms"
scenario "$T/s.ini" mine "[arm mine]
type = shared
library = $rga
name = rga_exact"
refused "an unknown arm type" 10 "type: 'shared' is not one of: plugin, cubin"
scenario "$T/s.ini" fused "[arm fused]
type = plugin
library = $rga
name = rga_exact"
refused "an [arm] named like a built-in variant" 9 "\[arm fused\]: 'fused' is a built-in variant"
scenario "$T/s.ini" nosuch "[arm mine]
type = plugin
library = $rga
name = rga_exact"
refused "an arm that is neither a variant nor an [arm]" 5 "b: unknown variant or arm 'nosuch' \(variants: eager, fused, twopass, fused.pf8, fused.r1, fused.generic; arms: mine\)"

check "there were bad plugin arms to try" test "$n" -ge 18
check "the database file is unchanged" test "$(md5sum "$db" | cut -d' ' -f1)" = "$sum_before"
finish
