// tc's JSON as iproute2 prints it: the guest's own captures (iproute2 6.1,
// Debian 12: fixtures/qdisc/, from ci/guest/scenarios' tc_capture), and the
// other forms public tools have recorded (a tbf's burst as "1000b/1" with
// -d, a netem delay in seconds, the unquoted options of iproute2 before 5.x).
#include "facts/qdisc.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::string Fixture(const std::string& name) {
  std::ifstream in("fixtures/qdisc/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ParseTcQdiscJson, TheGuestsTbfOnVa) {
  ASSERT_OK_AND_ASSIGN(QdiscsByNetdev q, ParseTcQdiscJson(Fixture("guest_tbf_256kbit.json"), "tc -j qdisc show"));
  ASSERT_THAT(q["va"], SizeIs(1));
  const Qdisc& t = q["va"][0];
  EXPECT_EQ(t.kind, "tbf");
  EXPECT_EQ(t.parent, "root");
  EXPECT_EQ(t.rate_bps, 50000000u);
  // 256kbit is 32768 bytes asked; the kernel keeps a time, tc prints 32762.
  EXPECT_EQ(t.burst_bytes, 32762u);
  EXPECT_EQ(QdiscText(t), "tbf root rate 50Mbit burst 32762b");
  // The other netdevs are there too, with their own qdiscs.
  EXPECT_TRUE(q.count("vb"));
  EXPECT_TRUE(q.count("lo"));
}

TEST(ParseTcQdiscJson, TheGuestsNetemDelayAndTbfInDetail) {
  ASSERT_OK_AND_ASSIGN(QdiscsByNetdev d, ParseTcQdiscJson(Fixture("guest_netem_delay_5ms.json"), "tc"));
  ASSERT_THAT(d["va"], SizeIs(1));
  EXPECT_EQ(d["va"][0].kind, "netem");
  ASSERT_TRUE(d["va"][0].delay_us.has_value());
  EXPECT_NEAR(*d["va"][0].delay_us, 5000, 1);
  EXPECT_EQ(QdiscText(d["va"][0]), "netem root delay 5ms");
  // With -s -d: the burst as text ("32Kb/1"), the counters beside.
  ASSERT_OK_AND_ASSIGN(QdiscsByNetdev sd, ParseTcQdiscJson(Fixture("guest_tbf_256kbit_sd.json"), "tc"));
  ASSERT_THAT(sd["va"], SizeIs(1));
  EXPECT_EQ(sd["va"][0].burst_bytes, 32768u);
  EXPECT_EQ(sd["va"][0].rate_bps, 50000000u);
}

TEST(ParseTcQdiscJson, OtherFormsOfTheSameFields) {
  // `tc -s -j -d qdisc show dev wlp61s0` (no "dev" in the entries): burst as
  // text with its cell, rate in bytes per second.
  ASSERT_OK_AND_ASSIGN(
      QdiscsByNetdev a,
      ParseTcQdiscJson(R"([{"kind":"tbf","handle":"8001:","root":true,"refcnt":2,"options":{"rate":1250,)"
                       R"("burst":"1000b/1","mpu":0,"lat":49600,"linklayer":"ethernet"},"bytes":119651,)"
                       R"("packets":876,"drops":1436,"overlimits":2836,"requeues":0,"backlog":0,"qlen":0}])",
                       "tc", "wlp61s0"));
  ASSERT_THAT(a["wlp61s0"], SizeIs(1));
  EXPECT_EQ(a["wlp61s0"][0].rate_bps, 10000u);
  EXPECT_EQ(a["wlp61s0"][0].burst_bytes, 1000u);
  // A child under a root, root first; a rate as {"rate": N}; sizes with units.
  ASSERT_OK_AND_ASSIGN(
      QdiscsByNetdev b,
      ParseTcQdiscJson(R"([{"kind":"netem","handle":"10:","dev":"eth0","parent":"1:1","options":{"limit":1000,)"
                       R"("loss-random":{"loss":0.06,"correlation":0},"rate":{"rate":125000}}},)"
                       R"({"kind":"tbf","handle":"1:","dev":"eth0","root":true,"options":{"rate":{"rate":6250000},"burst":"32Kb"}}])",
                       "tc"));
  ASSERT_THAT(b["eth0"], SizeIs(2));
  EXPECT_EQ(b["eth0"][0].kind, "tbf");
  EXPECT_EQ(b["eth0"][0].burst_bytes, 32768u);
  EXPECT_EQ(b["eth0"][0].rate_bps, 50000000u);
  EXPECT_EQ(b["eth0"][1].parent, "1:1");
  EXPECT_NEAR(*b["eth0"][1].loss_pct, 6, 1e-9);
  EXPECT_EQ(b["eth0"][1].rate_bps, 1000000u);
  EXPECT_EQ(QdiscText(b["eth0"][1]), "netem parent 1:1 rate 1Mbit loss 6%");
}

TEST(ParseTcQdiscJson, WhatIsNotJsonIsAnErrorNamingWhere) {
  // iproute2 before 5.x: the tbf's options unquoted inside the braces.
  EXPECT_THAT(ParseTcQdiscJson(R"( [{"kind":"tbf","handle":"1:","root":true,"refcnt":2,"options":{rate 1Mbit burst 3840b lat 10.0ms }}])",
                               "tc -j qdisc show"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tc -j qdisc show: not JSON at byte")));
  EXPECT_THAT(ParseTcQdiscJson(R"({"kind":"tbf"})", "tc"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON array")));
  // Found by fuzz/json_fuzz: a number beyond a double is an error, not an
  // uncaught exception.
  EXPECT_THAT(ParseTcQdiscJson(R"([{"kind":"tbf","dev":"va","options":{"rate":137E3978}}])", "tc"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tc: not JSON the reader can hold")));
  // Found by fuzz/json_fuzz: "root" that is not a boolean is not a root
  // qdisc, and not an uncaught exception either.
  ASSERT_OK_AND_ASSIGN(QdiscsByNetdev r,
                       ParseTcQdiscJson(R"([{"kind":"noqueue","dev":"vb","root":0,"parent":"1:"}])", "tc"));
  ASSERT_EQ(r["vb"].size(), 1u);
  EXPECT_EQ(r["vb"][0].kind, "noqueue");
  EXPECT_EQ(r["vb"][0].parent, "1:");
  // Entries it cannot place are left out, not guessed at.
  ASSERT_OK_AND_ASSIGN(QdiscsByNetdev q, ParseTcQdiscJson(R"([{"kind":"tbf"},{"dev":"va"},7])", "tc"));
  EXPECT_TRUE(q.empty());
}

TEST(QdiscToken, RoundTripsAndNamesWhatIsWrong) {
  Qdisc t{"tbf", "root", 50000000, 4000, 2504000, std::nullopt, std::nullopt};
  Qdisc n{"netem", "1:1", std::nullopt, std::nullopt, std::nullopt, 5000, 0.5};
  for (const Qdisc& q : {t, n, Qdisc{"noqueue", "root", {}, {}, {}, {}, {}}}) {
    ASSERT_OK_AND_ASSIGN(Qdisc back, ParseQdiscToken(QdiscToken(q)));
    EXPECT_EQ(back, q) << QdiscToken(q);
  }
  EXPECT_EQ(QdiscToken(t), "tbf@root,rate_bps=50000000,burst_bytes=4000,limit_bytes=2504000");
  EXPECT_THAT(ParseQdiscToken("tbf"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("KIND@PARENT")));
  EXPECT_THAT(ParseQdiscToken("tbf@root,burst_bytes=4k"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("burst_bytes '4k' is not a whole number")));
  EXPECT_THAT(ParseQdiscToken("tbf@root,peak=1"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown key 'peak'")));
}

TEST(LargestFramePassed, ATokenBucketPassesNothingLargerThanItself) {
  EXPECT_EQ(RoceFrameBytes(4096), 4170u);
  EXPECT_EQ(RoceFrameBytes(2048), 2122u);
  Qdisc t{"tbf", "root", 50000000, 4000, {}, {}, {}};
  EXPECT_EQ(LargestFramePassed(t), 4000u);
  EXPECT_EQ(LargestFramePassed(Qdisc{"netem", "root", {}, {}, {}, 5000, {}}), std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
