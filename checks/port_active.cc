#include "checks/port_active.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

void RemedyPort(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p,
                ResultBuilder& r) {
  std::optional<std::string> nd = PortNetdev(d, p);
  bool eth = p.link_layer && *p.link_layer == "Ethernet";
  std::string show = absl::StrCat("ibv_devinfo -d ", d.name, " -i ", p.port_num,
                                  " | grep -E 'state|phys_state'   # expect PORT_ACTIVE and LINK_UP");
  if (eth && nd) {
    const NetdevInfo* n = ctx.view.Netdev(*nd);
    std::string oper = n && n->operstate ? *n->operstate : "unknown";
    r.Note(absl::StrCat(d.name, " port ", p.port_num, " follows netdev ", *nd,
                        " (operstate ", oper, ")"));
    r.Remedy(absl::StrCat("ip link set dev ", *nd, " up"));
    if (oper == "up" || oper == "unknown")
      r.Remedy(absl::StrCat("ethtool ", *nd, "   # link detected: no -> check cable, switch port, transceiver"));
    r.Remedy(show);
    return;
  }
  if (!eth && p.state && (*p.state == "INIT" || *p.state == "ARMED") &&
      p.phys_state && *p.phys_state == "LinkUp") {
    r.Note("the physical link is up but no subnet manager has configured the port");
    r.Remedy("systemctl start opensm   # or enable the SM on a managed switch");
    r.Remedy(absl::StrCat("sminfo -C ", d.name, " -P ", p.port_num, "   # must name the master SM"));
    r.Remedy(show);
    return;
  }
  r.Remedy(absl::StrCat("ibstat ", d.name, " ", p.port_num,
                        "   # physical state Polling/Disabled: check cable, switch port, transceiver"));
  r.Remedy(show);
}

}  // namespace

Result PortActiveCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) {
    return ResultBuilder::Skip(*this, "Ports in use are ACTIVE",
                               "no RDMA device to look at (see device-present)");
  }
  std::vector<std::string> names;
  for (const DeviceInfo* d : devs) names.push_back(d->name);
  ResultBuilder r(*this, absl::StrCat("Ports of ", absl::StrJoin(names, ", "), " are ACTIVE and LinkUp"));
  int looked = 0;
  std::vector<std::string> missing;
  for (const DeviceInfo* d : devs) {
    std::vector<const PortInfo*> ports = ctx.SelectedPorts(*d);
    if (ports.empty()) {
      int want = ctx.options.port ? *ctx.options.port : ctx.plan.port.value_or(1);
      r.Expect(absl::StrCat(d->name, " port ", want), "exists",
               absl::StrCat("no such port (", d->ports.size(), " port(s))"), Verdict::kFail);
      r.Remedy(absl::StrCat("ibv_devinfo -d ", d->name, "   # lists its ports; pass one with -i"));
      continue;
    }
    for (const PortInfo* p : ports) {
      std::string subj = absl::StrCat(d->name, " port ", p->port_num);
      bool bad = false;
      if (!p->state) {
        missing.push_back(absl::StrCat(subj, " state"));
        continue;
      }
      ++looked;
      bool active = *p->state == "ACTIVE";
      r.Expect(absl::StrCat(subj, " state"), "ACTIVE", *p->state, active ? Verdict::kPass : Verdict::kFail);
      bad = !active;
      if (p->phys_state) {
        bool up = *p->phys_state == "LinkUp";
        r.Expect(absl::StrCat(subj, " phys_state"), "LinkUp", *p->phys_state,
                 up ? Verdict::kPass : Verdict::kFail);
        bad = bad || !up;
      }
      if (ctx.plan.link_layer) {
        if (p->link_layer) {
          bool ok = *p->link_layer == *ctx.plan.link_layer;
          r.Expect(absl::StrCat(subj, " link_layer"), absl::StrCat(*ctx.plan.link_layer, " (plan)"),
                   *p->link_layer, ok ? Verdict::kPass : Verdict::kFail);
          if (!ok) {
            r.Note(absl::StrCat("the plan ", ctx.plan.path, " expects link layer ",
                                *ctx.plan.link_layer, "; ", d->name, " port ", p->port_num, " runs ",
                                *p->link_layer));
            if (d->driver && (*d->driver == "mlx5" || *d->driver == "mlx4"))
              r.Remedy(absl::StrCat("mlxconfig -d ", d->name, " set LINK_TYPE_P", p->port_num, "=",
                                    *ctx.plan.link_layer == "Ethernet" ? 2 : 1,
                                    "   # then reboot or reset the adapter"));
            else
              r.Remedy(absl::StrCat("use a device whose port runs ", *ctx.plan.link_layer,
                                    ", or fix link_layer in ", ctx.plan.path));
          }
        } else {
          missing.push_back(absl::StrCat(subj, " link_layer"));
        }
      }
      if (bad) RemedyPort(ctx, *d, *p, r);
    }
  }
  for (const std::string& m : missing) r.Note(MissingFact(m, ""));
  if (looked == 0 && r.verdict() != Verdict::kFail) {
    return ResultBuilder::Skip(*this, "Ports in use are ACTIVE",
                               missing.empty() ? "no port to look at"
                                               : MissingFact(missing.front(), ""));
  }
  return r.Build();
}

}  // namespace rdmacheck
