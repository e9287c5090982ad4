# gpuact: header-only library. The Makefile builds the tests, examples and
# benchmark, checks the generated kernel headers, and installs the headers.
#
#   make demo        ReLU on the best available backend, checked on the CPU
#   make test        the C tests and checks (installs missing Debian packages); CI (.ci/run)
#                    also runs python-test, sanitize and fuzz
#   make sanitize    the tests under ASan+UBSan and TSan (OpenCL on PoCL)
#   make examples BACKEND=opencl|cuda|hip   examples with only that backend
#   make bench       build/gpuact-bench
#   make shared      build/libgpuact.so (the whole API for a foreign-function caller)
#   make pyext       build/py/_C.abi3.so: gpuact._C alone (bench/matrix.py --lib LABEL=PATH)
#   make cuda-fatbin precompiled CUDA kernels (GPUACT_CUDA_PRECOMPILED)
#   make embed       regenerate kernels/gpuact_kernels_src.h from the sources
#   make install PREFIX=/usr/local   headers, pkg-config, CMake package, gpuact-info
#   make consumer-test  build and run a consumer of the installed package (in `make test`)
#   build/gpuact-info [--self-test]  what gpuact sees here, for bug reports

CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2
WARN     = -Wall -Wextra -Werror -pedantic
LIBS     = -ldl -lpthread -lm
BUILD    = build
PREFIX  ?= /usr/local

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
NVRTC_LIB ?= $(firstword $(wildcard $(CUDA_HOME)/lib64/libnvrtc.so.13 $(CUDA_HOME)/lib64/libnvrtc.so.12 \
                                     $(CUDA_HOME)/targets/x86_64-linux/lib/libnvrtc.so.13))
# One target per code path a target selects, the first every variant (tests/kernel_names.h says
# why these): sm_90, sm_80 and sm_75 (__CUDA_ARCH__ >= 900, >= 800, < 800; sm_70: SKIP with CUDA 13);
# gfx90a (wave64) and gfx1030 (wave32); gfx940, gfx942 and gfx1100 where the ROCm knows them.
CUDA_ARCHS = sm_90 sm_70 sm_75 sm_80
HIP_ARCHS  = gfx90a gfx940 gfx1030 gfx942 gfx1100

# Debian packages the tests need: OpenCL headers and loader, PoCL (OpenCL on
# the CPU), and HIP's hiprtc for the AMD kernel checks.
DEB_PACKAGES = ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd libamdhip64-dev

BACKEND ?=
ifeq ($(BACKEND),opencl)
  ONLY = -DGPUACT_NO_CUDA -DGPUACT_NO_HIP
else ifeq ($(BACKEND),cuda)
  ONLY = -DGPUACT_NO_HIP -DGPUACT_NO_OPENCL
else ifeq ($(BACKEND),hip)
  ONLY = -DGPUACT_NO_CUDA -DGPUACT_NO_OPENCL
else
  ONLY =
endif

KERNEL_SOURCES = $(wildcard kernels/*.h kernels/cuda/*.cu kernels/cuda/*.cuh kernels/hip/*.hip kernels/hip/*.h \
                            kernels/opencl/*.cl)
EMBEDDED = kernels/gpuact_kernels_src.h
HEADERS  = gpuact.h kernels/contract.h $(wildcard backends/*.h) $(EMBEDDED)
EXAMPLES = relu_demo relu_family epilogue gelu_epilogue linear_relu
TESTS    = test_reference test_validation test_threads test_stress test_cache conformance
# What the C tests and gpuact-info share (comparison rules, reports).
TEST_SUPPORT = tests/gpuact_ref.h $(wildcard tests/support/*.h)

.PHONY: all demo test sanitize deps embed check-embedded compile-test rtc-check rtc-check-cuda rtc-check-hip examples bench shared \
        cuda-fatbin install clean

all: check-embedded $(addprefix $(BUILD)/,$(TESTS)) examples bench

$(BUILD):
	mkdir -p $(BUILD)

# ---- dependencies ------------------------------------------------------------
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "deps: missing$$missing; install them with:"; \
	    echo "  sudo apt-get install$$missing"; \
	  fi; \
	fi

# ---- generated kernel headers --------------------------------------------------
$(BUILD)/embed: tools/embed.c | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@

# One header with every kernel source file once, and each backend's programs
# as lists of those files (tools/embed.c).
# The ops, as kernels/contract.h lists them (GPUACT_OPS): one program each.
OPS := $(shell sed -n 's/^\#define GPUACT_OPS(X) //p' kernels/contract.h | grep -o 'X.[a-z_]*' | cut -c3-)
define embed_all
	$(BUILD)/embed $(1)/kernels/gpuact_kernels_src.h \
	  $(foreach op,$(OPS),cuda_$(op)=kernels/cuda/$(op).cu hip_$(op)=kernels/hip/$(op).hip \
	                                       opencl_$(op)=kernels/opencl/$(op).cl)
endef

embed: $(BUILD)/embed
	$(call embed_all,.)

# Every build that includes the header regenerates it first when a kernel
# source is newer, so no binary embeds stale kernels (check-embedded then
# tells whether the committed one is fresh).
$(EMBEDDED): $(filter-out $(EMBEDDED) kernels/cuda/gpuact_cuda_fatbin.h,$(KERNEL_SOURCES)) $(BUILD)/embed
	$(call embed_all,.)

# Fails when a committed header differs from what the sources generate.
check-embedded: $(BUILD)/embed
	@rm -rf $(BUILD)/fresh && mkdir -p $(BUILD)/fresh/kernels
	@$(call embed_all,$(BUILD)/fresh)
	@for h in $(EMBEDDED); do cmp -s $$h $(BUILD)/fresh/$$h || \
	  { echo "check-embedded: $$h is stale; run 'make embed' and commit it"; exit 1; }; done
	@h=$$(cat $(EMBEDDED) | wc -l); s=$$(cat $(filter-out $(EMBEDDED),$(KERNEL_SOURCES)) | wc -l); \
	  [ $$h -le $$s ] || { echo "check-embedded: $$h lines of generated header for $$s lines of sources"; exit 1; }; \
	  echo "check-embedded: generated kernel headers are fresh ($$h lines for $$s lines of sources)"

# ---- tests ---------------------------------------------------------------------
# A test is its .c file, and the objects among its prerequisites.
$(BUILD)/%: tests/%.c $(TEST_SUPPORT) tests/kernel_names.h $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $< $(filter %.o,$^) -o $@ $(LIBS)

# The header as C99 and as C++, with every combination of backends, with
# runtime linking off (OpenCL's prototypes checked against CL/cl.h), and the
# #error when every backend is compiled out.
compile-test: | $(BUILD)
	@set -e; for no in "" "-DGPUACT_NO_CUDA" "-DGPUACT_NO_HIP" "-DGPUACT_NO_OPENCL" \
	  "-DGPUACT_NO_CUDA -DGPUACT_NO_HIP" "-DGPUACT_NO_CUDA -DGPUACT_NO_OPENCL" \
	  "-DGPUACT_NO_HIP -DGPUACT_NO_OPENCL"; do \
	  $(CC) -std=c99 $(WARN) $$no -I. -c tests/compile_test.c -o $(BUILD)/ct.o; \
	  $(CXX) -std=c++11 $(WARN) -x c++ $$no -I. -c tests/compile_test.c -o $(BUILD)/ct.o; \
	done; \
	$(CC) -std=c99 $(WARN) -DGPUACT_NO_RUNTIME_LINKING -DGPUACT_NO_CUDA -DGPUACT_NO_HIP -I. \
	  tests/compile_test.c -o $(BUILD)/ct_linked -lOpenCL $(LIBS); \
	if $(CC) -std=c99 -DGPUACT_NO_CUDA -DGPUACT_NO_HIP -DGPUACT_NO_OPENCL -I. -c tests/compile_test.c \
	  -o $(BUILD)/ct.o 2>/dev/null; then echo "compile-test: no #error without backends"; exit 1; fi; \
	echo "compile-test: C99 and C++11, 7 backend combinations, runtime linking off: ok"

# The CUDA kernels through NVRTC, the HIP kernels through hiprtc: every variant
# through the front end and optimizer for the first target of each list, and
# what a target changes to machine code for each (tests/kernel_names.h says
# exactly what). SKIP where the compiler is absent.
# Each check compiles its jobs in child processes, one per CPU (under make -j
# the two checks also run side by side).
rtc-check: rtc-check-cuda rtc-check-hip
rtc-check-cuda: $(BUILD)/rtc_check
	@if [ -n "$(NVRTC_LIB)" ]; then GPUACT_NVRTC_LIBRARY=$(NVRTC_LIB) $(BUILD)/rtc_check cuda $(CUDA_ARCHS) \
	  > $(BUILD)/rtc_cuda.txt; r=$$?; cat $(BUILD)/rtc_cuda.txt; exit $$r; \
	else echo "SKIP rtc_check cuda: no NVRTC under $(CUDA_HOME)"; fi
rtc-check-hip: $(BUILD)/hip_rtc_check
	@$(BUILD)/hip_rtc_check $(HIP_ARCHS) > $(BUILD)/rtc_hip.txt; r=$$?; cat $(BUILD)/rtc_hip.txt; exit $$r

# Test-only: HIP's entry points mapped onto the CUDA driver API and NVRTC, so
# the HIP backend runs on an NVIDIA GPU (GPUACT_HIP_LIBRARY=build/libhip_on_cuda.so).
$(BUILD)/libhip_on_cuda.so: tests/hip_on_cuda.c | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -fPIC -shared $< -o $@ -ldl -lpthread

# The conformance suite's parts, one file per operation (tests/conformance/),
# compiled as one translation unit with tests/conformance.c; its expected
# values (tests/conformance/reference.c) as an object of its own, without the
# sanitizers in the ASan+UBSan build too (tests/conformance/reference.h).
$(BUILD)/conformance-ref.o: tests/conformance/reference.c tests/conformance/reference.h tests/gpuact_ref.h \
                            tests/gpuact_smooth_ref.h $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. -c $< -o $@
$(BUILD)/conformance $(BUILD)/asan/conformance: $(wildcard tests/conformance/*) $(BUILD)/conformance-ref.o
# The conformance suite in two parts side by side (tests/conformance_parts.sh),
# balanced by their time on PoCL; together they launch every variant. Before
# the tests, tests/prewarm.c builds every variant once, one process per CPU,
# into the driver's kernel cache (PoCL's), which the tests then load.
CONF_PARTS = epilogue,glu,large,codes elementwise,variant
# CONFORMANCE_SANITIZED=1 (.ci/run): `make test` runs the suite's ASan+UBSan
# build, large case included, with `make sanitize`'s checks, and `make
# sanitize` leaves the suite out: every case runs once, under the sanitizers,
# instead of once plain and once again sanitized (the plain build is still
# built with the strict flags, and the other tests run it plain).
CONFORMANCE_SANITIZED ?= 0
ifeq ($(CONFORMANCE_SANITIZED),1)
  CONF_BIN = $(BUILD)/asan/conformance
  CONF_RUN = $(SAN_ENV) tests/sanitized.sh $(BUILD)/asan/conformance.log
  SAN_SKIP = conformance
else
  CONF_BIN = $(BUILD)/conformance
  CONF_RUN =
  SAN_SKIP =
endif

# RTC_CHECK= leaves the compile checks out (.ci/run runs them beside the rest).
RTC_CHECK ?= rtc-check
test: deps check-embedded compile-test $(addprefix $(BUILD)/,$(TESTS)) $(CONF_BIN) $(BUILD)/prewarm $(RTC_CHECK)
	$(BUILD)/prewarm
	$(BUILD)/test_reference
	$(BUILD)/test_validation
	$(BUILD)/test_threads
	$(BUILD)/test_stress
	$(BUILD)/test_cache
	GPUACT_CONFORMANCE_REQUIRE=1 $(CONF_RUN) tests/conformance_parts.sh $(CONF_BIN) $(CONF_BIN)-parts $(CONF_PARTS)
	@$(MAKE) --no-print-directory bench-smoke
	@# make stops at the first failure, so reaching here means every check passed
	@echo "make test: all passed: $(TESTS) $(filter-out deps $(BUILD)/%,$^) bench-smoke"

# ---- sanitizers ------------------------------------------------------------------
# The validation, thread, stress and conformance tests under AddressSanitizer
# + UndefinedBehaviorSanitizer (OpenCL on PoCL here), and the threaded tests
# under ThreadSanitizer; any report fails the target. Leaks inside vendor
# libraries are suppressed by name (tests/lsan.supp); gpuact's own are not.
# tests/sanitized.sh runs each test and looks for the reports in its log.
# SANITIZE_CONFORMANCE_LARGE: the conformance suite's large case (0 skips it);
# CONFORMANCE_SANITIZED=1: the suite runs in `make test` instead (above).
# -O2 as the plain builds: the sanitizers instrument at any level, and the conformance suite's
# instrumented host side runs faster than at -O1.
SAN_FLAGS  = -std=c99 -O2 -g -fno-omit-frame-pointer $(WARN) -I.
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined
TSAN_FLAGS = -fsanitize=thread
SAN_ENV    = ASAN_OPTIONS=use_sigaltstack=0:detect_leaks=1:abort_on_error=0 \
             LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1 \
             TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
SANITIZE_CONFORMANCE_LARGE ?= 0
ASAN_TESTS = test_validation test_threads test_stress test_cache conformance
TSAN_TESTS = test_threads test_stress

$(BUILD)/asan/%: tests/%.c $(TEST_SUPPORT) tests/kernel_names.h $(HEADERS)
	@mkdir -p $(BUILD)/asan
	$(CC) $(SAN_FLAGS) $(ASAN_FLAGS) $< $(filter %.o,$^) -o $@ $(LIBS)
$(BUILD)/tsan/%: tests/%.c $(TEST_SUPPORT) tests/kernel_names.h $(HEADERS)
	@mkdir -p $(BUILD)/tsan
	$(CC) $(SAN_FLAGS) $(TSAN_FLAGS) $< -o $@ $(LIBS)

sanitize: deps $(addprefix $(BUILD)/asan/,$(ASAN_TESTS)) $(addprefix $(BUILD)/tsan/,$(TSAN_TESTS))
	@set -e; for t in $(filter-out $(SAN_SKIP),$(ASAN_TESTS)); do \
	  echo "== asan+ubsan $$t"; run="$(BUILD)/asan/$$t"; \
	  [ $$t = conformance ] && run="tests/conformance_parts.sh $$run $(BUILD)/asan/conformance-parts $(CONF_PARTS)"; \
	  $(SAN_ENV) GPUACT_CONFORMANCE_LARGE=$(SANITIZE_CONFORMANCE_LARGE) tests/sanitized.sh $(BUILD)/asan/$$t.log $$run; done; \
	for t in $(TSAN_TESTS); do echo "== tsan $$t"; \
	  $(SAN_ENV) tests/sanitized.sh $(BUILD)/tsan/$$t.log $(BUILD)/tsan/$$t; done; \
	echo "sanitize: no AddressSanitizer, UndefinedBehaviorSanitizer, LeakSanitizer or ThreadSanitizer reports"

# The complete program in gpuact.h's manual, cut out of the comment, built
# with the strict flags and run: the manual's example cannot rot.
$(BUILD)/manual_example: gpuact.h $(HEADERS) | $(BUILD)
	awk '/^A COMPLETE PROGRAM/{f=1;next} /^Other files include/{f=0} f' gpuact.h | sed 's/^    //' > $(BUILD)/manual_example.c
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $(BUILD)/manual_example.c -o $@ $(LIBS)
manual-example: $(BUILD)/manual_example
	$(BUILD)/manual_example
# Every cell of the benchmark matrix at a small size: each op, kind, dtype
# and mode runs (and is checked where the benchmark's CPU check models it);
# then --shape with columns not a multiple of a vector. One timed call per
# cell: the timings of a CPU device prove nothing, the calls and checks do.
# `make test` runs it last, when the conformance suite has built the kernels.
bench-smoke: $(BUILD)/gpuact-bench
	$(BUILD)/gpuact-bench --matrix --quick --reps 1 --warmup 1
	$(BUILD)/gpuact-bench --matrix --quick --shape 37x1001 --reps 2 --warmup 1 \
	  --only epi-relu-f32,epibwd-mask-relu-f32,epibwd-y-relu-f32,glu-relu-bf16 >/dev/null
test: manual-example $(BUILD)/gpuact-bench
.PHONY: manual-example bench-smoke

# ---- smooth activations (kernels/smooth.h) -------------------------------------------
# accuracy: the six functions against a libm reference over every f32 input
# (`make accuracy`, tens of minutes on a few cores: run it under nice) or a
# sample covering every exponent (`make accuracy-quick`, seconds, in `make
# test`); smooth-cl-check: the header on every OpenCL device (PoCL here)
# against the CPU build, bit for bit; smooth-rtc-check: it compiles with
# NVRTC and hiprtc (SKIP where absent); smooth-nvcc-check: with nvcc.
SMOOTH_DEPS   = kernels/smooth.h tests/gpuact_smooth_ref.h tests/support/read_file.h tests/support/smooth_functions.h
SMOOTH_CFLAGS = -std=c99 -O2 -ffp-contract=off $(WARN) -I.
$(BUILD)/accuracy: tests/accuracy.c $(SMOOTH_DEPS) | $(BUILD)
	$(CC) $(SMOOTH_CFLAGS) $< -o $@ -lm -lpthread
$(BUILD)/smooth_cl_check: tests/smooth_cl_check.c $(SMOOTH_DEPS) kernels/opencl/dialect.cl | $(BUILD)
	$(CC) $(SMOOTH_CFLAGS) $< -o $@ -lm -ldl
$(BUILD)/smooth_rtc_check: tests/smooth_rtc_check.c tests/support/read_file.h tests/support/smooth_functions.h | $(BUILD)
	$(CC) $(SMOOTH_CFLAGS) $< -o $@ -ldl
accuracy-quick: $(BUILD)/accuracy
	$(BUILD)/accuracy --sample 8000000 --16
accuracy: $(BUILD)/accuracy
	$(BUILD)/accuracy --all
smooth-cl-check: deps $(BUILD)/smooth_cl_check
	$(BUILD)/smooth_cl_check .
smooth-rtc-check: $(BUILD)/smooth_rtc_check
	GPUACT_NVRTC_LIBRARY=$(NVRTC_LIB) $(BUILD)/smooth_rtc_check . sm_90 gfx90a
smooth-nvcc-check: | $(BUILD)
	@if [ -x "$(NVCC)" ]; then \
	  $(NVCC) -arch=sm_90 --fmad=false --ftz=false -Ikernels -c tests/smooth_nvcc_check.cu -o $(BUILD)/smooth_nvcc_check.o \
	  && echo "smooth-nvcc-check: sm_90 ok"; else echo "SKIP smooth-nvcc-check: no $(NVCC)"; fi
test: accuracy-quick
test: smooth-cl-check smooth-rtc-check
.PHONY: accuracy accuracy-quick smooth-cl-check smooth-rtc-check smooth-nvcc-check

# ---- demo and examples -----------------------------------------------------------
# Examples with one backend only go to their own folder, so `make demo`
# never runs a binary built for another backend.
EXDIR = $(BUILD)/examples$(if $(BACKEND),-$(BACKEND))
$(EXDIR)/%: examples/%.c examples/example_util.h $(HEADERS)
	@mkdir -p $(EXDIR)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $(ONLY) -I. $< -o $@ $(LIBS)

# The CUDA runtime example needs the toolkit's headers and libcudart (C11:
# the CUDA headers use anonymous unions).
CUDA_RUNTIME_OK := $(and $(filter cuda,$(or $(BACKEND),cuda)),$(wildcard $(CUDA_HOME)/include/cuda_runtime.h))
$(EXDIR)/cuda_runtime_interop: examples/cuda_runtime_interop.c $(HEADERS)
	@mkdir -p $(EXDIR)
	$(CC) -std=c11 $(CFLAGS) -Wall -Wextra -Werror -DGPUACT_NO_HIP -DGPUACT_NO_OPENCL -I. -I$(CUDA_HOME)/include \
	  $< -o $@ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart $(LIBS)

examples: $(addprefix $(EXDIR)/,$(EXAMPLES)) $(if $(CUDA_RUNTIME_OK),$(EXDIR)/cuda_runtime_interop)

demo: deps $(EXDIR)/relu_demo
	$(EXDIR)/relu_demo

# ---- benchmark, shared library, fatbin -----------------------------------------
$(BUILD)/gpuact-bench: bench/gpuact_bench.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $< -o $@ $(LIBS)
$(BUILD)/first_call: bench/first_call.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $< -o $@ $(LIBS)
$(BUILD)/host_overhead: bench/host_overhead.c bench/host_clock.h $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $< -o $@ $(LIBS)
# The CUDA driver's own cost per call, the floor under gpuact's (links the
# driver directly; built on request, on a machine with the CUDA toolkit).
$(BUILD)/launch_floor: bench/launch_floor.c bench/host_clock.h | $(BUILD)
	$(CC) -std=c11 $(CFLAGS) -Wall -Wextra -Werror -I$(CUDA_HOME)/include $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda
bench: $(BUILD)/gpuact-bench $(BUILD)/first_call $(BUILD)/host_overhead

$(BUILD)/libgpuact.so: tools/gpuact_shared.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -fPIC -shared -I. $< -o $@ $(LIBS)
shared: $(BUILD)/libgpuact.so

# Every variant (about a thousand kernels) as SASS for each of FATBIN_ARCHS
# plus PTX of the last one. CUDA 13's nvcc has no sm_70. The header is
# generated, not committed (.gitignore); the full list takes a while, e.g.
# `make cuda-fatbin FATBIN_ARCHS=sm_90` for one GPU generation.
FATBIN_ARCHS ?= sm_75 sm_80 sm_86 sm_89 sm_90
kernels/cuda/gpuact_cuda_fatbin.h: $(KERNEL_SOURCES) $(BUILD)/rtc_check $(BUILD)/embed
	( for op in $(OPS); do echo "#include \"$$op.cu\""; done; $(BUILD)/rtc_check list ) \
	  > $(BUILD)/all_kernels.cu
	$(NVCC) -fatbin --threads 0 -Ikernels/cuda --fmad=false --ftz=false \
	  $(foreach a,$(FATBIN_ARCHS),-gencode arch=compute_$(subst sm_,,$(a)),code=$(a)) \
	  -gencode arch=compute_$(subst sm_,,$(lastword $(FATBIN_ARCHS))),code=compute_$(subst sm_,,$(lastword $(FATBIN_ARCHS))) \
	  $(BUILD)/all_kernels.cu -o $(BUILD)/gpuact.fatbin
	$(BUILD)/embed --binary $@ gpuact__cuda_fatbin $(BUILD)/gpuact.fatbin
cuda-fatbin: kernels/cuda/gpuact_cuda_fatbin.h

# ---- gpuact-info -----------------------------------------------------------------
# Version, backends, devices and kernel cache for bug reports; --self-test
# checks every op on every device against tests/gpuact_ref.h (built in).
all: $(BUILD)/gpuact-info
$(BUILD)/gpuact-info: tools/gpuact_info.c $(TEST_SUPPORT) $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -I. $< -o $@ $(LIBS)

# ---- consumer tests and gpuact-info in `make test` -----------------------------------
# consumer-test: install into a temporary prefix, build a tiny consumer with
# CMake find_package, CMake add_subdirectory and pkg-config, as C and C++,
# and run each (tests/consumer/run.sh). info-self-test: every op on every
# device here (PoCL without a GPU) against the CPU reference.
.PHONY: consumer-test info-self-test
DEB_PACKAGES += cmake pkg-config g++
test: consumer-test info-self-test
consumer-test: deps $(BUILD)/gpuact-info
	CC="$(CC)" CXX="$(CXX)" sh tests/consumer/run.sh
info-self-test: deps $(BUILD)/gpuact-info
	$(BUILD)/gpuact-info --self-test

# ---- install ----------------------------------------------------------------------
# The version is written only in gpuact.h (GPUACT_VERSION_MAJOR/MINOR/PATCH).
version_part = $(shell awk '$$2 == "GPUACT_VERSION_$(1)" { print $$3 }' gpuact.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(call version_part,PATCH)
SUBST_VERSION  = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
                   -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|' -e 's|@VERSION_MINOR@|$(VERSION_MINOR)|'

# Headers by pattern (every .h under backends/ and kernels/), so a new
# generated header is installed without editing this list; the same set as
# CMakeLists.txt installs.
install: $(BUILD)/gpuact-info
	install -d $(DESTDIR)$(PREFIX)/include/gpuact $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib/cmake/gpuact $(DESTDIR)$(PREFIX)/bin
	install -m 644 gpuact.h $(DESTDIR)$(PREFIX)/include/gpuact/
	for h in $$(find backends kernels -name '*.h' | sort); do \
	  install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/gpuact/$$h || exit 1; done
	$(SUBST_VERSION) tools/gpuact.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gpuact.pc
	$(SUBST_VERSION) tools/cmake/gpuactConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/gpuact/gpuactConfig.cmake
	$(SUBST_VERSION) tools/cmake/gpuactConfigVersion.cmake.in \
	  > $(DESTDIR)$(PREFIX)/lib/cmake/gpuact/gpuactConfigVersion.cmake
	install -m 644 tools/cmake/gpuact_link.cmake $(DESTDIR)$(PREFIX)/lib/cmake/gpuact/
	install -m 755 $(BUILD)/gpuact-info $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf $(BUILD)

# ---- the Python package (python/) --------------------------------------------------------
# python-test: a fresh virtual environment under build/, `pip install ./python`
# into it (a non-editable build in pip's isolated build environment, as a user
# gets), then pytest python/tests: the package and the raw layer on OpenCL
# through PoCL here; the tests that need torch, CuPy, JAX or a GPU skip with the
# reason. The GPU machine's run: python/run_gpu_checks.sh.
PYTHON ?= python3
PYVENV  = $(BUILD)/pyvenv
DEB_PACKAGES += python3-dev python3-venv
.PHONY: python-test pyext
# The package's C layer alone, for an A/B of two builds in one process:
# bench/matrix.py --lib base=../base/build/py/_C.abi3.so --lib now
PY_INCLUDE = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
$(BUILD)/py/_C.abi3.so: python/src/_C.c $(HEADERS)
	@mkdir -p $(BUILD)/py
	$(CC) -std=c99 $(CFLAGS) -fPIC -shared -DPy_LIMITED_API=0x030A0000 -Wno-unused-function -I$(PY_INCLUDE) -I. \
	  $< -o $@ -ldl -lpthread
pyext: $(BUILD)/py/_C.abi3.so
# bench/builds.py's ops (what the Python A/B benchmarks call) on PoCL: every op once, the ReLU results
# against plain Python, and the C layer loaded twice compared with itself bit for bit
.PHONY: builds-check
test: builds-check
builds-check: deps $(BUILD)/py/_C.abi3.so
	$(PYTHON) bench/builds.py --backend opencl --lib a=$(BUILD)/py/_C.abi3.so --lib b=$(BUILD)/py/_C.abi3.so
python-test: deps
	rm -rf $(PYVENV)
	$(PYTHON) -m venv $(PYVENV)
	$(PYVENV)/bin/python -m pip install -q --disable-pip-version-check ./python pytest
	$(PYVENV)/bin/python -m pytest -q -rs python/tests

# ---- fuzzing ---------------------------------------------------------------------
# make fuzz [FUZZ_SECONDS=60] [FUZZ_SEED=N]: tests/fuzz_api.c drives the public
# API on OpenCL (PoCL here; GPUACT_BACKEND picks another) for FUZZ_SECONDS, one
# call per input, each refused with nothing written or checked bit for bit
# against tests/gpuact_ref.h, canaries around every buffer. With clang's
# libFuzzer runtime it is coverage-guided (-fsanitize=fuzzer,address,undefined;
# the corpus grows in build/fuzz/corpus), else a seeded random driver built by
# $(CC) with ASan+UBSan. A faulting input is saved in build/fuzz/ and replays
# with `build/fuzz/fuzz_api FILE`. Each run starts from 256 seed inputs in a
# fresh build/fuzz/corpus (libFuzzer replays a whole corpus before the time
# limit counts, and this one grows by thousands an hour); FUZZ_CORPUS=DIR
# keeps one across runs.
FUZZ_SECONDS ?= 60
FUZZ_SEED    ?=
FUZZ_CORPUS  ?=
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -std=c99 -O1 -g -fno-omit-frame-pointer $(WARN) -I.
FUZZ_ENV      = $(SAN_ENV) FUZZ_ARTIFACT_DIR=$(BUILD)/fuzz/
DEB_PACKAGES += clang libclang-rt-14-dev
.PHONY: fuzz
$(BUILD)/fuzz/fuzz_api: tests/fuzz_api.c $(TEST_SUPPORT) $(HEADERS)
	@mkdir -p $(BUILD)/fuzz/corpus
	@echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);' \
	  'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 1000000; }' > $(BUILD)/fuzz/probe.c
	@if $(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(BUILD)/fuzz/probe.c -o $(BUILD)/fuzz/probe 2>/dev/null; then \
	  echo "fuzz: coverage-guided, libFuzzer of $(FUZZ_CC)"; \
	  echo "$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $< -o $@ $(LIBS)"; \
	  $(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $< -o $@ $(LIBS); \
	else \
	  echo "fuzz: no libFuzzer runtime for $(FUZZ_CC): the seeded random driver, built by $(CC)"; \
	  $(CC) $(FUZZ_FLAGS) $(ASAN_FLAGS) -DFUZZ_STANDALONE $< -o $@ $(LIBS) 2>/dev/null || \
	  $(CC) $(FUZZ_FLAGS) -DFUZZ_STANDALONE $< -o $@ $(LIBS); \
	fi
fuzz: deps $(BUILD)/fuzz/fuzz_api
	@$(if $(FUZZ_CORPUS),mkdir -p $(FUZZ_CORPUS),rm -rf $(BUILD)/fuzz/corpus && mkdir -p $(BUILD)/fuzz/corpus)
	$(FUZZ_ENV) $(BUILD)/fuzz/fuzz_api -max_total_time=$(FUZZ_SECONDS) -max_len=256 -rss_limit_mb=0 -timeout=600 -report_slow_units=600 \
	  -artifact_prefix=$(BUILD)/fuzz/ $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) $(or $(FUZZ_CORPUS),$(BUILD)/fuzz/corpus)

# ---- adoption ----------------------------------------------------------------------
# tests/test_adoption.c: gpuact on contexts the caller made: a CUcontext that
# is not the primary one, devices 0 and 1 from two threads at once, and the
# caller's cl_context + cl_device_id + cl_command_queue. The CUDA parts SKIP
# (exit 0) without a CUDA device; the OpenCL part runs on PoCL here.
.PHONY: adoption-test
test: adoption-test
adoption-test: $(BUILD)/test_adoption
	$(BUILD)/test_adoption

# tests/test_fuzz_regressions.c: each library bug `make fuzz` found, as a small
# deterministic case against the CPU reference.
.PHONY: fuzz-regressions
test: fuzz-regressions
fuzz-regressions: $(BUILD)/test_fuzz_regressions
	$(BUILD)/test_fuzz_regressions
