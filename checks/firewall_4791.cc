#include "checks/firewall_4791.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/firewall/evaluate.h"
#include "facts/firewall/iptables_save.h"
#include "facts/firewall/nft_json.h"

namespace rdmacheck {
namespace {

using firewall::Fate;
using firewall::Outcome;
using firewall::Place;
using firewall::Ruleset;

// The command line tool that edits a ruleset source.
std::string Tool(const std::string& source) {
  if (source == "iptables-nft") return "iptables";  // Debian's default alternative
  if (source == "ip6tables-nft") return "ip6tables";
  return source;  // iptables-legacy, ip6tables-legacy
}

const firewall::Table* FindTable(const std::vector<Ruleset>& rs, const Place& p) {
  for (const Ruleset& r : rs)
    if (r.source == p.source)
      for (const firewall::Table& t : r.tables)
        if (t.name == p.table && t.family == p.family) return &t;
  return nullptr;
}

void Remedy(const std::vector<Ruleset>& rs, const Outcome& o, const std::string& netdev,
            firewall::Direction dir, ResultBuilder& r) {
  if (!o.base_chain) return;
  const Place& b = *o.base_chain;
  const firewall::Table* t = FindTable(rs, b);
  const bool in = dir == firewall::Direction::kIn;
  if (dir == firewall::Direction::kFwd) {
    // Bridged between the bridge's ports: docker's hosts take user rules in
    // DOCKER-USER, which FORWARD walks first.
    if (b.source == "nft") {
      r.Remedy(absl::StrCat("nft insert rule ", b.family, " ", b.table, " ", b.chain, " iifname \"", netdev,
                            "\" oifname \"", netdev, "\" udp dport 4791 accept"));
    } else {
      std::string tool = Tool(b.source);
      std::string chain = t != nullptr && t->FindChain("DOCKER-USER") != nullptr ? "DOCKER-USER" : b.chain;
      r.Remedy(absl::StrCat(tool, " -I ", chain, " -i ", netdev, " -o ", netdev, " -p udp --dport 4791 -j ACCEPT"));
    }
    r.Remedy(absl::StrCat("sysctl net.bridge.bridge-nf-call-iptables   # or set it to 0 if bridged traffic need "
                          "not meet iptables at all (persist in /etc/sysctl.d/)"));
    return;
  }
  if (b.source == "nft") {
    if (b.table == "firewalld" && in) {
      r.Remedy("firewall-cmd --permanent --add-port=4791/udp && firewall-cmd --reload");
      r.Remedy("firewall-cmd --list-ports   # must list 4791/udp");
      return;
    }
    r.Remedy(absl::StrCat("nft insert rule ", b.family, " ", b.table, " ", b.chain,
                          in ? " iifname \"" : " oifname \"", netdev, "\" udp dport 4791 accept"));
    r.Remedy(absl::StrCat("nft list chain ", b.family, " ", b.table, " ", b.chain,
                          " | grep 4791   # the accept must come first; persist it in /etc/nftables.conf"));
    return;
  }
  if (t != nullptr && t->FindChain("ufw-user-input") != nullptr) {
    r.Remedy(in ? "ufw allow 4791/udp" : "ufw allow out 4791/udp");
    r.Remedy(absl::StrCat("ufw status | grep 4791   # must show 4791/udp ALLOW", in ? "" : " OUT"));
    return;
  }
  std::string tool = Tool(b.source);
  std::string tbl = b.table == "filter" ? "" : absl::StrCat(" -t ", b.table);
  r.Remedy(absl::StrCat(tool, tbl, " -I ", b.chain, in ? " -i " : " -o ", netdev,
                        " -p udp --dport 4791 -j ACCEPT"));
  r.Remedy(absl::StrCat(tool, tbl, " -L ", b.chain,
                        " -n --line-numbers | grep 4791   # rule 1 must be the ACCEPT; persist with "
                        "netfilter-persistent save"));
}

// Addresses of a netdev without their prefix; IPv4 first, then global IPv6.
std::vector<std::string> Destinations(const NetdevInfo* n) {
  std::vector<std::string> v4, v6;
  if (n == nullptr) return {};
  for (const std::string& a : n->addrs) {
    std::string addr = a.substr(0, a.find('/'));
    if (absl::StrContains(addr, ":")) {
      if (!absl::StartsWithIgnoreCase(addr, "fe80")) v6.push_back(addr);
    } else {
      v4.push_back(addr);
    }
  }
  v4.insert(v4.end(), v6.begin(), v6.end());
  return v4;
}

// One evaluated packet's row: accepted PASSes (WARN past rules not
// understood, or beside a ruleset that was not read), dropped or rejected is
// `drop` and names the rule. The rules not understood, and for a drop by mark
// the rule that set it, go in notes. True when accepted.
bool ExpectAccepted(ResultBuilder& r, const std::string& subj, const Outcome& o,
                    const std::vector<std::string>& unreadable, Verdict drop) {
  const bool accepted = o.fate == Fate::kAccepted;
  if (accepted) {
    std::string how = o.decided_by ? absl::StrCat("accepted (", o.walked.size(), " base chain(s); last: ",
                                                  o.decided_by->Where(), ")")
                                   : "accepted (no base chain on its path)";
    if (!unreadable.empty())
      absl::StrAppend(&how, "; not judged: the ", absl::StrJoin(unreadable, ", "), " ruleset could not be read");
    r.Expect(subj, "accepted", how, o.uncertain.empty() && unreadable.empty() ? Verdict::kPass : Verdict::kWarn);
  } else {
    const Place& by = *o.decided_by;
    // Decided past the end of a chain the dump cut short: the missing rules
    // could have accepted it first.
    r.Expect(subj, "accepted",
             absl::StrCat(firewall::FateName(o.fate), " by ", by.Where(), ": `", by.text, "`",
                          o.cut ? " (as far as the dump goes: it is cut short before the end of a chain on the "
                                  "way)"
                                : ""),
             o.cut ? Verdict::kWarn : drop);
  }
  for (const std::string& u : o.uncertain) r.Note(absl::StrCat("not understood: ", u));
  // A drop by mark (kubelet's KUBE-FIREWALL): where the mark came from.
  if (!accepted && !o.marked_by.empty() && absl::StrContains(o.decided_by->text, "mark"))
    r.Note(absl::StrCat("the packet's mark was set by ", o.marked_by.back(),
                        ": that rule selects RoCE v2 for the drop"));
  return accepted;
}

// RoCE bridged across `nd` between its ports (VMs, containers or hosts behind
// the bridge): br_netfilter hands bridged IP to the forward hook as
// iifname = oifname = the bridge. This host's own RoCE on the bridge takes
// the input and output rows (measured: rxe on br0 with FORWARD policy DROP
// and br_netfilter loaded still runs ib_write_bw), so a drop here is WARN.
void Bridged(const CheckContext& ctx, const std::vector<Ruleset>& rulesets,
             const std::vector<std::string>& unreadable, const DeviceInfo& d, const std::string& nd,
             const std::vector<std::string>& dst, ResultBuilder& r) {
  const NetdevInfo* n = ctx.view.Netdev(nd);
  if (n == nullptr || !n->kind || *n->kind != "bridge") return;
  std::vector<int> families;
  for (const std::string& a : dst) {
    int f = absl::StrContains(a, ":") ? 6 : 4;
    if (!a.empty() && std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  if (families.empty()) families.push_back(4);
  for (int f : families) {
    const std::string key = f == 4 ? "net.bridge.bridge-nf-call-iptables" : "net.bridge.bridge-nf-call-ip6tables";
    auto it = ctx.view.host.sysctls.find(key);
    if (it == ctx.view.host.sysctls.end() || it->second != "1") {
      r.Note(absl::StrCat(nd, " is a bridge; IPv", f, " bridged between its ports does not meet the ip",
                          f == 4 ? "" : "6", "tables hooks (", key, " ",
                          it == ctx.view.host.sysctls.end() ? "absent: br_netfilter not loaded" : it->second,
                          ")"));
      continue;
    }
    Outcome o = firewall::Evaluate(rulesets, firewall::RoceFwdPacket(nd, nd, f));
    std::string subj = absl::StrCat("UDP 4791 bridged across ", nd, " (", d.name, "'s bridge) between its ports, IPv",
                                    f, " (", key, " 1)");
    if (ExpectAccepted(r, subj, o, unreadable, Verdict::kWarn)) continue;
    r.Note(absl::StrCat("RoCE between ", nd, "'s ports (VMs, containers or hosts behind it) is ",
                        firewall::FateName(o.fate), "; ", d.name, "'s own traffic on ", nd,
                        " takes the input and output rows"));
    Remedy(rulesets, o, nd, firewall::Direction::kFwd, r);
  }
}

}  // namespace

Result Firewall4791Check::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> rxe;
  for (const DeviceInfo* d : ctx.SelectedDevices())
    if (d->driver && *d->driver == "rxe") rxe.push_back(d);
  const char* kTitle = "RoCE v2 (UDP 4791) passes the host firewall, in and out";
  if (rxe.empty()) {
    return ResultBuilder::Skip(
        *this, kTitle,
        ctx.SelectedDevices().empty()
            ? "no RDMA device to look at (see device-present)"
            : "no rxe device: a RoCE NIC handles UDP 4791 in hardware, the host firewall never "
              "sees it");
  }
  std::vector<std::string> names;
  for (const DeviceInfo* d : rxe) names.push_back(d->name);
  ResultBuilder r(*this, absl::StrCat("RoCE v2 (UDP 4791) reaches and leaves ",
                                      absl::StrJoin(names, ", "), " through the host firewall"));
  const HostInfo& h = ctx.view.host;
  bool looked = false;

  // The socket alone does not say the firewall lets packets in: without the
  // rulesets the check SKIPs unless the socket itself is missing (a FAIL).
  if (h.udp4791_socket) {
    looked = !*h.udp4791_socket;
    r.Expect("kernel UDP socket on port 4791", "present (rdma_rxe opens it with its first device)",
             *h.udp4791_socket ? "present" : "absent",
             *h.udp4791_socket ? Verdict::kPass : Verdict::kFail);
    if (!*h.udp4791_socket) {
      r.Note("rxe devices exist but no socket listens on UDP 4791 in this network namespace: "
             "RoCE v2 packets have nowhere to go (rxe created in another namespace?)");
      const DeviceInfo& d = *rxe.front();
      r.Remedy(RxeRelink(d.name, d.netdev.value_or("DEV")));
      r.Remedy("ss -uln | grep ':4791 '   # must show the kernel's UDP socket");
    }
  } else {
    r.Note(MissingFact("host", "udp4791_socket"));
  }

  std::vector<Ruleset> rulesets;
  std::vector<std::string> unreadable;  // judged without these: an "accepted" row cannot pass
  for (const auto& [source, text] : h.rulesets) {
    absl::StatusOr<Ruleset> rs =
        source == "nft" ? firewall::ParseNftListing(text, source)
                        : firewall::ParseIptablesSave(text, source,
                                                      absl::StartsWith(source, "ip6") ? 6 : 4);
    if (!rs.ok()) {
      r.Expect(absl::StrCat(source, " ruleset"), "readable", std::string(rs.status().message()),
               Verdict::kWarn);
      r.Remedy(absl::StrCat(source == "nft" ? "nft list ruleset" : absl::StrCat(source, "-save"),
                            "   # attach the output to a bug report: the reader could not parse it"));
      unreadable.push_back(source);
      continue;
    }
    rs->source = source;
    if (!rs->incomplete.empty()) {
      // What was read still counts (a drop in it is a drop), but the rules
      // after the cut could drop what the part read accepts.
      r.Note(absl::StrCat(source, " ruleset cut short: ", rs->incomplete));
      r.Remedy(absl::StrCat(source == "nft" ? "nft -j list ruleset > ruleset.json" : absl::StrCat(source, "-save > ruleset.txt"),
                            "   # the whole listing: the one read stops part-way"));
      unreadable.push_back(absl::StrCat(source, " (cut short)"));
    }
    rulesets.push_back(std::move(*rs));
  }
  // Beside rulesets that were read, one whose listing failed or timed out
  // leaves the path unknown: judged without it, an accept cannot pass.
  if (!h.rulesets.empty()) {
    for (const auto& [source, why] : h.rulesets_not_read) {
      r.Expect(absl::StrCat(source, " ruleset"), "read", absl::StrCat("not read: ", why), Verdict::kWarn);
      r.Remedy(absl::StrCat(source == "nft" ? "nft list ruleset" : absl::StrCat(source, "-save"),
                            "   # run as root; if it hangs, the host's netfilter is what to look at"));
      unreadable.push_back(source);
    }
  }
  if (h.rulesets.empty()) {
    r.Note(absl::StrCat(MissingFact("host", "rulesets"),
                        " (nft and iptables-save were not read; see provenance)"));
  }

  if (!h.rulesets.empty()) {
    looked = true;
    for (const DeviceInfo* d : rxe) {
      // The netdevs its packets pass: the parent's, or those of the VLANs
      // over it that carry its addresses (a VLAN's packets meet the rules
      // as iifname/oifname of the VLAN, not of the parent).
      std::vector<std::string> nds;
      for (const PortInfo* p : ctx.SelectedPorts(*d))
        for (const std::string& n : RoceNetdevs(*d, *p))
          if (std::find(nds.begin(), nds.end(), n) == nds.end()) nds.push_back(n);
      if (nds.empty() && d->netdev) nds.push_back(*d->netdev);
      if (nds.empty()) {
        r.Note(MissingFact(d->name, "netdev"));
        continue;
      }
      for (const std::string& nd : nds) {
        std::vector<std::string> dst = Destinations(ctx.view.Netdev(nd));
        if (dst.empty()) dst.push_back("");  // no address known: any destination
        // Both directions: the peer's requests and ACKs arrive on UDP 4791,
        // and this host's own requests and ACKs leave for the peer's 4791.
        for (const std::string& addr : dst) {
          for (firewall::Direction dir : {firewall::Direction::kIn, firewall::Direction::kOut}) {
            const bool in = dir == firewall::Direction::kIn;
            firewall::Packet p = in ? firewall::RocePacket(nd, addr) : firewall::RoceOutPacket(nd, addr);
            Outcome o = firewall::Evaluate(rulesets, p);
            std::string subj = in ? absl::StrCat("UDP 4791 in on ", nd, " (", d->name, ")",
                                                 addr.empty() ? "" : absl::StrCat(" to ", addr))
                                  : absl::StrCat("UDP 4791 out of ", nd, " (", d->name, ")",
                                                 addr.empty() ? "" : absl::StrCat(" from ", addr),
                                                 " to the peer");
            if (ExpectAccepted(r, subj, o, unreadable, Verdict::kFail)) {
              if (!o.uncertain.empty())
                r.Remedy(absl::StrCat("nft list ruleset; iptables-save   # check by hand the rules "
                                      "named above for UDP 4791 on ", nd));
            } else {
              const Place& by = *o.decided_by;
              r.Note("a blocked UDP 4791 makes RC QPs hang (retry_cnt 7) or fail with "
                     "IBV_WC_RETRY_EXC_ERR: transport retry counter exceeded");
              if (!in)
                r.Note(absl::StrCat("the ", by.chain, " chain is on the output path: requests and their "
                                    "ACKs both go to the peer's UDP 4791, so dropping them out of ", nd,
                                    " stops RoCE in both directions"));
              Remedy(rulesets, o, nd, dir, r);
            }
            for (const std::string& s : o.skipped) r.Note(absl::StrCat("skipped: ", s));
          }
        }
        Bridged(ctx, rulesets, unreadable, *d, nd, dst, r);
      }
    }
  }
  if (!looked) {
    return ResultBuilder::Skip(*this, kTitle, absl::StrCat(MissingFact("host", "rulesets"),
                                                           "; ", MissingFact("host", "udp4791_socket")));
  }
  return r.Build();
}

}  // namespace rdmacheck
