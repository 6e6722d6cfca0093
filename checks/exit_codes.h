// Exit codes of rdmacheck and its subcommands (README "Exit status"),
// apart from the run that decides them (checks/run_report.h ExitCodeFor), so
// the flag parsers and field tools can return them without the whole run.
#ifndef RDMACHECK_CHECKS_EXIT_CODES_H_
#define RDMACHECK_CHECKS_EXIT_CODES_H_

namespace rdmacheck {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNothingRan = 3;

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_EXIT_CODES_H_
