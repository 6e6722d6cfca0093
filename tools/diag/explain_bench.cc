// Throughput of the log explainer on one core: builds a synthetic log in
// memory (unrelated dmesg/journal/perftest lines with one error line in
// ~500), feeds it through an Explainer in 1 MiB chunks and prints
//   explain throughput: X MB/s (N MB, T s, F findings)
//
//   bazel run -c opt //diag:explain_bench -- [MB, default 256]
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

int Main(int argc, char** argv) {
  size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  auto rules = ExplainRuleSet::LoadEmbedded();
  if (!rules.ok()) {
    std::fprintf(stderr, "%s\n", std::string(rules.status().message()).c_str());
    return 2;
  }
  std::string log = BuildLog(mb << 20, **rules);
  Explainer ex(**rules);
  auto start = std::chrono::steady_clock::now();
  ex.BeginSource("synthetic");
  constexpr size_t kChunk = 1 << 20;
  for (size_t i = 0; i < log.size(); i += kChunk) {
    ex.Feed(absl::string_view(log).substr(i, kChunk));
  }
  ex.EndSource();
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double size_mb = static_cast<double>(log.size()) / (1 << 20);
  std::printf("explain throughput: %.1f MB/s (%.0f MB, %.2f s, %zu findings)\n",
              size_mb / secs, size_mb, secs, ex.findings().size());
  std::printf("lines %lld, matched %lld\n",
              static_cast<long long>(ex.stats().lines),
              static_cast<long long>(ex.stats().matched_lines));
  return 0;
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) { return rdmacheck::Main(argc, argv); }
