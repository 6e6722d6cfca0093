#include "checks/firmware.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// Devices of one part: the same vendor_id and vendor_part_id. A device with
// no vendor_part_id is a group of its own: nothing says what it matches.
struct Group {
  std::optional<uint32_t> vendor_id;
  std::optional<uint32_t> part;
  std::vector<const DeviceInfo*> devs;
};

std::vector<Group> GroupByPart(const std::vector<const DeviceInfo*>& devs) {
  std::vector<Group> out;
  for (const DeviceInfo* d : devs) {
    Group* g = nullptr;
    for (Group& o : out)
      if (d->vendor_part_id && o.part == d->vendor_part_id && o.vendor_id == d->vendor_id) g = &o;
    if (!g) g = &out.emplace_back(Group{d->vendor_id, d->vendor_part_id, {}});
    g->devs.push_back(d);
  }
  return out;
}

// Dotted numbers compare as numbers ("20.31" == "20.31.0"); other text as text.
bool SameVersion(const std::string& a, const std::string& b) {
  std::optional<std::vector<uint64_t>> x = ParseDotted(a), y = ParseDotted(b);
  return x && y ? CompareDotted(*x, *y) == 0 : a == b;
}

// The group's newest version that reads as dotted numbers, or null.
const std::string* Newest(const Group& g) {
  const std::string* best = nullptr;
  std::optional<std::vector<uint64_t>> best_v;
  for (const DeviceInfo* d : g.devs) {
    std::optional<std::vector<uint64_t>> v = ParseDotted(*d->fw_ver);
    if (v && (!best_v || CompareDotted(*v, *best_v) > 0)) {
      best = &*d->fw_ver;
      best_v = v;
    }
  }
  return best;
}

// A device to update, and to what: the plan's minimum ("or later") or the
// newest of its part on the node.
struct Target {
  const DeviceInfo* dev;
  std::string version;
  bool or_later;
};

// Adds `t`, or raises the device's target when it has one: one remedy per device.
void AddTarget(Target t, std::vector<Target>& targets) {
  for (Target& o : targets) {
    if (o.dev != t.dev) continue;
    if (CompareDotted(*ParseDotted(t.version), *ParseDotted(o.version)) > 0) o = t;
    return;
  }
  targets.push_back(std::move(t));
}

// The commands that show a device's firmware and confirm its update.
void RemedyDevice(const DeviceInfo& d, const std::string& want, ResultBuilder& r) {
  if (IsMellanoxDevice(d)) {
    r.Remedy(absl::StrCat("mstflint -d $(basename $(readlink -f /sys/class/infiniband/", d.name,
                          "/device)) q   # FW Version and PSID of ", d.name));
    r.Remedy(
        "mlxfwmanager --query   # every adapter's firmware, and the newest image for its PSID (NVIDIA MFT)");
  }
  r.Remedy(absl::StrCat("ibv_devinfo -d ", d.name,
                        " | grep fw_ver   # after the update and an adapter reset or reboot: expect ", want));
  r.Note(absl::StrCat("update ", d.name, " to ", want, " with ",
                      IsMellanoxDevice(d) ? "the vendor's tool (NVIDIA: mlxfwmanager, the image for its PSID)"
                                          : absl::StrCat("its vendor's firmware tool (driver ",
                                                         d.driver.value_or("unknown"), ")"),
                      ", then reset the adapter or reboot: the new firmware runs only after that"));
}

void JudgeMinimum(const Plan& plan, const Group& g, ResultBuilder& r, std::vector<Target>& targets) {
  const PartSpec* spec = g.part ? plan.Part(*g.part) : nullptr;
  std::string part = g.part ? absl::StrCat("part ", *g.part) : "its part (vendor_part_id unknown)";
  for (const DeviceInfo* d : g.devs) {
    const std::string& fw = *d->fw_ver;
    if (!spec || !spec->min_fw_ver) {
      r.Expect(d->name + " fw_ver", absl::StrCat("(no min_fw_ver for ", part, " in the plan)"), fw);
      continue;
    }
    std::string expected =
        absl::StrCat(">= ", *spec->min_fw_ver, " (plan [part ", *g.part, "], line ", spec->line, ")");
    std::optional<std::vector<uint64_t>> v = ParseDotted(fw);
    if (!v) {
      r.Expect(d->name + " fw_ver", expected, absl::StrCat(fw, " (not dotted numbers: cannot compare)"),
               Verdict::kWarn);
      continue;
    }
    bool below = CompareDotted(*v, *ParseDotted(*spec->min_fw_ver)) < 0;
    r.Expect(d->name + " fw_ver", expected, fw, below ? Verdict::kFail : Verdict::kPass);
    if (below) AddTarget({d, *spec->min_fw_ver, true}, targets);
  }
}

void JudgeSameness(const Group& g, ResultBuilder& r, std::vector<Target>& targets) {
  if (g.devs.size() < 2) return;
  std::vector<std::string> names, each;
  bool mixed = false, boards_differ = false;
  for (const DeviceInfo* d : g.devs) {
    names.push_back(d->name);
    each.push_back(absl::StrCat(d->name, " ", *d->fw_ver));
    mixed = mixed || !SameVersion(*d->fw_ver, *g.devs[0]->fw_ver);
    boards_differ = boards_differ || d->board_id != g.devs[0]->board_id;
  }
  std::string part = absl::StrCat("part ", *g.part);
  r.Expect(part + " firmware", absl::StrCat("one version on ", absl::StrJoin(names, ", ")),
           mixed ? absl::StrJoin(each, ", ") : absl::StrCat(*g.devs[0]->fw_ver, " on all ", g.devs.size()),
           mixed ? Verdict::kWarn : Verdict::kPass);
  if (!mixed) return;
  r.Note(absl::StrCat(absl::StrJoin(names, ", "), " are one part (", *g.part,
                      ") on different firmware: the same adapter may then behave differently (defaults, "
                      "fixed bugs, counters)",
                      boards_differ ? "; their board_id (PSID) differ, and an OEM board may follow its "
                                      "own firmware releases"
                                    : ""));
  const std::string* newest = Newest(g);
  if (!newest) return;
  for (const DeviceInfo* d : g.devs)
    if (!SameVersion(*d->fw_ver, *newest)) AddTarget({d, *newest, false}, targets);
}

}  // namespace

Result FirmwareCheck::Run(const CheckContext& ctx) const {
  const std::string skip_title = "Adapters of one part run the same firmware";
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, skip_title, "no RDMA device to look at (see device-present)");
  std::vector<const DeviceInfo*> hard;
  std::vector<std::string> soft, missing;
  for (const DeviceInfo* d : devs) {
    if (IsSoftDevice(*d))
      soft.push_back(absl::StrCat(d->name, " (", *d->driver, ")"));
    else if (!d->fw_ver || d->fw_ver->empty())
      missing.push_back(absl::StrCat(d->name, " fw_ver"));
    else
      hard.push_back(d);
  }
  if (hard.empty()) {
    return ResultBuilder::Skip(*this, skip_title,
                               missing.empty()
                                   ? absl::StrCat("soft device, no firmware: ", absl::StrJoin(soft, ", "))
                                   : MissingFact(missing.front(), ""));
  }
  std::vector<std::string> names;
  for (const DeviceInfo* d : hard) names.push_back(d->name);
  ResultBuilder r(*this, absl::StrCat("Firmware of ", absl::StrJoin(names, ", "),
                                      ": one version per part, none below the plan's minimum"));
  std::vector<Target> targets;
  for (const Group& g : GroupByPart(hard)) {
    JudgeMinimum(ctx.plan, g, r, targets);
    JudgeSameness(g, r, targets);
  }
  for (const Target& t : targets) RemedyDevice(*t.dev, t.version + (t.or_later ? " or later" : ""), r);
  if (!soft.empty()) r.Note(absl::StrCat("soft device, no firmware: ", absl::StrJoin(soft, ", ")));
  for (const std::string& m : missing) r.Note(MissingFact(m, ""));
  return r.Build();
}

}  // namespace rdmacheck
