#include "checks/port_rate.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/port_rate.h"

namespace rdmacheck {
namespace {

// What an InfiniBand adapter port trains at when cable and switch allow.
constexpr int kIbLanes = 4;

// Why a soft device's rate means nothing, per driver.
constexpr struct {
  absl::string_view driver;
  absl::string_view why;
} kSoftRates[] = {
    {"rxe",
     "derived from its netdev's ethtool speed (drivers/infiniband/sw/rxe/rxe_verbs.c "
     "rxe_query_port -> ib_get_eth_speed)"},
    {"siw",
     "a constant 4X DDR on older kernels, its netdev's ethtool speed on newer ones "
     "(drivers/infiniband/sw/siw/siw_verbs.c siw_query_port)"},
};

// Mellanox/NVIDIA parts that run InfiniBand, by vendor_part_id (the PCI
// device ID; pci.ids: 0x1003 ConnectX-3, 0x1007 ConnectX-3 Pro, 0x1013
// ConnectX-4, 0x1017 ConnectX-5, 0x1019 ConnectX-5 Ex, 0x101b ConnectX-6,
// 0x1021 ConnectX-7), with the fastest InfiniBand speed the vendor's product
// briefs give them (FDR 56, EDR 100, HDR 200, NDR 400 Gb/s at 4X). Parts that
// only run Ethernet (ConnectX-4 Lx, ConnectX-6 Dx, ...) are not here.
struct IbPart {
  uint32_t id;
  absl::string_view name;
  int best_speed;  // an IbSpeed code
};
constexpr IbPart kIbParts[] = {
    {4099, "ConnectX-3", 16},  {4103, "ConnectX-3 Pro", 16}, {4115, "ConnectX-4", 32},
    {4119, "ConnectX-5", 32},  {4121, "ConnectX-5 Ex", 32},  {4123, "ConnectX-6", 64},
    {4129, "ConnectX-7", 128},
};

const IbPart* IbPartOf(const DeviceInfo& d) {
  if (!d.vendor_part_id || !IsMellanoxDevice(d)) return nullptr;
  for (const IbPart& p : kIbParts)
    if (p.id == *d.vendor_part_id) return &p;
  return nullptr;
}

bool IsIb(const PortInfo& p) { return p.link_layer && *p.link_layer == "InfiniBand"; }
// A port that is not ACTIVE trains at nothing: port-active reports it.
bool IsActive(const PortInfo& p) { return !p.state || *p.state == "ACTIVE"; }

std::string Subject(const DeviceInfo& d, const PortInfo& p) {
  return absl::StrCat(d.name, " port ", p.port_num);
}

// One line per soft driver: why its devices' rates mean nothing, and what they read.
std::vector<std::string> SoftReasons(const std::vector<const DeviceInfo*>& soft) {
  std::vector<std::string> out;
  for (const auto& s : kSoftRates) {
    std::vector<std::string> names, read;
    for (const DeviceInfo* d : soft) {
      if (*d->driver != s.driver) continue;
      names.push_back(d->name);
      for (const PortInfo& p : d->ports)
        read.push_back(absl::StrCat(d->name, " port ", p.port_num, " ", p.rate.value_or("no rate")));
    }
    if (names.empty()) continue;
    bool one = names.size() == 1;
    out.push_back(absl::StrCat(absl::StrJoin(names, ", "),
                               one ? " is a soft device (" : " are soft devices (", s.driver,
                               "): ", one ? "its" : "their", " rate is nominal, ", s.why,
                               "; read: ", read.empty() ? "no ports" : absl::StrJoin(read, ", ")));
  }
  return out;
}

// An ACTIVE hardware port of the node with its rate, to compare ports of one part.
struct Sample {
  const DeviceInfo* dev;
  const PortInfo* port;
  PortRate rate;
};

std::vector<Sample> ActivePorts(const DeviceView& view) {
  std::vector<Sample> out;
  for (const DeviceInfo& d : view.devices) {
    if (IsSoftDevice(d)) continue;
    for (const PortInfo& p : d.ports) {
      absl::StatusOr<PortRate> r = IsActive(p) ? RateOfPort(p) : absl::NotFoundError("");
      if (r.ok()) out.push_back({&d, &p, *r});
    }
  }
  return out;
}

// The fastest other port of the same part and link layer on the node: by
// speed on InfiniBand (its width is judged apart), by rate on Ethernet.
const Sample* FastestSibling(const std::vector<Sample>& all, const DeviceInfo& d, const PortInfo& p) {
  auto key = [&](const PortRate& r) -> double { return IsIb(p) ? (r.speed ? r.speed->code : 0) : r.gbps; };
  const Sample* best = nullptr;
  for (const Sample& s : all) {
    bool same_part =
        d.vendor_part_id && s.dev->vendor_part_id == d.vendor_part_id && s.dev->vendor_id == d.vendor_id;
    if (s.port == &p || !same_part || s.port->link_layer != p.link_layer) continue;
    if (!best || key(s.rate) > key(best->rate)) best = &s;
  }
  return best;
}

// What judging one port found, for its remedy and its closing note.
struct Judged {
  bool bad = false;               // a FAIL or WARN row
  bool expected = false;          // the plan's min_rate, the part table or a sibling set a rate or speed
  std::vector<std::string> want;  // "4X", "HDR", ">= 100 Gb/s": the remedy's "expect"
};

// Judges one ACTIVE port: plan min_rate, then on InfiniBand width and the
// part's best speed, then the node's other ports of the same part.
class PortJudge {
 public:
  PortJudge(const Plan& plan, const DeviceInfo& d, const PortInfo& p, const PortRate& rate, ResultBuilder& r)
      : plan_(plan), d_(d), p_(p), rate_(rate), r_(r), subj_(Subject(d, p)) {}

  void Run(const std::vector<Sample>& samples, std::vector<std::string>& missing) {
    const Sample* faster = FasterSibling(samples);
    // On Ethernet a faster sibling is the rate's expectation when the plan sets none.
    if (plan_.min_rate_gbps)
      PlanRate();
    else if (!faster || IsIb(p_))
      r_.Expect(subj_ + " rate", "(no min_rate in the plan)", FormatRate(rate_));
    if (!IsIb(p_) && faster) Sibling(faster);
    if (IsIb(p_)) {
      Width(missing);
      PartSpeed();
      if (faster) Sibling(faster);
    }
    if (!j_.expected) NothingSaysWhatToExpect();
    if (j_.bad) Remedy();
  }

 private:
  bool MeetsPlanRate() const { return plan_.min_rate_gbps && rate_.gbps >= *plan_.min_rate_gbps; }

  void PlanRate() {
    std::string min = absl::StrCat(FormatGbps(*plan_.min_rate_gbps), " Gb/s");
    bool ok = MeetsPlanRate();
    r_.Expect(subj_ + " rate", absl::StrCat(">= ", min, " (plan min_rate, line ", plan_.min_rate_line, ")"),
              FormatRate(rate_), ok ? Verdict::kPass : Verdict::kFail);
    j_.expected = true;
    j_.want.push_back(">= " + min);
    if (ok) return;
    j_.bad = true;
    r_.Note(absl::StrCat(subj_, " runs ", FormatRate(rate_), ", below min_rate = ", *plan_.min_rate, " of ",
                         plan_.path, " line ", plan_.min_rate_line,
                         "; if this rate is intended, lower it there"));
  }

  void Width(std::vector<std::string>& missing) {
    int want = kIbLanes;
    std::string expected = absl::StrCat(">= ", kIbLanes, "X (an InfiniBand adapter port)");
    if (plan_.link_width) {
      want = LanesNamed(*plan_.link_width).value_or(kIbLanes);
      expected =
          absl::StrCat(">= ", *plan_.link_width, " (plan link_width, line ", plan_.link_width_line, ")");
    }
    if (!rate_.lanes) {
      missing.push_back(absl::StrCat(subj_, " active_width"));
      return;
    }
    bool ok = *rate_.lanes >= want;
    r_.Expect(subj_ + " width", expected, absl::StrCat(*rate_.lanes, "X"),
              ok ? Verdict::kPass : Verdict::kFail);
    j_.want.push_back(absl::StrCat(want, "X"));
    if (ok) return;
    j_.bad = true;
    r_.Note(absl::StrCat(subj_, ": a ", want, "X link trained at ", *rate_.lanes,
                         "X: a damaged cable, a failed transceiver lane or the switch port. A split cable "
                         "is narrow by design: set it in the plan's [plan] with link_width (HDR100 runs 2X: "
                         "link_width = 2X)"));
  }

  void PartSpeed() {
    const IbPart* part = IbPartOf(d_);
    if (!part || !rate_.speed) return;
    const IbSpeed* best = SpeedOfCode(part->best_speed);
    bool below = rate_.speed->code < best->code;
    j_.expected = true;
    if (below && MeetsPlanRate()) {
      r_.Note(absl::StrCat(subj_, " runs ", rate_.speed->name, ", below ", best->name, ", the best of ",
                           part->name, "; the plan's min_rate is met, so that speed is taken as intended"));
      return;
    }
    r_.Expect(subj_ + " speed",
              absl::StrCat(best->name, " (the best of ", part->name, ", part ", part->id, ")"),
              std::string(rate_.speed->name), below ? Verdict::kWarn : Verdict::kPass);
    if (!below) return;
    j_.bad = true;
    j_.want.push_back(std::string(best->name));
    r_.Note(absl::StrCat(subj_, " runs ", rate_.speed->name, " where ", part->name, " can run ", best->name,
                         ": a speed downshift, from the cable, the transceiver or the switch port; if ",
                         rate_.speed->name, " is the fabric's speed, set min_rate in the plan"));
  }

  // The fastest port of the same part on the node when this one is slower; null otherwise.
  const Sample* FasterSibling(const std::vector<Sample>& samples) const {
    const Sample* s = FastestSibling(samples, d_, p_);
    if (!s) return nullptr;
    bool slower = IsIb(p_) ? rate_.speed && s->rate.speed && rate_.speed->code < s->rate.speed->code
                           : rate_.gbps < s->rate.gbps;
    return slower ? s : nullptr;
  }

  void Sibling(const Sample* s) {
    bool ib = IsIb(p_);
    std::string theirs =
        ib ? std::string(s->rate.speed->name) : absl::StrCat(FormatGbps(s->rate.gbps), " Gb/s");
    r_.Expect(subj_ + (ib ? " speed" : " rate"),
              absl::StrCat(theirs, " (as ", Subject(*s->dev, *s->port), ", the same part ",
                           *d_.vendor_part_id, ")"),
              ib ? std::string(rate_.speed->name) : FormatRate(rate_), Verdict::kWarn);
    j_.bad = j_.expected = true;
    j_.want.push_back(theirs);
  }

  void NothingSaysWhatToExpect() {
    std::string now = absl::StrCat(FormatGbps(rate_.gbps), " Gb/s");
    if (IsIb(p_)) {
      std::string part = d_.vendor_part_id ? absl::StrCat("part ", *d_.vendor_part_id) : "its part (unknown)";
      r_.Note(absl::StrCat("nothing says what speed ", subj_, " should run at: ", part,
                           " is not in port-rate's table of InfiniBand parts; set min_rate in the plan's "
                           "[plan] (it runs ",
                           now, " now)"));
      return;
    }
    std::optional<std::string> nd = PortNetdev(d_, p_);
    r_.Note(absl::StrCat("nothing says what rate ", subj_,
                         " should run at: set min_rate in the plan's [plan] (it runs ", now, " now)",
                         nd ? absl::StrCat("; `ethtool ", *nd, "` lists the link modes it supports") : ""));
  }

  void Remedy() {
    if (IsIb(p_)) {
      r_.Remedy(absl::StrCat("ibstat ", d_.name, " ", p_.port_num, "   # Rate and Physical state"));
      r_.Remedy(absl::StrCat("ibportstate -C ", d_.name, " -P ", p_.port_num, " -D 0 ", p_.port_num,
                             " query   # LinkWidth and LinkSpeed: Supported, Enabled, Active"));
    } else if (std::optional<std::string> nd = PortNetdev(d_, p_)) {
      r_.Remedy(
          absl::StrCat("ethtool ", *nd, "   # Speed, and the link modes both ends support and advertise"));
    }
    if (IsMellanoxDevice(d_))
      r_.Remedy(absl::StrCat("mlxlink -d ", d_.name, " -p ", p_.port_num,
                             "   # cable, lanes and errors (NVIDIA MFT)"));
    r_.Remedy(
        absl::StrCat("reseat or replace the cable or transceiver, or move it to another switch port; then: "
                     "cat /sys/class/infiniband/",
                     d_.name, "/ports/", p_.port_num, "/rate   # expect ", absl::StrJoin(j_.want, ", ")));
  }

  const Plan& plan_;
  const DeviceInfo& d_;
  const PortInfo& p_;
  const PortRate& rate_;
  ResultBuilder& r_;
  const std::string subj_;
  Judged j_;
};

}  // namespace

Result PortRateCheck::Run(const CheckContext& ctx) const {
  const std::string skip_title = "Ports in use run at their expected rate and width";
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, skip_title, "no RDMA device to look at (see device-present)");
  std::vector<const DeviceInfo*> hard, soft_devs;
  for (const DeviceInfo* d : devs) (IsSoftDevice(*d) ? soft_devs : hard).push_back(d);
  const std::vector<std::string> soft = SoftReasons(soft_devs);
  if (hard.empty()) return ResultBuilder::Skip(*this, skip_title, absl::StrJoin(soft, "; "));

  std::vector<std::string> names;
  for (const DeviceInfo* d : hard) names.push_back(d->name);
  ResultBuilder r(
      *this, absl::StrCat("Ports of ", absl::StrJoin(names, ", "), " run at their expected rate and width"));
  for (const std::string& s : soft) r.Note(s);
  const std::vector<Sample> samples = ActivePorts(ctx.view);
  int judged = 0;
  std::vector<std::string> missing;
  for (const DeviceInfo* d : hard) {
    for (const PortInfo* p : ctx.SelectedPorts(*d)) {
      std::string subj = Subject(*d, *p);
      if (!IsActive(*p)) {
        r.Note(absl::StrCat(subj, " is ", *p->state,
                            ": it runs at no rate until it is ACTIVE (see port-active)"));
        continue;
      }
      absl::StatusOr<PortRate> rate = RateOfPort(*p);
      if (absl::IsNotFound(rate.status())) {
        missing.push_back(absl::StrCat(subj, " rate"));
        continue;
      }
      ++judged;
      if (!rate.ok()) {
        r.Expect(subj + " rate", "a rate as sysfs prints it, e.g. 100 Gb/sec (4X EDR)",
                 std::string(rate.status().message()), Verdict::kWarn);
        r.Remedy(absl::StrCat("cat /sys/class/infiniband/", d->name, "/ports/", p->port_num,
                              "/rate; ibv_devinfo -d ", d->name, " -i ", p->port_num,
                              " -v | grep -E 'active_(width|speed)'"));
        continue;
      }
      PortJudge(ctx.plan, *d, *p, *rate, r).Run(samples, missing);
    }
  }
  for (const std::string& m : missing) r.Note(MissingFact(m, ""));
  if (judged == 0) {
    return ResultBuilder::Skip(
        *this, skip_title,
        missing.empty() ? "no ACTIVE port to look at (see port-active)" : MissingFact(missing.front(), ""));
  }
  return r.Build();
}

}  // namespace rdmacheck
