// One check as its own program: `bazel run //checks:<name> -- FLAGS` takes
// rdmacheck's flags and output formats, with the check fixed at build time.
#include "cli/cli.h"

int main(int argc, char** argv) { return rdmacheck::RdmacheckMain(argc, argv, RDMACHECK_CHECK_ID); }
