#include "tools/bench/bench_output.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tinyxml2.h"
#include "tools/bench/bench_plot.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

BenchResult Bw(double gbps, uint32_t size = 65536) {
  BenchResult r;
  r.device = "rxe0";
  r.peer_device = "rxe1";
  r.gid = "::ffff:198.18.0.1";
  r.peer_gid = "::ffff:198.18.0.2";
  r.gid_index = r.peer_gid_index = 1;
  r.active_mtu = 4096;
  r.settings.size = size;
  r.settings.mtu = 4096;
  r.settings.cq_mod = 1;
  r.settings.inline_size = 0;
  r.messages = 5000;
  r.bytes = 5000ull * size;
  r.seconds = r.bytes * 8 / (gbps * 1e9);
  r.bw_avg_gbps = gbps;
  r.bw_peak_gbps = gbps * 1.1;
  r.msg_rate_mpps = r.messages / r.seconds / 1e6;
  r.qp_state = "RTS";
  return r;
}

TEST(BenchOutput, RunTableIsPerftestsInGbitsOrMebibytes) {
  BenchResult r = Bw(0.4);
  std::string g = RunTable(r, true);
  EXPECT_THAT(g, HasSubstr("RDMA_Write BW Test"));
  EXPECT_THAT(g, HasSubstr("BW average[Gb/sec]"));
  EXPECT_THAT(g, HasSubstr(" 65536      5000           "));
  EXPECT_THAT(g, HasSubstr("0.44"));  // peak
  EXPECT_THAT(g, HasSubstr("0.40"));
  std::string m = RunTable(r, false);
  EXPECT_THAT(m, HasSubstr("BW average[MB/sec]"));
  EXPECT_THAT(m, HasSubstr("47.68"));  // 0.4e9 / 8 / 2^20
  EXPECT_THAT(m, Not(HasSubstr("Ended early")));
  r.end = BenchEnd::kStalled;
  r.failure = "no completion for 2 s with 128 WRs outstanding after 0 completed";
  r.qp_state = "RTS";
  EXPECT_THAT(RunTable(r, true), HasSubstr("Ended early     : stalled: no completion for 2 s"));
}

TEST(BenchOutput, LatencyTableHasPerftestsColumns) {
  BenchResult r = Bw(0);
  r.settings.mode = BenchMode::kLatency;
  r.settings.size = 2;
  r.lat = {1000, 10.5, 12.25, 12.5, 0.8, 15.0, 20.0, 30.0};
  std::string t = RunTable(r, true);
  EXPECT_THAT(t, HasSubstr("RDMA_Write Latency Test"));
  EXPECT_THAT(t, HasSubstr("t_typical[usec]"));
  EXPECT_THAT(t, HasSubstr("12.25"));
  EXPECT_THAT(t, HasSubstr("99.9% percentile[usec]"));
}

TEST(BenchOutput, JsonAndCsvCarryTheFigures) {
  BenchResult r = Bw(0.4);
  nlohmann::json j = RunJson(r);
  EXPECT_EQ(j["mode"], "bandwidth");
  EXPECT_EQ(j["op"], "write");
  EXPECT_DOUBLE_EQ(j["bw_avg_gbps"].get<double>(), 0.4);
  EXPECT_EQ(j["settings"]["size"], 65536);
  EXPECT_EQ(j["settings"]["flags"], "-s 65536 -q 1 -l 1 --cq-mod 1 -t 128 -I 0 -m 4096 -n 5000");
  EXPECT_EQ(j["end"], "ok");
  EXPECT_FALSE(j.contains("failure"));
  std::string csv = RunCsv(r);
  EXPECT_THAT(csv, HasSubstr("dimension,value,default,mode,op,size"));
  EXPECT_THAT(csv, HasSubstr(",bandwidth,write,65536,1,1,1,0,4096,128,ok,5000,"));
}

SweepResult TwoDims() {
  SweepResult sw;
  for (int q : {1, 2, 4}) {
    SweepRow row;
    row.point.dim = SweepDim::kQps;
    row.point.value = std::to_string(q);
    row.point.x = q;
    row.point.is_default = q == 1;
    row.result = Bw(0.3 + 0.05 * q);
    row.result->settings.qps = q;
    sw.rows.push_back(row);
  }
  SweepRow bad;
  bad.point.dim = SweepDim::kMtu;
  bad.point.value = "512";
  bad.error = "ibv_modify_qp(...): Invalid argument";
  sw.rows.push_back(bad);
  sw.notes.push_back("mtu 2048 not measured: above the ports' active_mtu 1024");
  return sw;
}

TEST(BenchOutput, SweepTableMarksTheDefaultAndNamesWhatWasNotMeasured) {
  std::string t = SweepTable(TwoDims(), true);
  EXPECT_THAT(t, HasSubstr("sweep: qp"));
  EXPECT_THAT(t, HasSubstr(" 1 *  "));
  EXPECT_THAT(t, HasSubstr("0.500"));
  EXPECT_THAT(t, HasSubstr("512                not measured: ibv_modify_qp(...): Invalid argument"));
  EXPECT_THAT(t, HasSubstr("note: mtu 2048 not measured"));
  std::string csv = SweepCsv(TwoDims());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + 3 measured
  nlohmann::json j = SweepJson(TwoDims(), nullptr);
  EXPECT_EQ(j["points"].size(), 4u);
  EXPECT_EQ(j["points"][3]["error"], "ibv_modify_qp(...): Invalid argument");
  EXPECT_FALSE(j.contains("advice"));
}

TEST(BenchOutput, SvgIsWellFormedWithAPanelPerDimension) {
  std::string svg = SweepSvg(TwoDims(), true, "write bandwidth sweep: rxe0 -> <rxe1>");
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(svg.c_str()), tinyxml2::XML_SUCCESS) << svg;
  const tinyxml2::XMLElement* root = doc.RootElement();
  EXPECT_STREQ(root->Name(), "svg");
  int panels = 0, points = 0, defaults = 0;
  for (const tinyxml2::XMLElement* g = root->FirstChildElement("g"); g; g = g->NextSiblingElement("g")) {
    ++panels;
    for (const tinyxml2::XMLElement* c = g->FirstChildElement("circle"); c; c = c->NextSiblingElement("circle")) {
      ++points;
      if (std::string(c->Attribute("class")) == "point default") ++defaults;
    }
  }
  EXPECT_EQ(panels, 2);   // qp, and mtu with nothing measured
  EXPECT_EQ(points, 3);
  EXPECT_EQ(defaults, 1);
  EXPECT_THAT(svg, HasSubstr("&lt;rxe1&gt;"));
  EXPECT_THAT(svg, HasSubstr("not measured"));
  EXPECT_THAT(svg, HasSubstr("<title>4: 0.500 Gb/s</title>"));
  // Sizes are labelled short under their points, in full in the tooltip.
  SweepResult sizes;
  SweepRow row;
  row.point.dim = SweepDim::kSize;
  row.point.value = "1048576";
  row.point.x = 1048576;
  row.result = Bw(0.2, 1048576);
  sizes.rows.push_back(row);
  std::string s2 = SweepSvg(sizes, true, "t");
  EXPECT_THAT(s2, HasSubstr(">1M</text>"));
  EXPECT_THAT(s2, HasSubstr("<title>1048576: 0.200 Gb/s</title>"));
}

}  // namespace
}  // namespace rdmacheck
