// The registry: every check, in one explicit sorted list (checks/registry.cc).
// Adding a check is: write checks/<id>.{h,cc}, its test and docs/checks/<id>.md,
// add one line to the list, and one rdmacheck_check() line in checks/BUILD.bazel.
//
//   for (const Check* c : AllChecks()) std::cout << c->id() << "\n";
//   absl::StatusOr<std::vector<const Check*>> sel = SelectChecks("port-*", "");
#ifndef RDMACHECK_CHECKS_REGISTRY_H_
#define RDMACHECK_CHECKS_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checks/check.h"

namespace rdmacheck {

// Every registered check, sorted by id.
const std::vector<const Check*>& AllChecks();

// Nullptr when no check has that id.
const Check* FindCheck(absl::string_view id);

// The checks matching any of the comma-separated globs in `include` (empty:
// all) and none of those in `skip`, in registry order. A glob without
// wildcards that names no check is an error naming the known ids.
absl::StatusOr<std::vector<const Check*>> SelectChecks(absl::string_view include,
                                                       absl::string_view skip);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_REGISTRY_H_
