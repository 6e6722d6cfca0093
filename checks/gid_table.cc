#include "checks/gid_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/container.h"

namespace rdmacheck {

namespace {

bool Usable(const GidAddress& a) {
  return a.kind != GidAddress::kInvalid && a.kind != GidAddress::kZero;
}

std::string Describe(const DeviceView& view, const GidEntry& g, const GidAddress& a) {
  std::string what;
  switch (a.kind) {
    case GidAddress::kIpv4Mapped: what = absl::StrCat("IPv4 ", a.ipv4); break;
    case GidAddress::kLinkLocal: what = "IPv6 link-local"; break;
    case GidAddress::kIpv6: what = "IPv6"; break;
    default: what = "no address"; break;
  }
  return absl::StrCat(g.gid, " (", what, ", ", GidTypeName(g.type),
                      g.netdev.empty() ? "" : ", netdev ", DescribeNetdev(view, g.netdev), ")");
}

// The commands that use GID `idx`, for the note and the remedy.
std::string UseLine(const DeviceInfo& d, const PortInfo& p, int idx) {
  return absl::StrCat("ib_write_bw -d ", d.name, " -i ", p.port_num, " -x ", idx,
                      " <server>   # perftest; ibv_rc_pingpong -d ", d.name, " -i ", p.port_num,
                      " -g ", idx, " <server>");
}

void CheckPort(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p,
               ResultBuilder& r) {
  const std::string subj = absl::StrCat(d.name, " port ", p.port_num);
  bool ib = p.link_layer && *p.link_layer == "InfiniBand";
  if (!p.link_layer && !p.gids.empty()) {
    ib = true;
    for (const GidEntry& g : p.gids) ib = ib && g.type == GidType::kIb;
  }
  // The type to prefer: the plan's RoCE type, else v2 (what rxe and current
  // RoCE hardware speak; rdma_cm picks v2 by default).
  GidType prefer = GidType::kRoceV2;
  if (ctx.plan.gid_type && *ctx.plan.gid_type == GidType::kRoceV1) prefer = GidType::kRoceV1;

  // The IP version the deployment addresses its peers by (plan
  // ip_version; IPv4 unless it says 6): its entries are the ones to use.
  const bool v6 = ctx.plan.ip_version.value_or(4) == 6;
  const GidAddress::Kind fam_kind = v6 ? GidAddress::kIpv6 : GidAddress::kIpv4Mapped;
  const char* fam = v6 ? "IPv6" : "IPv4";
  const GidEntry* best = nullptr;
  const GidEntry* any_of_version = nullptr;
  bool has_addr = false;
  std::vector<std::string> indexes;
  for (const GidEntry& g : p.gids) {
    GidAddress a = ClassifyGid(g.gid);
    if (!Usable(a)) continue;
    indexes.push_back(absl::StrCat(g.index));
    r.Expect(absl::StrCat(subj, " GID ", g.index), "usable entry", Describe(ctx.view, g, a), Verdict::kPass);
    if (a.kind == GidAddress::kIpv4Mapped || a.kind == GidAddress::kIpv6) has_addr = true;
    if (a.kind == fam_kind) {
      if (!any_of_version) any_of_version = &g;
      if (!best && g.type == prefer) best = &g;
    }
  }
  if (!best && !ctx.plan.gid_type) best = any_of_version;

  std::optional<int> want = ctx.options.gid_index ? ctx.options.gid_index : ctx.plan.gid_index;
  std::string from = ctx.options.gid_index ? "-x" : absl::StrCat("plan gid_index");
  const GidEntry* used = nullptr;
  if (want) {
    for (const GidEntry& g : p.gids)
      if (g.index == *want && Usable(ClassifyGid(g.gid))) used = &g;
  }
  const std::string used_subj = want ? absl::StrCat(subj, " GID index ", *want, " (", from, ")") : "";
  auto fix_index = [&](int idx) {
    r.Remedy(UseLine(d, p, idx));
    if (!ctx.options.gid_index && !ctx.plan.is_default)
      r.Remedy(absl::StrCat("set gid_index = ", idx, " in ", ctx.plan.path));
    r.Remedy(absl::StrCat("cat /sys/class/infiniband/", d.name, "/ports/", p.port_num, "/gids/", idx,
                          " /sys/class/infiniband/", d.name, "/ports/", p.port_num,
                          "/gid_attrs/types/", idx, "   # shows the entry and its type"));
  };

  if (ib) {
    r.Note(absl::StrCat(subj, " is InfiniBand: its GIDs are IB type, RoCE type and IPv4 rules do not apply"));
    if (want) {
      if (used) {
        r.Expect(used_subj, "a non-empty entry", Describe(ctx.view, *used, ClassifyGid(used->gid)), Verdict::kPass);
      } else {
        r.Expect(used_subj, "a non-empty entry",
                 absl::StrCat("empty (entries: ", absl::StrJoin(indexes, ", "), ")"), Verdict::kFail);
        if (!indexes.empty()) fix_index(p.gids.front().index);
      }
    }
    return;
  }

  // In a container with its own network namespace the kernel still shows
  // the device's GIDs, but their netdev (and its addresses) belong to the
  // host's namespace: rdma_cm there cannot resolve them and a peer's packets
  // never reach this namespace.
  const HostInfo& h = ctx.view.host;
  const std::optional<std::string> port_nd = PortNetdev(d, p);
  const bool container = h.in_container.value_or(false);
  if (container && port_nd && NetdevOutsideNamespace(ctx.view, *port_nd)) {
    std::vector<std::string> seen;
    for (const NetdevInfo& n : ctx.view.netdevs)
      if (!NetdevOutsideNamespace(ctx.view, n.name)) seen.push_back(n.name);
    r.Expect(absl::StrCat(subj, " netdev ", *port_nd), "in this network namespace (host network)",
             seen.empty() ? std::string("not visible in this network namespace")
                          : absl::StrCat("not visible (this namespace has ", absl::StrJoin(seen, ", "), ")"),
             Verdict::kFail);
    r.Note(absl::StrCat("the GIDs of ", subj, " are made from ", *port_nd,
                        ", which is in the host's network namespace: ", DescribeContainer(h),
                        " has its own, so rdma_cm cannot use them and RoCE traffic does not reach it"));
    for (const std::string& line : ContainerRemedies(h, kNeedHostNetwork)) r.Remedy(line);
    r.Remedy(absl::StrCat("ip -br addr show dev ", *port_nd,
                          "   # inside the container: must list it with its address"));
    return;
  }

  if (!has_addr) {
    std::string nd = port_nd.value_or("<netdev>");
    r.Expect(absl::StrCat(subj, " GIDs with an address"),
             "an IPv4-mapped (::ffff:a.b.c.d) or global IPv6 entry",
             indexes.empty() ? "none: the table is empty" : "only IPv6 link-local (fe80::)",
             Verdict::kFail);
    if (const NetdevInfo* n = ctx.view.Netdev(nd); n && n->addrs_known) {
      r.Expect(absl::StrCat("netdev ", nd, " addresses"), v6 ? "a global IPv6 address" : "an IPv4 address",
               n->addrs.empty() ? "none" : absl::StrJoin(n->addrs, " "), Verdict::kFail);
    }
    r.Note(absl::StrCat("RoCE GIDs are made from the addresses of ", nd,
                        ": without an IP address there is nothing a peer can reach"));
    if (container) {
      for (const std::string& line : ContainerRemedies(h, kNeedHostNetwork)) r.Remedy(line);
    }
    if (v6) {
      r.Remedy(absl::StrCat("ip -6 addr add 2001:2::1/64 dev ", nd,
                            "   # 2001:2::1/64 is a placeholder: choose this host's address and prefix"));
    } else {
      r.Remedy(absl::StrCat("ip addr add 198.18.0.1/24 dev ", nd,
                            "   # 198.18.0.1/24 is a placeholder: choose this host's address and prefix"));
    }
    r.Remedy(absl::StrCat("ibv_devinfo -d ", d.name, " -i ", p.port_num, " -v | grep GID   # expect a ",
                          v6 ? "global IPv6" : "::ffff:<address>", " entry, RoCE v2"));
    return;
  }

  if (best) {
    r.Note(absl::StrCat("use GID ", best->index, " of ", subj, " (", best->gid, ", ",
                        GidTypeName(best->type), "): ", UseLine(d, p, best->index)));
  } else {
    r.Note(absl::StrCat(subj, " has no ", v6 ? "global IPv6 " : "IPv4-mapped ", GidTypeName(prefer), " entry"));
  }
  // The plan names the version: without an entry of it there is nothing
  // its peers can address.
  if (!best && ctx.plan.ip_version) {
    const std::vector<std::string> nds = RoceNetdevs(d, p);
    const std::string nd = nds.empty() ? std::string("<netdev>") : nds.front();
    r.Expect(absl::StrCat(subj, " ", fam, " ", GidTypeName(prefer), " entry"),
             absl::StrCat("present (plan ip_version ", *ctx.plan.ip_version, ")"),
             absl::StrCat("none (entries: ", absl::StrJoin(indexes, ", "), ")"), Verdict::kFail);
    r.Remedy(v6 ? absl::StrCat("ip -6 addr add ADDRESS/64 dev ", nd, "   # a global IPv6 address becomes a RoCE v2 GID")
                : absl::StrCat("ip addr add ADDRESS/PREFIX dev ", nd, "   # an IPv4 address becomes a ::ffff: GID"));
    return;
  }
  if (!want) {
    r.Expect(absl::StrCat(subj, " GID index in use"),
             best ? absl::StrCat("-x ", best->index, " (", fam, " ", GidTypeName(best->type), ")")
                  : "an entry with an address",
             "none given (-x or plan gid_index)", Verdict::kPass);
    return;
  }
  std::string expect_txt =
      best ? absl::StrCat("GID ", best->index, " ", best->gid, " (", fam, ", ", GidTypeName(best->type), ")")
           : absl::StrCat("a ", GidTypeName(prefer), " entry with an address");
  if (!used) {
    r.Expect(used_subj, expect_txt,
             absl::StrCat("empty: no GID at index ", *want, " (entries: ", absl::StrJoin(indexes, ", "), ")"),
             Verdict::kFail);
    r.Note("an empty GID index makes the QP's path all zeroes: modify QP to RTR fails, or perftest says "
           "\"Found Incompatibility issue with GID types\"");
    if (best) fix_index(best->index);
    return;
  }
  GidAddress ua = ClassifyGid(used->gid);
  if (ctx.plan.gid_type && used->type != *ctx.plan.gid_type) {
    r.Expect(used_subj, absl::StrCat(expect_txt, "; type ", GidTypeName(*ctx.plan.gid_type), " (plan gid_type)"),
             Describe(ctx.view, *used, ua), Verdict::kFail);
    r.Note("both sides must use GIDs of the same type: a RoCE v1 GID against a v2 peer never connects");
    if (best) fix_index(best->index);
    return;
  }
  // Both ends must address each other by one IP version: perftest says
  // "Please Try to use a different IP version" otherwise.
  if (ctx.plan.ip_version && ua.kind != fam_kind && ua.kind != GidAddress::kLinkLocal && best) {
    r.Expect(used_subj, absl::StrCat(expect_txt, " (plan ip_version ", *ctx.plan.ip_version, ")"),
             Describe(ctx.view, *used, ua), Verdict::kFail);
    r.Note(absl::StrCat("the plan's peers are addressed over ", fam, ": an entry of the other version never "
                        "matches theirs (perftest: \"Found Incompatibility issue with GID types\", \"Please Try "
                        "to use a different IP version\")"));
    fix_index(best->index);
    return;
  }
  if (ua.kind == GidAddress::kLinkLocal && best) {
    r.Expect(used_subj, expect_txt, Describe(ctx.view, *used, ua), Verdict::kFail);
    r.Note(absl::StrCat("the fe80:: entry is IPv6 link-local: a peer addressed over ", fam,
                        " never matches it (hang, then \"transport retry counter exceeded\")"));
    fix_index(best->index);
    return;
  }
  r.Expect(used_subj, expect_txt, Describe(ctx.view, *used, ua), Verdict::kPass);
}

}  // namespace

Result GidTableCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  const std::string title0 = absl::StrCat("The GID index in use is the ",
                                          ctx.plan.ip_version.value_or(4) == 6 ? "IPv6" : "IPv4",
                                          " RoCE v2 entry");
  if (devs.empty()) return ResultBuilder::Skip(*this, title0, "no RDMA device to look at (see device-present)");
  std::vector<std::string> names;
  for (const DeviceInfo* d : devs) names.push_back(d->name);
  ResultBuilder r(*this, absl::StrCat(title0, " of ", absl::StrJoin(names, ", "),
                                      ", and each port has a GID with an address"));
  int looked = 0;
  std::vector<std::string> missing;
  for (const DeviceInfo* d : devs) {
    for (const PortInfo* p : ctx.SelectedPorts(*d)) {
      if (!p->gids_known) {
        missing.push_back(MissingFact(absl::StrCat(d->name, " port ", p->port_num),
                                      "GID table (ibv_devinfo -v or sysfs gids)"));
        continue;
      }
      ++looked;
      CheckPort(ctx, *d, *p, r);
    }
  }
  if (looked == 0) {
    return ResultBuilder::Skip(*this, title0, missing.empty() ? "no port to look at" : missing.front());
  }
  for (const std::string& m : missing) r.Note(m);
  return r.Build();
}

}  // namespace rdmacheck
