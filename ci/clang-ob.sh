# clang-ob.sh: the Bazel output base of the clang builds (sourced by
# ci/fuzz.sh and ci/clang-tests.sh). One output base for both: switching
# compilers in one output base reconfigures the C++ toolchain and rebuilds
# everything twice, while the fuzz and clang test builds share the compiler.
# FUZZ_OUTPUT_BASE overrides it; default /tmp/rdmacheck-fuzz-ob-UID-<hash of
# this checkout>. bz: bazel in that output base.
OB=${FUZZ_OUTPUT_BASE:-/tmp/rdmacheck-fuzz-ob-$(id -u)-$(pwd | md5sum | cut -c1-8)}
bz() { bazel --output_base="$OB" "$@"; }
