#include "checks/rxe_sysctls.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {
namespace {

struct V4 {
  uint32_t addr = 0;  // host order
  int prefix = 32;
  std::string text;
};

std::optional<V4> ParseV4(const std::string& cidr) {
  std::vector<std::string> parts = absl::StrSplit(cidr, '/');
  in_addr a;
  if (parts.empty() || parts.size() > 2 || inet_pton(AF_INET, parts[0].c_str(), &a) != 1) return std::nullopt;
  V4 v;
  v.addr = ntohl(a.s_addr);
  if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &v.prefix) || v.prefix < 0 || v.prefix > 32))
    return std::nullopt;
  v.text = cidr;
  return v;
}

uint32_t Mask(int prefix) { return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix); }

std::string SubnetText(const V4& v) {
  uint32_t n = v.addr & Mask(v.prefix);
  return absl::StrCat(n >> 24, ".", (n >> 16) & 255, ".", (n >> 8) & 255, ".", n & 255, "/", v.prefix);
}

// The sysctl(8) name of an interface's key: a netdev name with a dot (a
// VLAN, "va.100") is written with '/' there, since sysctl reads dots as
// separators ("net.ipv4.conf.va/100.rp_filter"; procps sysctl.c, slashdot).
std::string ConfKey(const std::string& netdev, absl::string_view key) {
  return absl::StrCat("net.ipv4.conf.", absl::StrReplaceAll(netdev, {{".", "/"}}), ".", key);
}

std::optional<int> Sysctl(const HostInfo& h, const std::string& scope, const std::string& key) {
  auto it = h.sysctls.find(absl::StrCat("net.ipv4.conf.", scope, ".", key));
  int v;
  if (it == h.sysctls.end() || !absl::SimpleAtoi(it->second, &v)) return std::nullopt;
  return v;
}

std::string Shown(std::optional<int> v) { return v ? absl::StrCat(*v) : "?"; }

}  // namespace

std::vector<LocalPair> FindLocalPairs(const DeviceView& view) {
  struct End {
    std::string dev, netdev;
    V4 addr;
  };
  std::vector<End> ends;
  for (const DeviceInfo& d : view.devices) {
    for (const std::string& nd : DeviceNetdevs(d)) {
      const NetdevInfo* n = view.Netdev(nd);
      if (!n || !n->addrs_known) continue;
      for (const std::string& a : n->addrs)
        if (std::optional<V4> v = ParseV4(a)) ends.push_back({d.name, nd, *v});
    }
  }
  std::vector<LocalPair> out;
  for (size_t i = 0; i < ends.size(); ++i) {
    for (size_t j = i + 1; j < ends.size(); ++j) {
      const End& a = ends[i];
      const End& b = ends[j];
      if (a.dev == b.dev || a.netdev == b.netdev || a.addr.prefix != b.addr.prefix) continue;
      if ((a.addr.addr & Mask(a.addr.prefix)) != (b.addr.addr & Mask(b.addr.prefix))) continue;
      out.push_back({a.dev, a.netdev, a.addr.text, b.dev, b.netdev, b.addr.text, SubnetText(a.addr)});
    }
  }
  return out;
}

Result RxeSysctlsCheck::Run(const CheckContext& ctx) const {
  const std::string title0 = "Local RDMA pairs over IP have accept_local=1 and rp_filter=0";
  if (ctx.view.devices.empty())
    return ResultBuilder::Skip(*this, title0, "no RDMA device to look at (see device-present)");
  std::optional<std::string> want = ctx.options.device ? ctx.options.device : ctx.plan.device;
  std::vector<LocalPair> pairs;
  for (const LocalPair& p : FindLocalPairs(ctx.view))
    if (!want || p.dev_a == *want || p.dev_b == *want) pairs.push_back(p);
  if (pairs.empty()) {
    std::vector<std::string> seen;
    for (const DeviceInfo& d : ctx.view.devices) {
      std::vector<std::string> nds = DeviceNetdevs(d);
      std::vector<std::string> parts;
      for (const std::string& nd : nds) {
        const NetdevInfo* n = ctx.view.Netdev(nd);
        if (!n || !n->addrs_known) {
          parts.push_back(absl::StrCat(nd, " (addresses not recorded)"));
          continue;
        }
        std::vector<std::string> v4;
        for (const std::string& a : n->addrs)
          if (ParseV4(a)) v4.push_back(a);
        parts.push_back(absl::StrCat(nd, " ", v4.empty() ? "no IPv4 address" : absl::StrJoin(v4, " ")));
      }
      seen.push_back(absl::StrCat(d.name, " on ", nds.empty() ? "no netdev" : absl::StrJoin(parts, ", ")));
    }
    std::string why = ctx.view.devices.size() == 1
                          ? "one RDMA device on this host, so no local pair talks over IP"
                          : "no two RDMA devices of this host have IPv4 addresses in one subnet";
    return ResultBuilder::Skip(*this, title0, absl::StrCat(why, ": ", absl::StrJoin(seen, "; ")));
  }

  std::set<std::string> netdevs, devs, subnets;
  for (const LocalPair& p : pairs) {
    netdevs.insert(p.netdev_a);
    netdevs.insert(p.netdev_b);
    devs.insert(p.dev_a);
    devs.insert(p.dev_b);
    subnets.insert(p.subnet);
  }
  ResultBuilder r(*this, absl::StrCat("RDMA devices ", absl::StrJoin(devs, ", "), " share ",
                                      absl::StrJoin(subnets, ", "), ": accept_local=1 and rp_filter=0 on ",
                                      absl::StrJoin(netdevs, ", ")));
  for (const LocalPair& p : pairs)
    r.Note(absl::StrCat(p.dev_a, " on ", p.netdev_a, " (", p.addr_a, ") and ", p.dev_b, " on ", p.netdev_b,
                        " (", p.addr_b, ") share ", p.subnet, ": packets between them carry a local source "
                        "address"));

  const HostInfo& h = ctx.view.host;
  std::vector<std::string> fixes;  // "net.ipv4.conf.va.accept_local=1"
  auto fix = [&](std::string k) {
    if (std::find(fixes.begin(), fixes.end(), k) == fixes.end()) fixes.push_back(std::move(k));
  };
  std::vector<std::string> missing, arp_advice;
  int rows = 0;
  const std::optional<int> al_all = Sysctl(h, "all", "accept_local");
  const std::optional<int> rp_all = Sysctl(h, "all", "rp_filter");
  for (const std::string& nd : netdevs) {
    // accept_local: the kernel ORs all and the interface (IN_DEV_ORCONF).
    std::optional<int> al = Sysctl(h, nd, "accept_local");
    bool al_on = (al_all && *al_all != 0) || (al && *al != 0);
    if (al_on || (al_all && al)) {
      ++rows;
      r.Expect(absl::StrCat("net.ipv4.conf.{all,", nd, "}.accept_local"), "1 in either (the kernel ORs them)",
               absl::StrCat("all=", Shown(al_all), " ", nd, "=", Shown(al), " -> ", al_on ? 1 : 0),
               al_on ? Verdict::kPass : Verdict::kFail);
      if (!al_on) fix(absl::StrCat(ConfKey(nd, "accept_local"), "=1"));
    } else {
      missing.push_back(MissingFact("host", absl::StrCat("sysctl net.ipv4.conf.{all,", nd, "}.accept_local")));
    }
    // rp_filter: the kernel uses the max of all and the interface.
    std::optional<int> rp = Sysctl(h, nd, "rp_filter");
    int rp_max = std::max(rp_all.value_or(0), rp.value_or(0));
    if (rp_max > 0 || (rp_all && rp)) {
      ++rows;
      r.Expect(absl::StrCat("net.ipv4.conf.{all,", nd, "}.rp_filter"), "0 in both (the kernel uses the max)",
               absl::StrCat("all=", Shown(rp_all), " ", nd, "=", Shown(rp), " -> ", rp_max),
               rp_max == 0 ? Verdict::kPass : Verdict::kFail);
      if (rp_all && *rp_all > 0) fix("net.ipv4.conf.all.rp_filter=0");
      if (rp && *rp > 0) fix(absl::StrCat(ConfKey(nd, "rp_filter"), "=0"));
    } else {
      missing.push_back(MissingFact("host", absl::StrCat("sysctl net.ipv4.conf.{all,", nd, "}.rp_filter")));
    }
    // arp_ignore / arp_announce (max of all and interface): advice only, see
    // the doc page for why this is not a WARN.
    std::optional<int> ai = Sysctl(h, nd, "arp_ignore"), ai_all = Sysctl(h, "all", "arp_ignore");
    std::optional<int> aa = Sysctl(h, nd, "arp_announce"), aa_all = Sysctl(h, "all", "arp_announce");
    if (ai && ai_all && std::max(*ai, *ai_all) == 0)
      arp_advice.push_back(absl::StrCat(ConfKey(nd, "arp_ignore"), "=1"));
    if (aa && aa_all && std::max(*aa, *aa_all) < 2)
      arp_advice.push_back(absl::StrCat(ConfKey(nd, "arp_announce"), "=2"));
  }
  for (const std::string& m : missing) r.Note(m);
  if (rows == 0) return ResultBuilder::Skip(*this, title0, missing.front());
  if (!arp_advice.empty()) {
    r.Note(absl::StrCat("several netdevs share a subnet: on one L2 segment (two NIC ports on one switch) "
                        "recommended: sysctl -w ", absl::StrJoin(arp_advice, " "),
                        "   # each netdev answers ARP only for its own address"));
  }
  if (!fixes.empty()) {
    r.Note("without them the kernel drops RoCE v2 packets between the pair as martians: QPs hang, then "
           "\"transport retry counter exceeded\"");
    r.Remedy(absl::StrCat("sysctl -w ", absl::StrJoin(fixes, " ")));
    std::vector<std::string> conf;
    for (const std::string& f : fixes) {
      std::vector<std::string> kv = absl::StrSplit(f, '=');
      conf.push_back(absl::StrCat("'", kv[0], " = ", kv[1], "'"));
    }
    r.Remedy(absl::StrCat("printf '%s\\n' ", absl::StrJoin(conf, " "),
                          " > /etc/sysctl.d/90-rdma-local.conf   # keeps them across reboots"));
    std::vector<std::string> show = {"net.ipv4.conf.all.rp_filter"};
    for (const std::string& nd : netdevs) {
      show.push_back(absl::StrCat(ConfKey(nd, "accept_local")));
      show.push_back(absl::StrCat(ConfKey(nd, "rp_filter")));
    }
    r.Remedy(absl::StrCat("sysctl ", absl::StrJoin(show, " "), "   # expect accept_local = 1, rp_filter = 0"));
  }
  return r.Build();
}

}  // namespace rdmacheck
