// model_grid: runs the create-QP grid (acts/model_grid.h) on a live RDMA
// device and on its driver model, prints every disagreement and a last line
// "agree N/M". Exit 0 only when all M requests agree; 2 on bad usage or when
// the device cannot be opened.
//
//   model_grid rxe0
//   model_grid --max_wr_tested=65536 rxe0   # skip in-range depths above 64 Ki
//
// Each request really creates (and destroys) a QP on the device; nothing else
// on the host changes. Depths between --max_wr_tested and max_qp_wr are left
// out (they only cost guest memory: rxe allocates the queues up front);
// depths over max_qp_wr stay in, they fail fast with EINVAL.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "acts/driver_model.h"
#include "facts/gather.h"
#include "acts/live_device.h"
#include "acts/model_grid.h"

namespace rdmacheck {
namespace {

int Usage() {
  std::cerr << "usage: model_grid [--max_wr_tested=N] DEVICE\n";
  return 2;
}

int Main(int argc, char** argv) {
  std::string name;
  uint64_t max_wr_tested = UINT64_MAX;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--max_wr_tested=")) {
      if (!absl::SimpleAtoi(arg.substr(16), &max_wr_tested)) return Usage();
    } else if (absl::StartsWith(arg, "-") || !name.empty()) {
      return Usage();
    } else {
      name = arg;
    }
  }
  if (name.empty()) return Usage();

  GatherOptions opts;
  opts.only_device = name;
  absl::StatusOr<DeviceView> view = GatherLive(opts);
  if (!view.ok()) {
    std::cerr << "model_grid: " << view.status().message() << "\n";
    return 2;
  }
  const DeviceInfo* info = view->Device(name);
  if (info == nullptr) {
    std::cerr << "model_grid: gather did not list " << name << "\n";
    return 2;
  }
  // Default options: the model answers the effective queue depth, which is
  // what LiveDevice reports (the larger of create's write-back and
  // ibv_query_qp).
  std::unique_ptr<Device> model = MakeDriverModel(*info);
  absl::StatusOr<std::unique_ptr<LiveDevice>> live =
      LiveDevice::Open(name, MakeDriverModel(*info));
  if (!live.ok()) {
    std::cerr << "model_grid: " << live.status().message() << "\n";
    return 2;
  }

  const GridLimits limits = GridLimitsFor(*info);
  std::vector<QpRequest> grid;
  for (const QpRequest& r : MakeQpGrid(limits)) {
    const uint64_t deepest = std::max(r.caps.max_send_wr, r.caps.max_recv_wr);
    if (deepest > max_wr_tested && deepest <= limits.max_qp_wr) continue;
    grid.push_back(r);
  }
  std::cout << "model: " << model->Describe() << "\n"
            << "real: " << (*live)->Describe() << "\n"
            << "kernel: " << view->host.kernel.value_or("unknown") << "\n"
            << "requests: " << grid.size() << "\n";
  GridResult r = CompareOnGrid(*model, **live, grid);
  for (const GridDisagreement& d : r.disagreements) std::cout << d.text << "\n";
  std::cout << "agree " << r.agree << "/" << r.total << "\n";
  return r.agree == r.total ? 0 : 1;
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) { return rdmacheck::Main(argc, argv); }
