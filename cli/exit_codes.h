// Exit codes of rdmacheck and its subcommands (README "Exit status"), apart
// from cli.h so the flag parsers can return them without the whole CLI.
#ifndef RDMACHECK_CLI_EXIT_CODES_H_
#define RDMACHECK_CLI_EXIT_CODES_H_

namespace rdmacheck {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNothingRan = 3;

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_EXIT_CODES_H_
