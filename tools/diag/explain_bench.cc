// Throughput of the log explainer on one core: builds a synthetic log in
// memory (unrelated dmesg/journal/perftest lines with one error line in
// ~500), feeds it through an Explainer in 1 MiB chunks and prints
//   explain throughput: X MB/s (N MB, T s, F findings)
//
//   bazel run -c opt //tools/diag:explain_bench -- [MB, default 256] [LOG...]
// and, for each LOG (a real one), the same beside grep's time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/diag/explain.h"
#include "tools/diag/explain_rules.h"

namespace rdmacheck {
namespace {

std::string BuildLog(size_t target_bytes, const ExplainRuleSet& rules) {
  // Unrelated lines, shaped like what surrounds RDMA errors in real logs.
  const std::vector<std::string> noise = {
      "[ 1234.567890] e1000e 0000:00:19.0 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
      "Jan 12 10:11:12 node1 systemd[1]: Started Session 42 of User alice.",
      " 65536      5000             2.50               2.49  		   0.004750",
      " local address: LID 0000 QPN 0x0011 PSN 0x8a6c1e RKey 0x000644 VAddr 0x007f8c3a1b0000",
      "node1:1234:1234 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
      "[1652739463.054681] [cn0022:4071024:0]     ucp_worker.c:1720 UCX  INFO  ep_cfg[1]: tag(rc_mlx5/mlx5_0:1)",
      "2024-03-01T12:00:00.000Z INFO  worker: processed batch 18515 in 12 ms (status ok, retries 0)",
      "[ 1234.600000] audit: type=1400 audit(1700000000.000:42): apparmor=\"DENIED\" operation=\"open\"",
      "---------------------------------------------------------------------------------------",
      "kernel: rdma_rxe: loaded",
  };
  std::vector<std::string> errors;
  for (const ExplainRule& r : rules.rules()) {
    for (const ExplainExample& ex : r.examples) errors.push_back(ex.line);
  }
  std::string log;
  log.reserve(target_bytes + 4096);
  uint64_t seed = 12345;
  size_t n = 0;
  while (log.size() < target_bytes) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t r = static_cast<uint32_t>(seed >> 33);
    if (r % 500 == 0) {
      log += errors[(r / 500) % errors.size()];
    } else {
      log += noise[r % noise.size()];
      absl::StrAppend(&log, " seq=", n);
    }
    log += '\n';
    ++n;
  }
  return log;
}

// One pass of a fresh rule base (so no DFA state carries over from an
// earlier run) over `text`, fed in 1 MiB chunks as `rdmacheck explain` reads.
struct Pass {
  double secs = 0;
  size_t findings = 0;
  int64_t lines = 0, matched = 0, set_stretches = 0, prefilter_stretches = 0;
};
Pass Run(absl::string_view text, std::optional<ExplainRuleSet::Matcher> matcher) {
  auto rules = ExplainRuleSet::LoadEmbedded();
  if (!rules.ok()) {
    std::fprintf(stderr, "%s\n", std::string(rules.status().message()).c_str());
    std::exit(2);
  }
  ExplainOptions o;
  o.matcher = matcher;
  Explainer ex(**rules, o);
  auto start = std::chrono::steady_clock::now();
  ex.BeginSource("bench");
  constexpr size_t kChunk = 1 << 20;
  for (size_t i = 0; i < text.size(); i += kChunk) ex.Feed(text.substr(i, kChunk));
  ex.EndSource();
  Pass p;
  p.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  p.findings = ex.findings().size();
  p.lines = ex.stats().lines;
  p.matched = ex.stats().matched_lines;
  p.set_stretches = ex.matcher_choice().stretches(ExplainRuleSet::Matcher::kSet);
  p.prefilter_stretches = ex.matcher_choice().stretches(ExplainRuleSet::Matcher::kPrefilter);
  return p;
}

// The three ways of one input: as explain runs it (each stretch on the
// matcher measured faster), and on each matcher alone.
void Report(const std::string& name, absl::string_view text) {
  const double mb = static_cast<double>(text.size()) / (1 << 20);
  // Untimed first: whichever pass ran first was up to a third slower.
  Run(text.substr(0, 32 << 20), ExplainRuleSet::Matcher::kSet);
  const Pass a = Run(text, std::nullopt);
  const Pass s = Run(text, ExplainRuleSet::Matcher::kSet);
  const Pass f = Run(text, ExplainRuleSet::Matcher::kPrefilter);
  std::printf("explain throughput: %.1f MB/s (%s, %.1f MB, %.2f s, %zu findings; stretches: %lld set, %lld prefilter)\n",
              mb / a.secs, name.c_str(), mb, a.secs, a.findings, static_cast<long long>(a.set_stretches),
              static_cast<long long>(a.prefilter_stretches));
  std::printf("  set alone: %.1f MB/s, prefilter alone: %.1f MB/s (lines %lld, matched %lld)\n", mb / s.secs,
              mb / f.secs, static_cast<long long>(a.lines), static_cast<long long>(a.matched));
  if (s.findings != a.findings || f.findings != a.findings || s.matched != a.matched || f.matched != a.matched) {
    std::printf("  MISMATCH: the matchers disagree\n");
    std::exit(1);
  }
}

int Main(int argc, char** argv) {
  size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  {
    auto rules = ExplainRuleSet::LoadEmbedded();
    if (!rules.ok()) return 2;
    Report("synthetic", BuildLog(mb << 20, **rules));
  }
  // Real logs, each read once (a journal, an application's log), beside
  // what a user would run instead: grep for error words, which explains
  // nothing.
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read\n", argv[i]);
      return 2;
    }
    Report(argv[i], ss.str());
    auto g0 = std::chrono::steady_clock::now();
    const std::string grep = std::string("grep -ciE 'error|fail|warn' '") + argv[i] + "' >/dev/null";
    if (std::system(grep.c_str()) == -1) return 2;
    std::printf("  grep -ciE 'error|fail|warn': %.3f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count());
  }
  return 0;
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) { return rdmacheck::Main(argc, argv); }
