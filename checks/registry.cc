#include "checks/registry.h"

#include <fnmatch.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checks/bandwidth.h"
#include "checks/cap_readback.h"
#include "checks/cq_depth.h"
#include "checks/cq_overrun.h"
#include "checks/device_limits.h"
#include "checks/device_present.h"
#include "checks/firewall_4791.h"
#include "checks/firmware.h"
#include "checks/gid_table.h"
#include "checks/hung_qp.h"
#include "checks/latency.h"
#include "checks/link_health.h"
#include "checks/memlock.h"
#include "checks/memory_budget.h"
#include "checks/mtu_chain.h"
#include "checks/pcie.h"
#include "checks/port_active.h"
#include "checks/port_rate.h"
#include "checks/rxe_setup.h"
#include "checks/rxe_sysctls.h"
#include "checks/sge_page_crossing.h"

namespace rdmacheck {

const std::vector<const Check*>& AllChecks() {
  // Sorted by id. One line per check.
  static const std::vector<const Check*>* all = new std::vector<const Check*>{
      new BandwidthCheck(),
      new CapReadbackCheck(),
      new CqDepthCheck(),
      new CqOverrunCheck(),
      new DeviceLimitsCheck(),
      new DevicePresentCheck(),
      new Firewall4791Check(),
      new FirmwareCheck(),
      new GidTableCheck(),
      new HungQpCheck(),
      new LatencyCheck(),
      new LinkHealthCheck(),
      new MemlockCheck(),
      new MemoryBudgetCheck(),
      new MtuChainCheck(),
      new PcieCheck(),
      new PortActiveCheck(),
      new PortRateCheck(),
      new RxeSetupCheck(),
      new RxeSysctlsCheck(),
      new SgePageCrossingCheck(),
  };
  return *all;
}

const Check* FindCheck(absl::string_view id) {
  for (const Check* c : AllChecks())
    if (c->id() == id) return c;
  return nullptr;
}

namespace {

std::vector<std::string> Globs(absl::string_view list) {
  std::vector<std::string> out;
  for (absl::string_view g : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(g));
  }
  return out;
}

bool Matches(const std::string& glob, absl::string_view id) {
  return fnmatch(glob.c_str(), std::string(id).c_str(), 0) == 0;
}

absl::Status CheckGlobsKnown(const std::vector<std::string>& globs, absl::string_view flag) {
  for (const std::string& g : globs) {
    bool any = false;
    for (const Check* c : AllChecks()) any = any || Matches(g, c->id());
    if (!any) {
      std::vector<std::string> ids;
      for (const Check* c : AllChecks()) ids.emplace_back(c->id());
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": no check matches '", g, "' (known: ", absl::StrJoin(ids, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<const Check*>> SelectChecks(absl::string_view include,
                                                       absl::string_view skip) {
  std::vector<std::string> inc = Globs(include), exc = Globs(skip);
  if (absl::Status s = CheckGlobsKnown(inc, "--checks"); !s.ok()) return s;
  if (absl::Status s = CheckGlobsKnown(exc, "--skip"); !s.ok()) return s;
  std::vector<const Check*> out;
  for (const Check* c : AllChecks()) {
    bool in = inc.empty() ||
              std::any_of(inc.begin(), inc.end(), [&](const std::string& g) { return Matches(g, c->id()); });
    bool out_ = std::any_of(exc.begin(), exc.end(),
                            [&](const std::string& g) { return Matches(g, c->id()); });
    if (in && !out_) out.push_back(c);
  }
  return out;
}

}  // namespace rdmacheck
