// The HTML page of the fixture fleet as a browser builds it: headless
// Chromium's DOM (--dump-dom) after one start. CI installs chromium
// (ci/deps.sh); without it this test fails and says so.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/fleet/fleet_command.h"
#include "util/subprocess.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The element that starts with `open`, to its closing `close`.
std::string Element(const std::string& dom, const std::string& open, const std::string& close) {
  size_t at = dom.find(open);
  if (at == std::string::npos) return "";
  return dom.substr(at, dom.find(close, at) - at);
}

class FleetHtml : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    namespace fs = std::filesystem;
    const std::string fleet = TmpDir() + "/fleet";
    fs::remove_all(fleet);
    fs::copy("tools/fleet/testdata/fleet", fleet, fs::copy_options::recursive);
    // A node whose name is markup: the page shows it as text.
    std::ofstream(fleet + "/evil.profile") << "rdmacheck-profile 1\n[host]\nhostname evil<b>&amp;</b>node\n"
                                              "kernel 5.15.0-105-generic\n";
    FleetOptions o;
    o.paths = {fleet};
    o.format = "html";
    o.output = TmpDir() + "/fleet.html";
    std::ostringstream out, err;
    ASSERT_EQ(RunFleetCommand(o, out, err), 1) << err.str();
    std::ifstream in(*o.output);
    std::stringstream page;
    page << in.rdbuf();
    page_ = new std::string(page.str());

    // Chromium keeps a profile in $HOME; the sandbox's HOME may not be
    // writable.
    setenv("HOME", TmpDir().c_str(), 1);
    absl::StatusOr<SubprocessResult> r = RunSubprocess(
        {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         absl::StrCat("--user-data-dir=", TmpDir(), "/chromium"), "--dump-dom", absl::StrCat("file://", *o.output)},
        60);
    ASSERT_TRUE(r.ok()) << r.status() << "\nchromium renders the page in this test: install it with "
                                         "`bash ci/deps.sh` (Debian package chromium)";
    ASSERT_TRUE(r->Succeeded()) << r->command << " " << r->HowItEnded() << ": " << r->err;
    dom_ = new std::string(r->out);
  }
  static void TearDownTestSuite() {
    delete page_;
    delete dom_;
  }
  static std::string* page_;
  static std::string* dom_;
};
std::string* FleetHtml::page_ = nullptr;
std::string* FleetHtml::dom_ = nullptr;

TEST_F(FleetHtml, SelfContained) {
  ASSERT_NE(dom_, nullptr);
  EXPECT_THAT(*page_, HasSubstr("<style>"));
  for (const char* fetch : {"<script", "<link", " src=", " href=", "@import", "url("})
    EXPECT_THAT(*page_, Not(HasSubstr(fetch))) << fetch;
  EXPECT_THAT(*dom_, HasSubstr("<h1>rdmacheck fleet: 7 nodes from 10 files</h1>"));
}

TEST_F(FleetHtml, FactTablesHoldTheOddNodes) {
  ASSERT_NE(dom_, nullptr);
  struct Row {
    const char* fact;
    const char* caption;
    const char* row;
  } rows[] = {
      {"netdev MTU", "netdev MTU: 4 of 5 nodes 9000",
       "<tr class=\"odd\" data-node=\"gpu-node03\"><td>gpu-node03</td><td>1500</td></tr>"},
      {"active_mtu", "active_mtu: 4 of 5 nodes 4096",
       "<tr class=\"odd\" data-node=\"gpu-node03\"><td>gpu-node03</td><td>1024</td></tr>"},
      {"firmware of mlx5 part 4123", "firmware of mlx5 part 4123: 4 of 5 nodes 20.31.1014",
       "<tr class=\"odd\" data-node=\"gpu-node04\"><td>gpu-node04</td><td>20.28.2006</td></tr>"},
      {"RLIMIT_MEMLOCK", "RLIMIT_MEMLOCK: 4 of 5 nodes unlimited",
       "<tr class=\"odd\" data-node=\"gpu-node05\"><td>gpu-node05</td><td>64 KiB</td></tr>"},
  };
  EXPECT_EQ(Count(*dom_, "<table class=\"fact\""), 4);
  for (const Row& r : rows) {
    const std::string table = Element(*dom_, absl::StrCat("<table class=\"fact\" data-fact=\"", r.fact, "\">"), "</table>");
    EXPECT_THAT(table, HasSubstr(absl::StrCat("<caption>", r.caption, "</caption>"))) << r.fact;
    EXPECT_THAT(table, HasSubstr(r.row)) << r.fact;
    EXPECT_EQ(Count(table, "<tr class=\"odd\""), 1) << r.fact;
  }
}

TEST_F(FleetHtml, ChecksFiguresGroupsAndFilesLeftOut) {
  ASSERT_NE(dom_, nullptr);
  EXPECT_THAT(*dom_, HasSubstr("<tr class=\"odd\" data-check=\"memlock\"><td>memlock</td><td class=\"num\">4</td>"
                               "<td class=\"num\">0</td><td class=\"num fail\">1</td><td class=\"num\">0</td>"
                               "<td>gpu-node05</td></tr>"));
  EXPECT_THAT(*dom_, HasSubstr("<tr data-check=\"port-rate\"><td>port-rate</td><td class=\"num\">5</td>"));
  const std::string symbol = Element(*dom_, "<table class=\"figure\" data-figure=\"symbol_error /s\">", "</table>");
  EXPECT_THAT(symbol, HasSubstr("<tr class=\"odd\" data-node=\"gpu-node06\"><td>gpu-node06</td>"
                                "<td class=\"num\">58.9</td></tr>"));
  EXPECT_EQ(Count(*dom_, "<table class=\"figure\""), 4);
  // Largest group first, then by node.
  const char* groups[] = {"gpu-node03", "gpu-node04", "gpu-node05", "gpu-node06"};
  for (int i = 0; i < 4; ++i) {
    const std::string g = Element(*dom_, absl::StrCat("<table class=\"group\" data-group=\"", i + 1, "\">"), "</table>");
    EXPECT_THAT(g, HasSubstr(absl::StrCat("<tr><th>nodes</th><td>", groups[i], "</td></tr>"))) << i;
  }
  EXPECT_THAT(Element(*dom_, "<table class=\"group\" data-group=\"1\">", "</table>"),
              HasSubstr("<pre>ip link set dev ens1f0np0 mtu 9000   # and every switch port and peer on the path\n"));
  const std::string left_out = Element(*dom_, "<table id=\"files-left-out\">", "</table>");
  EXPECT_EQ(Count(left_out, "<tr class=\"odd\">"), 3);
  for (const char* f : {"/rack2/gpu-node07.json</td><td>unreadable</td>", "/rack2/gpu-node08.json</td><td>unreadable</td>",
                        "/rack1/gpu-node01.old.json</td><td>duplicate</td>"})
    EXPECT_THAT(left_out, HasSubstr(f));
}

// A histogram per odd figure and one of active_mtu: the odd nodes' bars red.
TEST_F(FleetHtml, SvgHistograms) {
  ASSERT_NE(dom_, nullptr);
  EXPECT_EQ(Count(*dom_, "<svg "), 5);
  const std::string mtu = Element(*dom_, "<figure class=\"distribution\" data-figure=\"active_mtu\">", "</figure>");
  EXPECT_THAT(mtu, HasSubstr("<figcaption>active_mtu (bytes): nodes per value</figcaption>"));
  EXPECT_THAT(mtu, HasSubstr("<rect class=\"bar odd\""));
  EXPECT_THAT(mtu, HasSubstr("<title>1024: gpu-node03</title>"));
  EXPECT_THAT(mtu, HasSubstr("<title>4096: gpu-node01, gpu-node04, gpu-node05, gpu-node06</title>"));
  const std::string symbol = Element(*dom_, "<figure class=\"distribution\" data-figure=\"symbol_error /s\">", "</figure>");
  EXPECT_THAT(symbol, HasSubstr("<title>58.9: gpu-node06</title>"));
  EXPECT_EQ(Count(symbol, "<rect class=\"bar odd\""), 1);
}

TEST_F(FleetHtml, TextIsEscaped) {
  ASSERT_NE(dom_, nullptr);
  EXPECT_THAT(*dom_, HasSubstr("<p id=\"healthy\">healthy: evil&lt;b&gt;&amp;amp;&lt;/b&gt;node, gpu-node01, gpu-node02</p>"));
  EXPECT_THAT(*dom_, Not(HasSubstr("<b>")));
}

}  // namespace
}  // namespace rdmacheck
