// Writes one seed per frame type of the peer side channel for
// peer_frames_fuzz: the type's selector byte, then a default frame encoded.
//   peer_seeds DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "tools/peer/messages.h"

namespace {

template <typename Msg>
void Seed(const std::string& dir, int selector) {
  char name[16];
  std::snprintf(name, sizeof name, "/%02d", selector);
  std::ofstream out(dir + name, std::ios::binary);
  out << static_cast<char>(selector) << Msg{}.Encode();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmacheck;  // NOLINT: the frame structs
  if (argc != 2) return 2;
  const std::string d = argv[1];
  Seed<ProfileMsg>(d, 0);
  Seed<VerdictsMsg>(d, 1);
  Seed<ByeMsg>(d, 2);
  Seed<ProbeSetupMsg>(d, 3);
  Seed<ProbeReadyMsg>(d, 4);
  Seed<WrMsg>(d, 5);
  Seed<WrReadyMsg>(d, 6);
  Seed<WrCheckMsg>(d, 7);
  Seed<WrResultMsg>(d, 8);
  Seed<ProbeEndMsg>(d, 9);
  Seed<ProbeDoneMsg>(d, 10);
  Seed<BenchSetupMsg>(d, 11);
  Seed<BenchReadyMsg>(d, 12);
  Seed<BenchRunMsg>(d, 13);
  Seed<BenchStartedMsg>(d, 14);
  Seed<BenchStopMsg>(d, 15);
  Seed<BenchDoneMsg>(d, 16);
  Seed<BenchEndMsg>(d, 17);
  return 0;
}
