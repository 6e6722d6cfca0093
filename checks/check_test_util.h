// Test helpers for checks: load a fixture profile and plan, run one check,
// and match evidence rows.
//
//   Result r = RunOn(PortActiveCheck(), "rxe_port_down.profile");
//   EXPECT_EQ(r.verdict, Verdict::kFail);
//   EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 state", "DOWN", Verdict::kFail)));
#ifndef RDMACHECK_CHECKS_CHECK_TEST_UTIL_H_
#define RDMACHECK_CHECKS_CHECK_TEST_UTIL_H_

#include <string>

#include "acts/testing/fake_device.h"
#include "checks/check.h"
#include "gmock/gmock.h"

namespace rdmacheck::testing {

// fixtures/profiles/<name>; aborts the test on a parse error.
DeviceView FixtureProfile(const std::string& name);
// fixtures/plans/<name>; "" gives DefaultPlan().
Plan FixturePlan(const std::string& name);

// Runs `check` on the profile and plan with no model Device.
Result RunOn(const Check& check, const std::string& profile, const std::string& plan = "",
             Options opts = Options());
Result RunOnView(const Check& check, const DeviceView& view, const Plan& plan,
                 Options opts = Options());
// The same with each device's driver model (MakeDriverModel) as its Device,
// as `rdmacheck --profile` gives the checks that must act.
Result RunOnModel(const Check& check, const std::string& profile, const std::string& plan = "",
                  Options opts = Options());
Result RunOnViewWithModel(const Check& check, const DeviceView& view, const Plan& plan,
                          Options opts = Options());
// The same with `fake` as every device's Device; it records what was asked.
Result RunOnViewWithFake(const Check& check, const DeviceView& view, const Plan& plan,
                         FakeDevice& fake, Options opts = Options());

// Options with -d `device`, as `rdmacheck -d DEV` gives the checks.
Options OnDevice(const std::string& device);

// All evidence, notes and remediation as one text, for substring asserts.
std::string AllText(const Result& r);

// The first evidence row whose subject is exactly `subject`; a test failure
// (and an empty row) when there is none.
Evidence EvidenceFor(const Result& r, const std::string& subject);

MATCHER_P3(EvidenceRow, subject_substr, actual_substr, verdict,
           std::string("evidence row whose subject has '") + subject_substr + "' and actual has '" +
               actual_substr + "'") {
  return arg.subject.find(subject_substr) != std::string::npos &&
         arg.actual.find(actual_substr) != std::string::npos && arg.verdict == verdict;
}

// An evidence row equal, field for field, to the one given.
MATCHER_P4(EvidenceIs, subject, expected, actual, verdict,
           std::string("evidence row '") + subject + ": expected " + expected + ", actual " + actual + "'") {
  return arg.subject == subject && arg.expected == expected && arg.actual == actual && arg.verdict == verdict;
}

}  // namespace rdmacheck::testing

#endif  // RDMACHECK_CHECKS_CHECK_TEST_UTIL_H_
