// Model-vs-real grid: a fixed set of create-QP requests across a device's
// range (depths 1..max and beyond, SGE counts 0..max+1, inline sizes
// 0..limit+1, every field over its limit, RC/UC/UD, with and without an
// SRQ), and a comparer that runs each request on two Devices (a driver model
// and the live device) and reports where they disagree.
//
//   std::vector<QpRequest> grid = MakeQpGrid(GridLimitsFor(info));
//   GridResult r = CompareOnGrid(*model, *live, grid);
//   for (const GridDisagreement& d : r.disagreements) std::cout << d.text << "\n";
//   std::cout << "agree " << r.agree << "/" << r.total << "\n";
#ifndef RDMACHECK_ACTS_MODEL_GRID_H_
#define RDMACHECK_ACTS_MODEL_GRID_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/device.h"
#include "facts/device_view.h"

namespace rdmacheck {

// The limits the grid sweeps around.
struct GridLimits {
  uint32_t max_qp_wr = 16384;
  uint32_t max_sge = 32;
  uint32_t max_inline = 512;
};

// From dev.attrs (max_qp_wr, max_sge, max_inline_data), else the driver's
// known default (rxe 6.1: inline 512; mlx5: 828 for RC; mlx4: 1024) or the
// GridLimits defaults.
GridLimits GridLimitsFor(const DeviceInfo& dev);

// At least 200 requests, deterministic, no duplicates.
std::vector<QpRequest> MakeQpGrid(const GridLimits& limits);

// "RC swr=100 rwr=1 ssge=1 rsge=1 inl=0 srq=no".
std::string DescribeRequest(const QpRequest& req);

struct GridDisagreement {
  QpRequest request;
  absl::StatusOr<QpCaps> model;
  absl::StatusOr<QpCaps> real;
  std::string text;  // one line: the request, both answers
};

struct GridResult {
  int agree = 0;
  int total = 0;
  std::vector<GridDisagreement> disagreements;
};

// Runs every request on both devices. They agree when both succeed with equal
// caps, or both fail with InvalidArgument (EINVAL: the message may differ).
// Any other pair of outcomes is a disagreement.
GridResult CompareOnGrid(Device& model, Device& real,
                         const std::vector<QpRequest>& grid);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_MODEL_GRID_H_
