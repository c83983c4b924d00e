# abbench - build, test and run.
#
#   make            build/abbench (CUDA backend included when nvcc is found)
#   make run        run's deps + build + the GLM-Image scenario + its summary (on
#                   a CPU without a GPU: the same sites at CPU-sized shapes)
#   make test       test's deps + build + unit and CLI tests
#   make deps       install the missing Debian packages of make test (root) or
#                   print the command (scripts/deps.sh: make run needs fewer)
#   make sanitize   the unit and CLI tests under ASan + UBSan
#   make fuzz       the parsers (scenario, profile, cubin/PTX, Triton JSON, certificates)
#                   and the database loader under libFuzzer, FUZZ_SECONDS each
#   make check      build + unit and CLI tests only (what `make test` starts with)
#   make clean
#
# Quiet unless V=1.

CC       ?= cc
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
BUILD    ?= build
# Empty: glm_1024.ini when a CUDA device answers, else glm_cpu.ini (scripts/make_run.sh).
SCENARIO ?=

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
OPT      ?= -O2 -g
# Include roots: harness/ (its layers: "store/store.h"), the top level
# ("kernels/common/site.h") and include/ (the public plugin ABI:
# "abbench/plugin.h"); no relative includes.
INCLUDES := -Iharness -I. -Iinclude
CFLAGS   := -std=c11 -D_DEFAULT_SOURCE $(OPT) $(WARN) $(INCLUDES) -MMD -MP $(EXTRA_CFLAGS)
# The CPU kernels spell every fused multiply-add out with fmaf(): the
# compiler must not contract anything on its own. Their loops are written
# to vectorize (across the LayerNorm block's threads, or along a row);
# vectorizing changes no result (no reassociation without -ffast-math).
# KCC and KOPT compile kernels/ (the fuzz build keeps gcc for them: clang
# 14 mishandles their target_clones, and a parser's fuzzing needs no
# instrumented kernel).
KFLAGS   := -ffp-contract=off -ftree-vectorize -fvect-cost-model=dynamic
KCC      ?= $(CC)
KOPT     ?= $(OPT)
LDFLAGS  := $(EXTRA_LDFLAGS)
# libcsv, inih, jansson and cmark-gfm (the dashboard's markdown to HTML,
# print/md.c) are linked statically (Debian ships the .a files) so
# that the binary starts on the GPU machine, which has none of them.
LDLIBS   := -Wl,-Bstatic -lcsv -linih -ljansson -lcmark-gfm-extensions -lcmark-gfm -Wl,-Bdynamic -lsqlite3 -lcrypto -lm \
	-ldl -lpthread -lrt

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
GIT_DIRTY  := $(shell test -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo -dirty)
# The commit a run records must be the one the binary was built from, so it
# lives in one generated file, rewritten only when it changes (objects that
# do not mention it are not rebuilt).
BUILD_INFO := $(BUILD)/gen/build_info.c
$(shell mkdir -p $(BUILD)/gen && printf '#include "common/version.h"\nconst char *ab_build_commit(void)\n{\n\treturn "%s";\n}\n' \
	'$(GIT_COMMIT)$(GIT_DIRTY)' >$(BUILD_INFO).tmp && (cmp -s $(BUILD_INFO).tmp $(BUILD_INFO) || mv $(BUILD_INFO).tmp $(BUILD_INFO)); rm -f $(BUILD_INFO).tmp)

# The layers of harness/ (docs/ARCHITECTURE.md); backend/cuda only with nvcc.
HARNESS_SRC := $(wildcard $(addprefix harness/,$(addsuffix /*.c,common store backend config arms run analysis print cli)))
HARNESS_SRC := $(filter-out harness/cli/main.c,$(HARNESS_SRC))
# kernels/: the registry, common/ primitives and one folder per site
# (kernels/capi/ is the C ABI of libabbench_kernels.so, not part of abbench).
KERNEL_SRC  := $(filter-out kernels/capi/%,$(wildcard kernels/*.c kernels/*/*.c))
CUDA_SRC    :=

ifneq ($(NVCC),)
HAVE_CUDA := 1
CFLAGS  += -DAB_HAVE_CUDA=1 -I$(CUDA_HOME)/include
HARNESS_SRC += $(wildcard harness/backend/cuda/*.c)
CUDA_SRC    := $(wildcard kernels/*/*.cu harness/backend/cuda/*.cu)
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings \
	-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -DAB_HAVE_CUDA=1 $(EXTRA_NVCCFLAGS)
# CUDA runtime linked statically; the driver (libcuda), CUPTI and NVML are
# opened with dlopen at run time, so the binary starts on machines without them.
LDLIBS  += -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++
else
HAVE_CUDA := 0
CFLAGS  += -DAB_HAVE_CUDA=0
endif

# The standalone GPU self-test (tests/gpu): every shipped fused variant's
# bytes against the eager arm's on the device, linked with the very kernel
# objects abbench is built from (nothing is compiled twice).
# The GPU machine has no cmocka: scripts/gpu_check.sh puts build/gpu/lib on
# LD_LIBRARY_PATH to run the backend's unit tests there.
CMOCKA_SO := $(firstword $(wildcard /usr/lib/*/libcmocka.so.0))
# build/libabbench_kernels.so (kernels/capi/abbench_kernels.h): the fused
# kernels behind a C ABI, for PyTorch through ctypes (docs/BLOCK.md). It
# reuses the kernels' CUDA objects (compiled -fPIC for it) and compiles the
# kernels' C files again, position-independent and never instrumented, so
# that the library of a sanitizer build still loads into a plain process.
CAPI_LIB := $(if $(filter 1,$(HAVE_CUDA)),$(BUILD)/libabbench_kernels.so)
GPU_TESTS := $(if $(filter 1,$(HAVE_CUDA)),$(BUILD)/gpu/test_cuda_kernels $(if $(CMOCKA_SO),$(BUILD)/gpu/lib/libcmocka.so.0))

# pyrt's GPU check (scripts/gpu/pyrt_check.sh): torch and Triton called
# through the Python runtime (harness/arms/pyrt.h) on device buffers and a
# stream it makes itself; run on the GPU machine only, not by the suite.
PYRT_GPU_CHECK := $(if $(filter 1,$(HAVE_CUDA)),$(BUILD)/gpu/pyrt_gpu_check)

LIB_OBJ  := $(BUILD)/gen/build_info.o $(HARNESS_SRC:%.c=$(BUILD)/%.o) $(KERNEL_SRC:%.c=$(BUILD)/%.o) $(CUDA_SRC:%.cu=$(BUILD)/%.cu.o)
LIB      := $(BUILD)/libabbench.a
BIN      := $(BUILD)/abbench

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# Plugins (include/abbench/plugin.h): the examples and the faulty ones the
# tests load. Each is NAME.c, plus NAME_cuda.cu when nvcc is found.
PLUGIN_SRC := examples/plugin/rga_plugin examples/plugin/fault_plugin tests/plugins/abi_mismatch tests/plugins/no_entry \
	tests/plugins/dup_arms
# rga_plant: exact residual_gate_add arms with planted traffic (scripts/aa_check.sh --plants).
PLUGIN_SRC += examples/plugin/rga_plant
# declared_plugin: arms of sites a scenario declares (docs/SITES.md).
PLUGIN_SRC += examples/plugin/declared_plugin
# div_plant: arms with planted differences of known divergence (tests/cli/t460, issue 29).
PLUGIN_SRC += tests/plugins/div_plant
plugin_lib  = $(BUILD)/$(dir $(1))lib$(notdir $(1)).so
plugin_objs = $(BUILD)/$(1).pic.o $(if $(and $(NVCC),$(wildcard $(1)_cuda.cu)),$(BUILD)/$(1)_cuda.pic.cu.o)
PLUGINS     := $(foreach p,$(PLUGIN_SRC),$(call plugin_lib,$(p)))
PLUGIN_CFLAGS := -std=c11 -O2 -g -fPIC -ffp-contract=off -Iinclude $(WARN) -MMD -MP -DPLUGIN_HAVE_CUDA=$(HAVE_CUDA)
# Example kernels for cubin arms (examples/cubin): for sm_90 (the H200),
# as PTX, as a fatbin (sm_80 + sm_90), and for sm_80 alone (a binary for
# another GPU, refused by name).
# ln_tritonlike is ln_twopass shaped as Triton compiles kernels, with a
# metadata .json beside it as Triton's cache has.
CUBINS := $(if $(NVCC),$(foreach k,rga_cubin ln_twopass,$(BUILD)/examples/cubin/$(k).cubin \
	$(BUILD)/examples/cubin/$(k).ptx) $(BUILD)/examples/cubin/rga_cubin_sm80.cubin $(BUILD)/examples/cubin/rga_cubin.fatbin \
	$(BUILD)/examples/cubin/ln_tritonlike.cubin $(BUILD)/examples/cubin/ln_tritonlike.json)
# mss_cubin and mss_tritonlike: the declared site modulate_scale_shift's
# kernels (examples/cubin/mss_cubin.ini, scripts/gpu/sites.sh).
CUBINS += $(if $(NVCC),$(BUILD)/examples/cubin/mss_cubin.cubin $(BUILD)/examples/cubin/mss_tritonlike.cubin \
	$(BUILD)/examples/cubin/mss_tritonlike.json)
# The copy floor of each GLM-Image case (scripts/gpu/copy_floor.cu, issue 24).
CUBINS += $(if $(NVCC),$(BUILD)/gpu/copy_floor.cubin)

.PHONY: all run test check unit cli deps deps-run clean sanitize fuzz fuzz-build ptxas-report
all: $(BIN) $(GPU_TESTS) $(PLUGINS) $(CUBINS) $(CAPI_LIB)

$(BUILD)/kernels/%.o: kernels/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(KCC) $(filter-out $(OPT),$(CFLAGS)) $(KOPT) $(KFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) $(INCLUDES) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/gen/build_info.o: $(BUILD_INFO)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(BUILD)/harness/cli/main.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.pic.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PLUGIN_CFLAGS) -c $< -o $@

$(BUILD)/%.pic.cu.o: %.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) -Xcompiler -fPIC -Xcompiler -ffp-contract=off -Iinclude -MMD -MP -c $< -o $@

$(foreach p,$(PLUGIN_SRC),$(eval $(call plugin_lib,$(p)): $(call plugin_objs,$(p))))
$(PLUGINS):
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(if $(filter %.cu.o,$^),$(NVCC) -shared -o $@ $^,$(CC) -shared -o $@ $^)

$(BUILD)/examples/cubin/%_sm80.cubin: examples/cubin/%.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -cubin -arch=sm_80 -O3 -o $@ $<

$(BUILD)/examples/cubin/ln_tritonlike.cubin: examples/cubin/ln_twopass.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -cubin -arch=sm_90 -O3 -DLN_TRITON_STYLE -o $@ $<

$(BUILD)/examples/cubin/mss_tritonlike.cubin: examples/cubin/mss_cubin.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -cubin -arch=sm_90 -O3 -DMSS_TRITON_STYLE -o $@ $<

$(BUILD)/examples/cubin/%.json: examples/cubin/%.json
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(BUILD)/examples/cubin/%.cubin: examples/cubin/%.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -cubin -arch=sm_90 -O3 -o $@ $<

$(BUILD)/gpu/copy_floor.cubin: scripts/gpu/copy_floor.cu kernels/common/vec16_io.cuh
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -cubin -arch=sm_90 -O3 -o $@ $<

$(BUILD)/examples/cubin/%.fatbin: examples/cubin/%.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -O3 -o $@ $<

$(BUILD)/examples/cubin/%.ptx: examples/cubin/%.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -ptx -arch=sm_90 -O3 -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB) -lcmocka $(LDLIBS)

KERNEL_OBJ := $(KERNEL_SRC:%.c=$(BUILD)/%.o) $(patsubst %.cu,$(BUILD)/%.cu.o,$(filter kernels/%,$(CUDA_SRC)))

$(BUILD)/gpu/test_cuda_kernels.o: tests/gpu/test_cuda_kernels.cu
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) $(INCLUDES) -Xcompiler -ffp-contract=off -MMD -MP -c $< -o $@

$(BUILD)/gpu/test_cuda_kernels: $(BUILD)/gpu/test_cuda_kernels.o $(KERNEL_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

all: $(PYRT_GPU_CHECK)
$(BUILD)/gpu/pyrt_gpu_check: $(BUILD)/tests/gpu/pyrt_gpu_check.o $(BUILD)/tests/gpu/pyrt_gpu_gate.cu.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

CAPI_CFLAGS := $(filter-out $(OPT),$(CFLAGS)) -O2 -g $(KFLAGS) -fPIC
CAPI_OBJ := $(BUILD)/capi/kernels/capi/abbench_kernels.o $(KERNEL_SRC:%.c=$(BUILD)/capi/%.o) \
	$(patsubst %.cu,$(BUILD)/%.cu.o,$(filter kernels/%,$(CUDA_SRC)))

$(BUILD)/kernels/%.cu.o: NVCCFLAGS += -Xcompiler -fPIC

$(BUILD)/capi/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (pic)")
	$(Q)$(KCC) $(CAPI_CFLAGS) -c $< -o $@

$(BUILD)/libabbench_kernels.so: $(CAPI_OBJ) kernels/capi/abbench_kernels.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -o $@ $(filter %.o,$^) -Wl,--version-script=kernels/capi/abbench_kernels.map -Wl,-z,defs \
		-L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt

$(BUILD)/gpu/lib/libcmocka.so.0: $(CMOCKA_SO)
	@mkdir -p $(dir $@)
	$(Q)cp -L $< $@

# make run installs what building and running need, make test (and make
# deps) what the tests need besides: Chromium, munge and Slurm only for them.
deps:
	$(Q)scripts/deps.sh test

deps-run:
	$(Q)scripts/deps.sh run

unit: $(UNIT_BINS)
cli: $(BIN)

# CI runs `make test` alone (.ci/run): the suite, then the same suite under
# ASan + UBSan, then a short fuzz of each harness (docs/RELIABILITY.md has
# the timings). `make check` is the suite alone, for quick iteration.
# 6 harnesses x 10 s: the 60 s that 2 parsers x 30 s took before, so that
# `make test` stays under 10 minutes on the 2-core VM.
TEST_FUZZ_SECONDS ?= 10
# The builds of check, sanitize and fuzz run this many jobs (CI calls plain
# `make test`: one job built a clean tree in about 5 minutes of the 10).
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test: deps
	$(Q)$(MAKE) --no-print-directory check
	$(Q)$(MAKE) --no-print-directory sanitize
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

check:
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) all unit
	$(Q)scripts/run_tests.sh $(BUILD)

run: deps-run
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) all
	$(Q)scripts/make_run.sh $(BIN) $(SCENARIO)

sanitize: deps
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) BUILD=build-san \
		OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" all unit
	$(Q)ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 scripts/run_tests.sh build-san

# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c) on the library built by
# clang with ASan + UBSan in build-fuzz; scripts/fuzz.sh runs each for
# FUZZ_SECONDS on its seed corpus and fails on any crash, leak or report.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $<")
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) BUILD=build-fuzz NVCC= CC=$(FUZZ_CC) \
		OPT="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		KCC=cc KOPT="-O2 -g" EXTRA_LDFLAGS="-fsanitize=address,undefined" fuzz-build
	$(Q)scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

# Registers, shared memory and spills of every CUDA kernel (nvcc -Xptxas -v).
ptxas-report:
	$(Q)for f in $(CUDA_SRC); do $(NVCC) $(NVCCFLAGS) $(INCLUDES) -Xptxas -v -c $$f -o /dev/null 2>&1 | grep -E 'Compiling|registers|spill'; done

clean:
	rm -rf $(BUILD) build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
