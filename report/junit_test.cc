#include "report/junit.h"

#include <string>

#include <tinyxml2.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using report_testing::SampleReport;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

// Parses out into doc and returns the <testsuite>; fails the test when the
// output is not well-formed XML.
const XMLElement* Suite(const std::string& out, XMLDocument* doc) {
  EXPECT_EQ(doc->Parse(out.c_str(), out.size()), tinyxml2::XML_SUCCESS)
      << doc->ErrorStr() << "\n" << out;
  const XMLElement* root = doc->FirstChildElement("testsuites");
  if (root == nullptr) return nullptr;
  return root->FirstChildElement("testsuite");
}

const XMLElement* Testcase(const XMLElement* suite, const std::string& name) {
  for (const XMLElement* tc = suite->FirstChildElement("testcase"); tc != nullptr;
       tc = tc->NextSiblingElement("testcase")) {
    if (name == tc->Attribute("name")) return tc;
  }
  return nullptr;
}

std::string Str(const char* s) { return s == nullptr ? "<null>" : s; }

TEST(RenderJunitTest, SuiteAttributesAndProperties) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(Str(suite->Attribute("name")), "rdmacheck");
  EXPECT_EQ(suite->IntAttribute("tests"), 5);
  EXPECT_EQ(suite->IntAttribute("failures"), 1);
  EXPECT_EQ(suite->IntAttribute("skipped"), 1);
  EXPECT_EQ(suite->IntAttribute("errors"), 0);
  EXPECT_DOUBLE_EQ(suite->DoubleAttribute("time"), 0.012);
  EXPECT_EQ(Str(suite->Attribute("timestamp")), "2026-11-29T09:30:00Z");
  EXPECT_EQ(Str(suite->Attribute("hostname")), "rxeguest");

  const XMLElement* root = doc.FirstChildElement("testsuites");
  EXPECT_EQ(root->IntAttribute("tests"), 5);
  EXPECT_EQ(root->IntAttribute("failures"), 1);

  struct Row {
    const char* name;
    const char* value;
  } want[] = {{"tool_version", "0.1.0"},
              {"source", "live"},
              {"plan", "<default>"},
              {"kernel", "6.1.0-27-amd64"},
              {"device", "rxe0 driver=rxe fw_ver= node_guid=5254:00ff:fe12:3456"}};
  const XMLElement* props = suite->FirstChildElement("properties");
  ASSERT_NE(props, nullptr);
  const XMLElement* p = props->FirstChildElement("property");
  for (const Row& row : want) {
    ASSERT_NE(p, nullptr) << row.name;
    EXPECT_EQ(Str(p->Attribute("name")), row.name);
    EXPECT_EQ(Str(p->Attribute("value")), row.value);
    p = p->NextSiblingElement("property");
  }
  EXPECT_EQ(p, nullptr);
}

TEST(RenderJunitTest, OneTestcasePerCheckInOrder) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  const char* ids[] = {"device-present", "port-active", "mtu-match", "loopback-traffic",
                       "gid-roce-v2"};
  const XMLElement* tc = suite->FirstChildElement("testcase");
  for (const char* id : ids) {
    ASSERT_NE(tc, nullptr) << id;
    EXPECT_EQ(Str(tc->Attribute("name")), id);
    EXPECT_EQ(Str(tc->Attribute("classname")), "rdmacheck");
    EXPECT_NE(tc->Attribute("time"), nullptr);
    tc = tc->NextSiblingElement("testcase");
  }
  EXPECT_EQ(tc, nullptr);
  EXPECT_DOUBLE_EQ(Testcase(suite, "port-active")->DoubleAttribute("time"), 0.0002);
}

TEST(RenderJunitTest, FailCarriesEvidenceAndRemediation) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  const XMLElement* tc = Testcase(suite, "port-active");
  ASSERT_NE(tc, nullptr);
  const XMLElement* failure = tc->FirstChildElement("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(Str(failure->Attribute("message")), "Port 1 of rxe0 is ACTIVE");
  EXPECT_EQ(Str(failure->Attribute("type")), "FAIL");
  EXPECT_EQ(Str(failure->GetText()),
            "FAIL port-active: Port 1 of rxe0 is ACTIVE\n"
            "rxe0 port 1 state: expected ACTIVE, actual DOWN  <- FAIL\n"
            "rxe0 port 1 netdev: va\n"
            "note: rxe follows the state of its netdev\n"
            "Remediation:\n"
            "    ip link set dev va up\n"
            "    ibv_devinfo -d rxe0 | grep state\n");
  EXPECT_EQ(tc->FirstChildElement("skipped"), nullptr);
}

TEST(RenderJunitTest, SkipHasReason) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  const XMLElement* tc = Testcase(suite, "loopback-traffic");
  ASSERT_NE(tc, nullptr);
  const XMLElement* skipped = tc->FirstChildElement("skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(Str(skipped->Attribute("message")), "traffic probe needs a live device");
  EXPECT_EQ(tc->FirstChildElement("failure"), nullptr);
  EXPECT_EQ(tc->FirstChildElement("system-out"), nullptr);  // nothing else to say
}

TEST(RenderJunitTest, WarnPassesWithWarningInSystemOut) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  const XMLElement* tc = Testcase(suite, "mtu-match");
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(tc->FirstChildElement("failure"), nullptr);
  EXPECT_EQ(tc->FirstChildElement("skipped"), nullptr);
  const XMLElement* out = tc->FirstChildElement("system-out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Str(out->GetText()),
            "WARN mtu-match: Active MTU of rxe0 port 1 is 4096\n"
            "rxe0 port 1 active_mtu: expected 4096, actual 1024  <- WARN\n"
            "Remediation:\n"
            "    ip link set dev va mtu 4200\n");
}

TEST(RenderJunitTest, PassEvidenceInSystemOut) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(SampleReport()), &doc);
  ASSERT_NE(suite, nullptr);
  const XMLElement* tc = Testcase(suite, "device-present");
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(tc->FirstChildElement("failure"), nullptr);
  EXPECT_EQ(tc->FirstChildElement("skipped"), nullptr);
  const XMLElement* out = tc->FirstChildElement("system-out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Str(out->GetText()),
            "PASS device-present: An RDMA device is present\n"
            "RDMA devices: expected >= 1, actual 1 (rxe0)\n");
}

TEST(RenderJunitTest, EscapingRoundTrips) {
  // Markup characters and quotes come back unchanged, in attributes and text.
  const std::string nasty = "a<b> & \"c\" 'd' ]]> <!-- x --> &amp;";
  RunReport rep = SampleReport();
  rep.host = nasty;
  rep.plan = nasty;
  rep.results[1].id = nasty;
  rep.results[1].title = nasty;
  rep.results[1].evidence[0].actual = nasty;
  rep.results[1].remediation = {"echo '" + nasty + "'"};
  rep.results[3].skip_reason = nasty;

  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(rep), &doc);
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(Str(suite->Attribute("hostname")), nasty);
  const XMLElement* tc = Testcase(suite, nasty);
  ASSERT_NE(tc, nullptr);
  const XMLElement* failure = tc->FirstChildElement("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(Str(failure->Attribute("message")), nasty);
  EXPECT_THAT(Str(failure->GetText()), HasSubstr("actual " + nasty + "  <- FAIL\n"));
  EXPECT_THAT(Str(failure->GetText()), HasSubstr("    echo '" + nasty + "'\n"));
  EXPECT_EQ(Str(Testcase(suite, "loopback-traffic")
                    ->FirstChildElement("skipped")
                    ->Attribute("message")),
            nasty);
}

TEST(RenderJunitTest, WhitespaceInAttributesSurvives) {
  RunReport rep = SampleReport();
  rep.results[1].title = "line1\nline2\tcol\rend";
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(rep), &doc);
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(Str(Testcase(suite, "port-active")->FirstChildElement("failure")->Attribute("message")),
            "line1\nline2\tcol\rend");
}

TEST(RenderJunitTest, ControlCharactersAreReplaced) {
  // None of these may appear in XML 1.0, not even as character references.
  RunReport rep = SampleReport();
  rep.results[1].title = std::string("t\x1b[31m\x01\x0b\x0c\0end", 13);
  rep.results[1].evidence[0].actual = "DOWN\x1f";
  rep.results[1].remediation = {"echo \x08"};
  rep.kernel = "6.1\xff";  // not UTF-8
  const std::string out = RenderJunit(rep);
  for (char c : std::string("\x00\x01\x08\x0b\x0c\x1b\x1f", 7)) {
    EXPECT_EQ(out.find(c), std::string::npos) << static_cast<int>(c);
  }
  EXPECT_THAT(out, Not(HasSubstr("&#27;")));

  XMLDocument doc;
  const XMLElement* suite = Suite(out, &doc);
  ASSERT_NE(suite, nullptr);
  const XMLElement* failure = Testcase(suite, "port-active")->FirstChildElement("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(Str(failure->Attribute("message")), "t\\x1b[31m\\x01\\x0b\\x0c\\x00end");
  EXPECT_THAT(Str(failure->GetText()), HasSubstr("actual DOWN\\x1f  <- FAIL\n"));
  EXPECT_THAT(Str(failure->GetText()), HasSubstr("    echo \\x08\n"));
}

TEST(RenderJunitTest, EmptyRunIsWellFormed) {
  XMLDocument doc;
  const XMLElement* suite = Suite(RenderJunit(RunReport{}), &doc);
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->IntAttribute("tests", -1), 0);
  EXPECT_EQ(suite->FirstChildElement("testcase"), nullptr);
}

}  // namespace
}  // namespace rdmacheck
