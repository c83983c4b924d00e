#!/usr/bin/env bash
# The layer rule of docs/ARCHITECTURE.md, read from the #include lines
# (tests/tools/layer_check.py): common < store | backend < config < run <
# analysis < print < cli; a file includes only its own layer or layers
# below; store and backend do not include each other; backend/cuda/ is
# private to the CUDA backend; kernels/ sits at the bottom and never
# includes harness/; harness/ spells includes from the include roots;
# analysis/ includes no store/ header and no config/ header whose module
# opens files; print/ includes nothing from backend/.
# Then the checker is shown to catch each kind of violation, planted in a
# copy of the tree.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "the tree keeps the layer rule" python3 tests/tools/layer_check.py .
check "it read the includes ($(tail -1 "$T/out"))" grep -Eq '^[1-9][0-9]+ includes checked, 0 violations$' "$T/out"
if [ -s "$T/out" ] && [ "$(wc -l <"$T/out")" -gt 1 ]; then sed 's/^/    /' "$T/out" | head -20; fi

# plant FILE LINE DESCRIPTION: a copy of the tree with LINE appended to FILE
# must fail the check, naming FILE.
plant() {
	local file=$1 line=$2 desc=$3
	rm -rf "$T/tree" && mkdir "$T/tree" && cp -r harness kernels "$T/tree/"
	printf '%s\n' "$line" >>"$T/tree/$file"
	expect_exit 1 "caught: $desc" python3 tests/tools/layer_check.py "$T/tree"
	check "  the message names $file" grep -q "^$file:" "$T/out"
}
plant harness/analysis/summary.c '#include "print/md.h"' "analysis includes print (upward)"
plant harness/store/store.c '#include "backend/backend.h"' "store includes backend (siblings)"
plant harness/backend/backend.c '#include "store/store.h"' "backend includes store (siblings)"
plant harness/backend/backend.h '#include "config/scenario.h"' "backend includes config (upward)"
plant harness/run/runner.c '#include "backend/cuda/cupti.h"' "run includes backend/cuda (private)"
plant harness/common/diag.c '#include "cli/cli.h"' "common includes cli"
plant kernels/common/site.h '#include "common/diag.h"' "kernels includes harness by root"
plant kernels/common/site.c '#include "../../harness/common/diag.h"' "kernels includes harness by a relative path"
plant kernels/ln_modulate/cpu.c '#include "../common/bf16.h"' "a relative include in kernels"
plant kernels/qk_layernorm/site.c '#include "qk_layernorm.h"' "a bare include of its own folder in kernels"
plant harness/print/show.c '#include "../analysis/summary.h"' "a relative include in harness"
plant harness/cli/cmd_show.c '#include "cli.h"' "a bare include of its own folder in harness"
plant harness/analysis/history.h '#include "store/store.h"' "analysis includes the store"
plant harness/analysis/summary.c '#include "config/scenario.h"' "analysis includes a config module that opens files"
plant harness/analysis/bandwidth.h '#include "config/profile.h"' "analysis includes the profile lookup (opens files)"
plant harness/print/report_charts.c '#include "backend/attrib.h"' "print includes backend"
plant harness/print/show.c '#include "backend/cuda/cupti.h"' "print includes backend/cuda"

rm -rf "$T/tree" && mkdir "$T/tree" && cp -r harness kernels "$T/tree/"
mkdir "$T/tree/harness/newlayer" && echo 'int x;' >"$T/tree/harness/newlayer/x.c"
expect_exit 1 "caught: a source file in a folder that is not a layer" python3 tests/tools/layer_check.py "$T/tree"
check "  the message says where to give it a place" grep -q '^harness/newlayer/x.c: not in a known layer folder' "$T/out"

rm -rf "$T/tree" && mkdir "$T/tree" && cp -r harness kernels "$T/tree/"
printf '#include "common/diag.h"\n#include "store/store.h"\n#include "kernels/common/site.h"\n' >>"$T/tree/harness/run/stopping.c"
expect_exit 0 "allowed: run includes common, store and kernels" python3 tests/tools/layer_check.py "$T/tree"

# A config module that reads no file may be included by analysis/; once it
# opens one, the same include is caught.
rm -rf "$T/tree" && mkdir "$T/tree" && cp -r harness kernels "$T/tree/"
printf '#include "config/expr.h"\n' >>"$T/tree/harness/analysis/steps.c"
expect_exit 0 "allowed: analysis includes a config module that opens no file" python3 tests/tools/layer_check.py "$T/tree"
printf 'static void *x(void) { return fopen("f", "r"); }\n' >>"$T/tree/harness/config/expr.c"
expect_exit 1 "caught: the same include once the module opens a file" python3 tests/tools/layer_check.py "$T/tree"
check "  the message names harness/analysis/steps.c" grep -q '^harness/analysis/steps.c:.*opens files' "$T/out"
finish
