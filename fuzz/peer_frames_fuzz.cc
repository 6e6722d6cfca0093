// Every frame decoder of the peer side channel on any payload (the first
// byte picks the frame type); what decodes, encoded again, decodes again.
#include <string>

#include "fuzz/fuzz_util.h"
#include "tools/peer/messages.h"

namespace {

template <typename Msg>
void RoundTrip(absl::string_view payload) {
  absl::StatusOr<Msg> m = Msg::Decode(payload);
  if (!m.ok()) return;
  const std::string again = m->Encode();
  absl::StatusOr<Msg> n = Msg::Decode(again);
  if (!n.ok()) rdmacheck::fuzz::Broken("a frame encoded again does not decode", n.status().message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmacheck;  // NOLINT: the frame structs
  if (size == 0) return 0;
  absl::string_view p = fuzz::Text(data + 1, size - 1);
  switch (data[0] % 19) {
    case 0: RoundTrip<ProfileMsg>(p); break;
    case 1: RoundTrip<VerdictsMsg>(p); break;
    case 2: RoundTrip<ByeMsg>(p); break;
    case 3: RoundTrip<ProbeSetupMsg>(p); break;
    case 4: RoundTrip<ProbeReadyMsg>(p); break;
    case 5: RoundTrip<WrMsg>(p); break;
    case 6: RoundTrip<WrReadyMsg>(p); break;
    case 7: RoundTrip<WrCheckMsg>(p); break;
    case 8: RoundTrip<WrResultMsg>(p); break;
    case 9: RoundTrip<ProbeEndMsg>(p); break;
    case 10: RoundTrip<ProbeDoneMsg>(p); break;
    case 11: RoundTrip<BenchSetupMsg>(p); break;
    case 12: RoundTrip<BenchReadyMsg>(p); break;
    case 13: RoundTrip<BenchRunMsg>(p); break;
    case 14: RoundTrip<BenchStartedMsg>(p); break;
    case 15: RoundTrip<BenchStopMsg>(p); break;
    case 16: RoundTrip<BenchDoneMsg>(p); break;
    case 17: RoundTrip<BenchEndMsg>(p); break;
    default: RoundTrip<ProfileMsg>(p); break;
  }
  return 0;
}
