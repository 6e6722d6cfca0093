// The three ruleset readers (nft JSON, nft text, iptables-save) on any bytes, and the evaluator on what they accept,
// in both directions: it examines each rule at most once per packet.
#include "facts/firewall/evaluate.h"
#include "facts/firewall/iptables_save.h"
#include "facts/firewall/nft_json.h"
#include "facts/firewall/nft_ruleset.h"
#include "fuzz/fuzz_util.h"

namespace fw = rdmacheck::firewall;

namespace {

void EvaluateBoth(const fw::Ruleset& rs) {
  size_t rules = 0;
  for (const fw::Table& t : rs.tables)
    for (const fw::Chain& c : t.chains) rules += c.rules.size();
  for (const fw::Packet& p : {fw::RocePacket("va", "198.18.0.1"), fw::RoceOutPacket("va", "198.18.0.1")}) {
    fw::Outcome o = fw::Evaluate({rs}, p);
    if (o.rules_examined > rules) rdmacheck::fuzz::Broken("a rule examined twice for one packet", rs.source);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view t = rdmacheck::fuzz::Text(data, size);
  if (absl::StatusOr<fw::Ruleset> rs = fw::ParseNftJson(t, "fuzz.json"); rs.ok()) {
    rs->source = "nft";
    EvaluateBoth(*rs);
  }
  if (absl::StatusOr<fw::Ruleset> rs = fw::ParseNftRuleset(t, "fuzz.nft"); rs.ok()) {
    rs->source = "nft";
    EvaluateBoth(*rs);
  }
  if (absl::StatusOr<fw::Ruleset> rs = fw::ParseIptablesSave(t, "fuzz.save", 4); rs.ok()) {
    rs->source = "iptables-nft";
    EvaluateBoth(*rs);
  }
  return 0;
}
