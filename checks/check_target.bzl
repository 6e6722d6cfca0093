"""rdmacheck_check(): one macro per check, so adding a check adds its targets.

For a check whose files are checks/<name>.{h,cc} and checks/<name>_test.cc it
defines:
  <name>_lib   cc_library with the check
  <name>_test  its hermetic cc_test (fixtures as data), with `test_deps`
  <name>       cc_binary: `bazel run //checks:<name> -- --profile F` runs that
               check alone, with rdmacheck's flags and output formats.
"""

def rdmacheck_check(name, id, deps = [], test_deps = []):
    native.cc_library(
        name = name + "_lib",
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        deps = [
            ":check",
            "//third_party:absl",
        ] + deps,
    )
    native.cc_test(
        name = name + "_test",
        size = "small",
        srcs = [name + "_test.cc"],
        data = [
            "//fixtures:plans",
            "//fixtures:profiles",
        ],
        deps = [
            ":check_test_util",
            ":" + name + "_lib",
            "//third_party:gtest_main",
        ] + test_deps,
    )
    native.cc_binary(
        name = name,
        # An entry point: its main() is rdmacheck's (cli/), the one place a
        # checks/ target may name a layer above it.
        srcs = ["//cli:single_check_main.cc"],
        local_defines = ['RDMACHECK_CHECK_ID=\\"%s\\"' % id],
        deps = ["//cli:cli_lib"],
    )

def check_ids_file(name, checks):
    """Writes the ids of `checks` (list of (name, id)), one per line, sorted."""
    ids = sorted([id for (_, id) in checks])
    native.genrule(
        name = name,
        outs = [name + ".txt"],
        cmd = "printf '%s\\n' " + " ".join(ids) + " > $@",
    )
