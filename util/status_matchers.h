// GoogleTest matchers for absl::Status / StatusOr, named and behaving like the
// newer abseil ones (absl/status/status_matchers.h) so they can be swapped.
//
//   EXPECT_THAT(ParsePlan(text, "p"), StatusIs(absl::StatusCode::kInvalidArgument,
//                                           HasSubstr("p:3: max_send_wr")));
//   ASSERT_OK_AND_ASSIGN(Plan plan, ParsePlan(text, "p"));
#ifndef RDMACHECK_UTIL_STATUS_MATCHERS_H_
#define RDMACHECK_UTIL_STATUS_MATCHERS_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = GetStatus(arg);
  if (!s.ok()) *result_listener << "status: " << s;
  return s.ok();
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + ::testing::PrintToString(code) + " and message " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status: " << s;
  return s.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(s.message()),
                                       result_listener);
}

}  // namespace rdmacheck::testing

#define RDMACHECK_MATCHERS_CONCAT_INNER(a, b) a##b
#define RDMACHECK_MATCHERS_CONCAT(a, b) RDMACHECK_MATCHERS_CONCAT_INNER(a, b)

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::rdmacheck::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::rdmacheck::testing::IsOk())
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                   \
  auto RDMACHECK_MATCHERS_CONCAT(_statusor_, __LINE__) = (expr);          \
  ASSERT_THAT(RDMACHECK_MATCHERS_CONCAT(_statusor_, __LINE__).status(),   \
              ::rdmacheck::testing::IsOk());                              \
  lhs = std::move(RDMACHECK_MATCHERS_CONCAT(_statusor_, __LINE__)).value()

#endif  // RDMACHECK_UTIL_STATUS_MATCHERS_H_
