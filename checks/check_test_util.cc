#include "checks/check_test_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "acts/driver_model.h"
#include "facts/paste_import.h"
#include "gtest/gtest.h"
#include "plan/plan_parser.h"

namespace rdmacheck::testing {

DeviceView FixtureProfile(const std::string& name) {
  absl::StatusOr<DeviceView> v = ReadProfileFile("fixtures/profiles/" + name);
  if (!v.ok()) {
    ADD_FAILURE() << v.status();
    return DeviceView();
  }
  return *std::move(v);
}

Plan FixturePlan(const std::string& name) {
  if (name.empty()) return DefaultPlan();
  absl::StatusOr<Plan> p = ReadPlanFile("fixtures/plans/" + name);
  if (!p.ok()) {
    ADD_FAILURE() << p.status();
    return DefaultPlan();
  }
  return *std::move(p);
}

Result RunOnView(const Check& check, const DeviceView& view, const Plan& plan, Options opts) {
  CheckContext ctx{view, plan, opts, nullptr};
  return check.Run(ctx);
}

Result RunOn(const Check& check, const std::string& profile, const std::string& plan,
             Options opts) {
  DeviceView v = FixtureProfile(profile);
  Plan p = FixturePlan(plan);
  return RunOnView(check, v, p, opts);
}

Result RunOnViewWithModel(const Check& check, const DeviceView& view, const Plan& plan,
                          Options opts) {
  CheckContext ctx{view, plan, opts, [](const DeviceInfo& d) { return MakeDriverModel(d); }};
  return check.Run(ctx);
}

Result RunOnViewWithFake(const Check& check, const DeviceView& view, const Plan& plan,
                         FakeDevice& fake, Options opts) {
  CheckContext ctx{view, plan, opts, fake.Factory()};
  return check.Run(ctx);
}

Result RunOnModel(const Check& check, const std::string& profile, const std::string& plan,
                  Options opts) {
  DeviceView v = FixtureProfile(profile);
  Plan p = FixturePlan(plan);
  return RunOnViewWithModel(check, v, p, opts);
}

Evidence EvidenceFor(const Result& r, const std::string& subject) {
  for (const Evidence& e : r.evidence)
    if (e.subject == subject) return e;
  ADD_FAILURE() << "no evidence row '" << subject << "' in:\n" << AllText(r);
  return Evidence();
}

Options OnDevice(const std::string& device) {
  Options o;
  o.device = device;
  return o;
}

std::string AllText(const Result& r) {
  std::string s = absl::StrCat(r.title, "\n");
  for (const Evidence& e : r.evidence)
    absl::StrAppend(&s, e.subject, ": expected ", e.expected, ", actual ", e.actual, "\n");
  absl::StrAppend(&s, absl::StrJoin(r.notes, "\n"), "\n", absl::StrJoin(r.remediation, "\n"), "\n",
                  r.skip_reason);
  return s;
}

}  // namespace rdmacheck::testing
