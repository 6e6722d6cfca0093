#include "cli/cli.h"

int main(int argc, char** argv) { return rdmacheck::RdmacheckMain(argc, argv); }
