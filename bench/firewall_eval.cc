// Firewall evaluation at the scale of a kube-proxy or CNI host: a generated
// filter table (facts/firewall/generated.h) read as iptables-save and as nft
// text, then a RoCE v2 packet evaluated in and out. Prints each phase's
// median time in milliseconds and the rules examined against the rules held.
//
//   bazel run -c opt //bench:firewall_eval -- [LAYERS WIDTH RULES_PER_CHAIN [RUNS]]
// Defaults: 20 layers of 50 chains of 21 rules (1,000 chains, 21,051 rules),
// 5 runs. The exit status is 1 when an evaluation examined more rules than
// the ruleset holds (a walk per path instead of per chain).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "facts/firewall/evaluate.h"
#include "facts/firewall/generated.h"
#include "facts/firewall/iptables_save.h"
#include "facts/firewall/nft_ruleset.h"

namespace fw = rdmacheck::firewall;

namespace {

double MedianMs(int runs, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  fw::GeneratedShape shape{20, 50, 21};
  int runs = 5;
  if (argc >= 4) shape = {std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  if (argc >= 5) runs = std::atoi(argv[4]);
  if (shape.layers < 1 || shape.layers > 60 || shape.width < 1 || shape.width > 100000 ||
      shape.rules_per_chain < 2 || shape.rules_per_chain > 1000 || runs < 1 || runs > 1000) {
    std::fprintf(stderr, "firewall_eval: LAYERS 1..60, WIDTH 1..100000, RULES_PER_CHAIN 2..1000, RUNS 1..1000\n");
    return 2;
  }
  const int rules = fw::GeneratedRuleCount(shape);
  const double paths = shape.width * (std::pow(2.0, shape.layers) - 1);
  std::printf("generated filter table: %d chains, %d rules; %.3g chain walks if each path were walked\n",
              shape.layers * shape.width + 1, rules, paths);
  int bad = 0;
  for (bool nft : {false, true}) {
    const std::string text = nft ? fw::GeneratedNftRuleset(shape) : fw::GeneratedIptablesSave(shape);
    fw::Ruleset rs;
    double parse_ms = MedianMs(runs, [&] {
      auto r = nft ? fw::ParseNftRuleset(text, "generated.nft") : fw::ParseIptablesSave(text, "generated.save", 4);
      if (!r.ok()) {
        std::fprintf(stderr, "firewall_eval: %s\n", std::string(r.status().message()).c_str());
        std::exit(2);
      }
      rs = *std::move(r);
    });
    if (!nft) rs.source = "iptables-nft";
    fw::Outcome in, out;
    double in_ms = MedianMs(runs, [&] { in = fw::Evaluate({rs}, fw::RocePacket("va", "198.18.0.1")); });
    double out_ms = MedianMs(runs, [&] { out = fw::Evaluate({rs}, fw::RoceOutPacket("va", "198.18.0.1")); });
    std::printf("%-14s %7zu bytes  parse %8.2f ms  evaluate in %7.2f ms (%s, %llu rules examined)  out %6.2f ms\n",
                nft ? "nft text" : "iptables-save", text.size(), parse_ms, in_ms, std::string(fw::FateName(in.fate)).c_str(),
                static_cast<unsigned long long>(in.rules_examined), out_ms);
    if (in.rules_examined > static_cast<uint64_t>(rules) || in.fate != fw::Fate::kDropped) ++bad;
  }
  return bad ? 1 : 0;
}
