"""rdmacheck_fuzz: one parser's fuzz target, two ways.

With --config=fuzz (clang, .bazelrc) NAME is a libFuzzer binary:
    bazel run --config=fuzz //fuzz:NAME -- -max_total_time=30 CORPUS_DIR
Otherwise NAME links replay_main.cc, which runs the target once on each file
named (or each file of each directory named), and NAME_regression is a test
of the hermetic suite that replays the seed corpus and the crash inputs kept
in fuzz/crashes/NAME/ with the default toolchain.
"""

def rdmacheck_fuzz(name, srcs, deps, corpus):
    native.cc_library(
        name = name + "_target",
        srcs = srcs,
        deps = deps,
        testonly = True,
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = select({
            "//fuzz:libfuzzer": [],
            "//conditions:default": ["replay_main.cc"],
        }),
        linkopts = select({
            "//fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = [":" + name + "_target"],
    )
    crashes = native.glob(["crashes/" + name + "/*"])
    native.cc_test(
        name = name + "_regression",
        size = "small",
        srcs = ["replay_main.cc"],
        args = ["$(locations %s)" % c for c in corpus] + ["$(location %s)" % c for c in crashes],
        data = corpus + crashes,
        deps = [":" + name + "_target"],
    )
