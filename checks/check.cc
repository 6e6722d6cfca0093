#include "checks/check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {

absl::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kSkip: return "SKIP";
    case Verdict::kWarn: return "WARN";
    case Verdict::kFail: return "FAIL";
  }
  return "FAIL";
}

absl::StatusOr<std::unique_ptr<Device>> CheckContext::OpenDevice(const DeviceInfo& dev) const {
  if (!device_for) return absl::FailedPreconditionError("no Device to act on in this run");
  absl::StatusOr<std::unique_ptr<Device>> d = device_for(dev);
  if (d.ok() && *d == nullptr)
    return absl::NotFoundError(absl::StrCat("no driver model or live device for ", dev.name));
  return d;
}

std::vector<const DeviceInfo*> CheckContext::SelectedDevices() const {
  std::vector<const DeviceInfo*> out;
  std::optional<std::string> want = options.device ? options.device : plan.device;
  for (const DeviceInfo& d : view.devices)
    if (!want || d.name == *want) out.push_back(&d);
  return out;
}

std::vector<const PortInfo*> CheckContext::SelectedPorts(const DeviceInfo& dev) const {
  std::optional<int> want = options.port ? options.port : plan.port;
  std::vector<const PortInfo*> out;
  for (const PortInfo& p : dev.ports)
    if (!want || p.port_num == *want) out.push_back(&p);
  return out;
}

ResultBuilder::ResultBuilder(const Check& check, std::string title) {
  r_.id = std::string(check.id());
  r_.title = std::move(title);
}

ResultBuilder& ResultBuilder::Title(std::string title) {
  r_.title = std::move(title);
  return *this;
}

ResultBuilder& ResultBuilder::Expect(std::string subject, std::string expected,
                                     std::string actual, Verdict v) {
  r_.evidence.push_back({std::move(subject), std::move(expected), std::move(actual), v});
  return Raise(v);
}

ResultBuilder& ResultBuilder::Note(std::string line) {
  r_.notes.push_back(std::move(line));
  return *this;
}

ResultBuilder& ResultBuilder::Remedy(std::string line) {
  if (std::find(r_.remediation.begin(), r_.remediation.end(), line) == r_.remediation.end())
    r_.remediation.push_back(std::move(line));
  return *this;
}

ResultBuilder& ResultBuilder::Raise(Verdict v) {
  r_.verdict = std::max(r_.verdict, v);
  return *this;
}

Result ResultBuilder::Skip(const Check& check, std::string title, std::string reason) {
  Result r;
  r.id = std::string(check.id());
  r.title = std::move(title);
  r.verdict = Verdict::kSkip;
  r.skip_reason = std::move(reason);
  return r;
}

Result ResultBuilder::CouldNotRun(const Check& check, std::string title, std::string why) {
  Result r;
  r.id = std::string(check.id());
  r.title = std::move(title);
  r.verdict = Verdict::kWarn;
  r.notes.push_back(absl::StrCat("could not carry out: ", why));
  return r;
}

std::unique_ptr<Device> OpenOrWarn(const CheckContext& ctx, const DeviceInfo& dev, absl::string_view what,
                                   ResultBuilder& b) {
  absl::StatusOr<std::unique_ptr<Device>> opened = ctx.OpenDevice(dev);
  if (opened.ok()) return *std::move(opened);
  b.Expect(absl::StrCat(dev.name, " ", what), "device opened",
           absl::StrCat("could not open it: ", opened.status().message()), Verdict::kWarn);
  return nullptr;
}

std::string Ms(double seconds) {
  return seconds < 1 ? absl::StrFormat("%.2f ms", seconds * 1e3) : absl::StrFormat("%.2f s", seconds);
}

std::string RxeRelink(absl::string_view device, absl::string_view netdev) {
  return absl::StrCat("rdma link delete ", device, " && rdma link add ", device, " type rxe netdev ", netdev);
}

}  // namespace rdmacheck
