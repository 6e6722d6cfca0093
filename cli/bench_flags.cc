#include "cli/bench_flags.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace rdmacheck {

CommandLine BenchCommandLine(BenchOptions* o) {
  CommandLine cl("rdmacheck bench",
                 "[-d DEV] [--peer HOST[:PORT]] [--peer-dev DEV] [--op write|send|read] [--lat] [-s BYTES] [-q QPS] [-l N]\n"
                 "       [--cq-mod N] [-I BYTES] [-m MTU] [-t DEPTH] [-n ITERS | -D SECS] [--pin CPUS]\n"
                 "       [--sweep DIMS [--advise] [--plot FILE]] [--report_gbits] [--format text|json|csv]",
                 "Measures RDMA bandwidth (as ib_write_bw, ib_send_bw, ib_read_bw report it) or WRITE\n"
                 "latency (as ib_write_lat) between two devices of this host, from one device to\n"
                 "itself, or to a device of another host running `rdmacheck serve` (--peer); with --sweep, the tuning dimensions one at a time, each point until it is\n"
                 "stable, and with --advise the best measured setting per dimension against the\n"
                 "default and the combination re-measured (docs/bench.md).",
                 "Exit status: 0 every run completed, 1 a run ended early (stalled, error\n"
                 "completion: the output says why), 2 bad usage, 3 nothing could run.");
  BenchSettings& s = o->settings;
  cl.Text("-d,--ib-dev", &o->ends.device, "DEV", "the device to measure from (default: the first)")
      .Int("-i,--ib-port", &o->ends.port, 1, 255, "PORT", "its port (default 1)")
      .Int("-x,--gid-index", &o->ends.gid_index, 0, 255, "N",
           "the GID index (default: the RoCE v2 IPv4 entry, as the probes choose)")
      .Text("--peer", &o->peer, "HOST[:PORT]",
            "the far end is on HOST, which runs `rdmacheck serve` (port 18516)")
      .Text("--peer-dev", &o->ends.peer_device, "DEV",
            "the far end: another device of this host (default: -d itself,\n"
            "loopback QPs); with --peer, the far host's (default: the one it serves)")
      .Int("--peer-port", &o->ends.peer_port, 1, 255, "PORT", "its port (default 1)")
      .Value("--op", "OP", "the operation: write (default), send or read", "write, send or read",
             [&s](const std::string& v) {
               std::optional<BenchOp> op = ParseBenchOp(v);
               if (op) s.op = *op;
               return op.has_value();
             })
      .Switch("--lat", &o->latency, "measure WRITE latency (ib_write_lat) instead of bandwidth")
      .Uint32("-s,--size", [o](uint32_t v) { o->settings.size = v; o->size_given = true; }, "BYTES",
              "message size (default 65536; 2 with --lat)")
      .Int("-q,--qp", &s.qps, 1, 256, "N", "QPs (default 1)")
      .Int("-l,--post_list", &s.post_list, 1, 1024, "N", "WRs per ibv_post_send (default 1)")
      .Int("--threads", &s.threads, 1, 64, "N", "split the QPs over N threads, each posting and polling its own\n"
           "(at most -q; default 1, as perftest)")
      .Int("-Q,--cq-mod", &s.cq_mod, 1, 1024, "N",
           "one signalled WR every N (default as perftest: 100, 1 above 8 KiB)")
      .Uint32("-I,--inline_size", [&s](uint32_t v) { s.inline_size = v; }, "BYTES",
              "send messages up to BYTES inline (default 0; 220 with --lat)")
      .Int("-m,--mtu", &s.mtu, 256, 4096, "MTU", "path MTU: 256..4096, at most the ports' active MTU")
      .Int("-t,--tx-depth", &o->tx_depth, 1, 16384, "N", "outstanding WRs per QP (default 128; 1 with --lat)")
      .Value("-n,--iters", "N", "messages per QP (default 5000; 1000 with --lat)", "a whole number from 5 to 100000000",
             [o](const std::string& v) {
               char* end = nullptr;
               unsigned long long n = std::strtoull(v.c_str(), &end, 10);
               if (v.empty() || *end != '\0' || n < 5 || n > 100000000ull || v[0] == '-') return false;
               o->settings.iters = n;
               o->iters_given = true;
               return true;
             })
      .Seconds("-D,--duration", &s.duration_s, {0, true, 3600}, "run for SECS instead of -n (a sweep: per point)")
      .Seconds("--deadline", &o->ends.deadline_s, {0, true, 600},
               "a run with no completion for SECS ends as stalled (default 2)")
      .Text("--pin", &o->pin, "CPUS", "pin rdmacheck's own thread to these CPUs (0,2-3) while it runs")
      .Text("--sweep", &o->sweep, "DIMS",
            "size,mtu,qp,post_list,cq_mod,pin (any of them) or all: each\n"
            "point measured until stable (or for -D SECS)")
      .Switch("--advise", &o->advise, "with --sweep: the best setting per dimension, and combined")
      .Text("--plot", &o->plot, "FILE", "with --sweep: write an SVG chart of each dimension to FILE")
      .Switch("--report_gbits,--report-gbits", &o->report_gbits, "bandwidth in Gb/sec (default MB/sec, as perftest)")
      .Choice("--format", &o->format, {"text", "json", "csv"}, "the output's format (default text)");
  return cl;
}

int RunBenchCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchOptions o;
  if (std::optional<int> code = BenchCommandLine(&o).ParseOrExit(args, out, err)) return *code;
  return RunBenchCommand(o, out, err);
}

}  // namespace rdmacheck
