#!/usr/bin/env bash
# Compiled-binary arms ([arm NAME] type = cubin) are checked before anything
# runs, on any machine: the file (cubin ELF, PTX text, Triton's .json and
# the .cubin beside it), the kernel's name, its parameter count and sizes
# against the params list, the launch expressions for every case. Each bad
# input exits 2 with one line naming the scenario's FILE:LINE and makes no
# database. A correct arm on the cpu backend is refused too: cubins run on
# the cuda backend only (scripts/gpu/plugins.sh runs them).
# The PTX and JSON files are written here; the cubins are the examples
# make builds with nvcc (that part is skipped without them).
. "$(dirname "$0")/lib.sh"
cubins="$(dirname "$AB")/examples/cubin"
n=0

# arm FILE SITE CASE_SHAPE BODY...: an [arm my] section (header at line 5,
# type and site at 6 and 7, BODY from line 8 on) and one case of SITE
# after it (at line 13 after five BODY lines).
arm() {
	local f=$1 site=$2 shape=$3; shift 3
	{ printf '[scenario]\nbackend = cpu\n[arms]\nb = my\n[arm my]\ntype = cubin\nsite = %s\n' "$site"
	  printf '%s\n' "$@"
	  printf '[case c]\nsite = %s\nshape = %s\n' "$site" "$shape"; } >"$f"
}
# refused DESCRIPTION LINE MESSAGE-REGEX (scenario $T/s.ini)
refused() {
	n=$((n + 1))
	expect_exit 2 "$1 is refused" "$AB" run "$T/s.ini" --db "$T/db$n.db" --no-progress
	check "$1: the message names $T/s.ini:$2" grep -Eq "^abbench: error: $T/s.ini:$2: $3" "$T/err"
	check "$1: one line" test "$(wc -l <"$T/err")" -eq 1
	check "$1: no database made" test ! -e "$T/db$n.db"
}

cat >"$T/k.ptx" <<'EOF'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 .ptr .global .align 1 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2,
	.param .f32 k_param_3
)
{
	ret;
}
EOF
ptx() { arm "$T/s.ini" residual_gate_add 1x16x256 "binary = k.ptx" "kernel = ${KERNEL:-k}" "grid = ${GRID:-M}" \
	"block = ${BLOCK:-128}" "params = ${PARAMS:-x, out, M, eps}"; }

ptx
refused "a correct PTX arm on the cpu backend" 5 "arm 'my': a cubin arm runs on the cuda backend only, and this run uses the cpu backend"
PARAMS="x, out, M" ptx
refused "too few parameters (PTX)" 12 "arm 'my': kernel 'k' takes 4 parameters \(ptx\), params lists 3"
PARAMS="x, out, M:i64, eps" ptx
refused "a 64-bit integer where the kernel takes 32 bits" 12 "arm 'my': parameter 3 \('M:i64'\) of kernel 'k' is 4 bytes \(ptx\), abbench passes 8"
KERNEL=kk ptx
refused "a kernel the PTX lacks" 9 "arm 'my': '$T/k.ptx': no kernel 'kk' in the ptx \(entries: k\)"
PARAMS="x, outt, M, eps" ptx
refused "an unknown tensor name" 12 "params: unknown name 'outt': not a tensor of site 'residual_gate_add' \(x, ff, gate, out, ff_gated\), eps, or a shape symbol"
PARAMS="x, out, M * Q, eps" ptx
refused "an unknown shape symbol in params" 12 "params: 'M \* Q': unknown symbol 'Q'"
GRID="cdiv(M, 4" ptx
refused "a bad expression" 10 "grid: 'cdiv\(M, 4': expected '\)' at the end"
GRID="cdiv(M, 4), Z" ptx
refused "an unknown shape symbol in grid" 10 "grid: 'Z': unknown symbol 'Z'"
GRID="M, 1, 1, 1" ptx
refused "four grid dimensions" 10 "grid: 'M, 1, 1, 1' has more than 3 dimensions"
GRID="M / (T - T)" ptx
refused "a grid dividing by zero for the case" 10 "arm 'my': grid x for case 'c' \(line 13\): division by zero"
GRID="M - 64" ptx
refused "a grid of 0 blocks for the case" 10 "arm 'my': grid x is -48 for case 'c' \(line 13\): must be 1 to 2147483647"
BLOCK=2048 ptx
refused "a block of 2048 threads" 11 "arm 'my': block x is 2048 for case 'c' \(line 13\): must be 1 to 1024"
BLOCK="32, 32, 2" ptx
refused "a 3-D block of 2048 threads" 11 "arm 'my': block is 32 x 32 x 2 threads for case 'c' \(line 13\): at most 1024"
PARAMS="x, out, M * 1000000000, eps" ptx
refused "an i32 parameter that overflows for the case" 12 "arm 'my': M \* 1000000000 is 16000000000 for case 'c' \(line 13\): must be -2147483648 to 2147483647"
arm "$T/s.ini" residual_gate_add 1x16x256 "binary = nope.cubin" "kernel = k" "grid = M" "block = 128" "params = x"
refused "a missing binary" 8 "arm 'my': cannot open '$T/nope.cubin': No such file or directory"
cp "$T/s.ini" "$T/junk.bin"
arm "$T/s.ini" residual_gate_add 1x16x256 "binary = junk.bin" "kernel = k" "grid = M" "block = 128" "params = x"
refused "a file that is no binary" 9 "arm 'my': '$T/junk.bin': neither a cubin \(ELF\), a fatbin nor PTX text"
arm "$T/s.ini" residual_gate_add 1x16x256 "binary = k.ptx" "grid = M" "block = 128" "params = x"
refused "a binary without kernel" 5 "\[arm my\]: missing key 'kernel' \(the kernel's name in the binary\)"
arm "$T/s.ini" residual_gate_add 1x16x256 "binary = k.ptx" "triton = k.json" "kernel = k" "grid = M" "params = x"
refused "both binary and triton" 9 "\[arm my\]: give triton \(Triton's metadata .json\) or binary, not both"
arm "$T/s.ini" residual_gate_add 1x16x256 "binary = k.ptx" "kernel = k" "grid = M" "block = 128" "library = x.so" "params = x"
refused "a plugin key in a cubin arm" 12 "library: not a key of cubin arms"

# Triton's metadata, hand-written. A missing key, bad values, launches
# Triton would make differently, the .cubin that must sit beside it.
meta() { # EXTRA-JSON-MEMBERS
	printf '{"name": "k", "num_warps": 4, "num_ctas": %s, "shared": 0, "target": {"backend": "%s", "arch": 90, "warp_size": 32}, "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0, "profile_scratch_align": 1, "launch_cooperative_grid": %s, "triton_version": "3.6.0"}' \
		"${CTAS:-1}" "${BACKEND:-cuda}" "${COOP:-false}" >"$T/k.json"
}
tri() { arm "$T/s.ini" residual_gate_add 1x16x256 "triton = k.json" "grid = M" "params = ${PARAMS:-x, out, M, eps}" "$@"; }
meta; rm -f "$T/k.cubin"; tri
refused "Triton metadata without its .cubin beside it" 8 "arm 'my': cannot open '$T/k.cubin': No such file or directory"
echo '{"name": "k", "num_warps": ' >"$T/k.json"; tri
refused "Triton metadata that is not JSON" 8 "arm 'my': '$T/k.json': not valid JSON"
echo '{"num_warps": 4, "shared": 0, "target": {"backend": "cuda", "arch": 90}}' >"$T/k.json"; tri
refused "Triton metadata without a name" 8 "arm 'my': '$T/k.json': no 'name' in the metadata"
CTAS=2 meta; tri
refused "a Triton kernel for clusters" 8 "arm 'my': '$T/k.json': num_ctas = 2: cluster launches are not supported"
COOP=true meta; tri
refused "a cooperative Triton kernel" 8 "arm 'my': '$T/k.json': launch_cooperative_grid: cooperative launches are not supported"
BACKEND=hip meta; tri
refused "a Triton kernel for another backend" 8 "arm 'my': '$T/k.json': target backend 'hip': abbench runs cuda kernels only"
meta; tri "block = 128"
refused "a block with Triton's metadata" 11 "block: comes from the Triton metadata \(32 x num_warps\)"
meta; tri "kernel = other"
refused "a kernel name that is not the metadata's" 11 "arm 'my': kernel 'other', but the Triton metadata names 'k'"

if [ -f "$cubins/rga_cubin.cubin" ] && [ -f "$cubins/ln_tritonlike.cubin" ]; then
	rga() { arm "$T/s.ini" residual_gate_add 1x16x256 "binary = $cubins/rga_cubin.cubin" "kernel = rga_cubin" \
		"grid = cdiv(M * W, 256)" "block = 256" "params = ${PARAMS:-x, ff, gate, out, M * W:i64, W, T}"; }
	rga
	refused "the example cubin, correct, on the cpu backend" 5 "arm 'my': a cubin arm runs on the cuda backend only"
	PARAMS="x, ff, gate, out, M * W, W, T" rga
	refused "an i32 where the cubin's kernel takes 8 bytes" 12 "arm 'my': parameter 5 \('M \* W'\) of kernel 'rga_cubin' is 8 bytes \(cubin\), abbench passes 4 \(write NAME:i64 for a 64-bit integer\)"
	PARAMS="x, ff, gate, out, M * W:i64, W" rga
	refused "too few parameters (cubin)" 12 "arm 'my': kernel 'rga_cubin' takes 7 parameters \(cubin\), params lists 6"
	head -c 300 "$cubins/rga_cubin.cubin" >"$T/cut.cubin"
	arm "$T/s.ini" residual_gate_add 1x16x256 "binary = cut.cubin" "kernel = rga_cubin" "grid = M" "block = 256" "params = x"
	refused "a truncated cubin" 9 "arm 'my': '$T/cut.cubin': damaged cubin"
	arm "$T/s.ini" residual_gate_add 1x16x256 "binary = $cubins/rga_cubin.cubin" "kernel = rga" "grid = M" "block = 256" "params = x"
	refused "a kernel the cubin lacks" 9 "arm 'my': '.*rga_cubin.cubin': no kernel 'rga' in the cubin \(kernels: rga_cubin\)"
	arm "$T/s.ini" ln_modulate 1x16x256 "triton = $cubins/ln_tritonlike.json" "grid = M" "params = x, scale, shift, out, N, T"
	refused "Triton-style kernel, one parameter short" 10 "arm 'my': kernel 'ln_tritonlike' takes 9 parameters \(cubin\): params lists 6, and Triton's 2 scratch pointers make 8"
	arm "$T/s.ini" ln_modulate 1x16x256 "triton = $cubins/ln_tritonlike.json" "grid = M" "params = x, scale, shift, out, N, T, eps"
	refused "the Triton-style example, correct, on the cpu backend" 5 "arm 'my': a cubin arm runs on the cuda backend only"
else
	ok "example cubins not built (no nvcc): their checks skipped"
fi
check "there were bad cubin arms to try" test "$n" -ge 25
finish
