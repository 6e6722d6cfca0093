// `bazel test //checks:live --config=live`: every registered check against
// this host's devices, one GoogleTest case per check, so that Bazel's
// test.xml carries the verdicts. FAIL is a test failure whose message holds
// the evidence and the remediation; SKIP is GTEST_SKIP with its reason; WARN
// passes with the warning recorded as a property.
//
// Inputs come from the environment (pass them with --test_env):
//   RDMACHECK_DEVICE, RDMACHECK_PORT, RDMACHECK_GID_INDEX, RDMACHECK_PLAN,
//   RDMACHECK_PROFILE (run on a profile instead of the live host).
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checks/registry.h"
#include "checks/runner.h"
#include "checks/session.h"
#include "gtest/gtest.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

std::string Describe(const Result& r) {
  std::string s = absl::StrCat("[", VerdictName(r.verdict), "] ", r.id, "  ", r.title, "\n");
  for (const Evidence& e : r.evidence)
    absl::StrAppend(&s, "    ", e.subject, ": expected ", e.expected, ", actual ", e.actual,
                    e.verdict == Verdict::kPass ? "" : absl::StrCat("  [", VerdictName(e.verdict), "]"),
                    "\n");
  for (const std::string& n : r.notes) absl::StrAppend(&s, "    ", n, "\n");
  if (!r.remediation.empty()) {
    absl::StrAppend(&s, "  remediation:\n");
    for (const std::string& m : r.remediation) absl::StrAppend(&s, "    ", m, "\n");
  }
  return s;
}

class CheckCase : public ::testing::Test {
 public:
  CheckCase(const Check* check, std::shared_ptr<RunInputs> in) : check_(check), in_(std::move(in)) {}
  void TestBody() override {
    const DeviceView& view = in_->view;
    CheckContext ctx{view, in_->plan, in_->options,
                     [&view](const DeviceInfo& d) { return DeviceFor(view, d); }};  // view: in_, shared
    Result r = RunOneCheck(*check_, ctx);
    RecordProperty("verdict", std::string(VerdictName(r.verdict)));
    switch (r.verdict) {
      case Verdict::kFail:
        ADD_FAILURE() << Describe(r);
        break;
      case Verdict::kSkip:
        GTEST_SKIP() << r.skip_reason;
        break;
      case Verdict::kWarn:
        RecordProperty("warning", Describe(r));
        std::cout << Describe(r);
        break;
      case Verdict::kPass:
        std::cout << Describe(r);
        break;
    }
  }

 private:
  const Check* check_;
  std::shared_ptr<RunInputs> in_;
};

class InputError : public ::testing::Test {
 public:
  explicit InputError(std::string why) : why_(std::move(why)) {}
  void TestBody() override { FAIL() << why_; }

 private:
  std::string why_;
};

// The run's inputs from the environment; a bad number is an input error.
absl::StatusOr<InputSources> SourcesFromEnv() {
  InputSources src;
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == 0) return std::nullopt;
    return std::string(v);
  };
  auto number = [&](const char* name, std::optional<int>* out) -> absl::Status {
    std::optional<std::string> v = env(name);
    if (!v) return absl::OkStatus();
    std::optional<uint64_t> n = ParseUnsigned(*v);
    if (!n || *n > 1u << 20) return absl::InvalidArgumentError(absl::StrCat(name, "=", *v, ": not a number"));
    *out = static_cast<int>(*n);
    return absl::OkStatus();
  };
  src.options.device = env("RDMACHECK_DEVICE");
  src.plan = env("RDMACHECK_PLAN");
  src.profile = env("RDMACHECK_PROFILE");
  if (absl::Status s = number("RDMACHECK_PORT", &src.options.port); !s.ok()) return s;
  if (absl::Status s = number("RDMACHECK_GID_INDEX", &src.options.gid_index); !s.ok()) return s;
  return src;
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) {
  using namespace rdmacheck;
  ::testing::InitGoogleTest(&argc, argv);
  Session session;  // each device opened once for every case
  absl::StatusOr<InputSources> src = SourcesFromEnv();
  absl::StatusOr<RunInputs> in =
      src.ok() ? LoadRunInputs(*src, NeedsOf(AllChecks())) : absl::StatusOr<RunInputs>(src.status());
  if (!in.ok()) {
    std::string why(in.status().message());
    ::testing::RegisterTest("rdmacheck", "inputs", nullptr, nullptr, __FILE__, __LINE__,
                            [why]() -> ::testing::Test* { return new InputError(why); });
  } else {
    auto shared = std::make_shared<RunInputs>(*std::move(in));
    for (const Check* c : AllChecks()) {
      ::testing::RegisterTest("rdmacheck", std::string(c->id()).c_str(), nullptr, nullptr, __FILE__,
                              __LINE__, [c, shared]() -> ::testing::Test* { return new CheckCase(c, shared); });
    }
  }
  return RUN_ALL_TESTS();
}
