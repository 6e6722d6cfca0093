// Parser for deployment plan files: the INI-like format documented in
// docs/plan-format.md ([plan], [cq NAME], [srq NAME], [qp NAME], [part ID],
// [counter NAME] sections of "key = value" lines). It reads text into a Plan (plan/plan.h) and changes
// nothing else.
//
//   absl::StatusOr<Plan> plan = ReadPlanFile("fixtures/plans/config_a.plan");
//   if (!plan.ok()) { std::cerr << plan.status().message() << "\n"; return 2; }
//   for (const QpClass& qc : plan->qp_classes) ...
//
// Errors: the parser reads the whole file and reports every problem it finds,
// one per line of the message, in file order, each as
//   FILE:LINE: FIELD: what is wrong (what is allowed)
// e.g. "a.plan:9: path_mtu: 1500 is not an IB MTU (256, 512, 1024, 2048, 4096)".
// The status code is InvalidArgument; the first line is the first problem.
#ifndef RDMACHECK_PLAN_PLAN_PARSER_H_
#define RDMACHECK_PLAN_PLAN_PARSER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plan/plan.h"

namespace rdmacheck {

// Parses plan text. `filename` is only used in messages and as Plan::path
// (and, without a `name` key, its stem becomes Plan::name).
absl::StatusOr<Plan> ParsePlan(absl::string_view text, absl::string_view filename);

// Reads and parses a plan file. NotFound naming the path when it is missing,
// PermissionDenied when it cannot be read, InvalidArgument when it is not a
// regular file (a FIFO could block forever), is larger than 1 MiB, or does
// not parse.
absl::StatusOr<Plan> ReadPlanFile(const std::string& path);

// "512 MiB", "4096", "1G" -> bytes. Whole numbers with an optional binary
// unit (B, KiB, MiB, GiB, TiB; K, M, G, T mean the same); case-insensitive.
// InvalidArgument whose message is the "what is wrong (allowed)" part.
absl::StatusOr<uint64_t> ParsePlanSize(absl::string_view text);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PLAN_PARSER_H_
