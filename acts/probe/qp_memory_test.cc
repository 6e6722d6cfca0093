#include "acts/probe/qp_memory.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Optional;

// From a Debian 12 guest's /proc/self/status (trimmed).
constexpr char kStatus[] =
    "Name:\trdmacheck\n"
    "VmPeak:\t   25020 kB\n"
    "VmLck:\t       0 kB\n"
    "VmPin:\t      12 kB\n"
    "VmHWM:\t    9120 kB\n"
    "VmRSS:\t    9120 kB\n"
    "RssAnon:\t    1024 kB\n";

TEST(QpMemory, ParsesStatusFieldsInBytes) {
  MemorySnapshot s;
  ASSERT_THAT(ParseMemoryFields(kStatus, "status", &s), IsOk());
  EXPECT_THAT(s.vm_rss, Optional(9120u * 1024));
  EXPECT_THAT(s.vm_pin, Optional(12u * 1024));
  EXPECT_THAT(s.vm_lck, Optional(0u));
  EXPECT_FALSE(s.vmalloc_used.has_value());
}

TEST(QpMemory, ParsesMeminfoVmallocUsed) {
  MemorySnapshot s;
  ASSERT_THAT(ParseMemoryFields("MemTotal:  2000000 kB\nVmallocUsed:   41234 kB\n", "meminfo", &s), IsOk());
  EXPECT_THAT(s.vmalloc_used, Optional(41234u * 1024));
  EXPECT_FALSE(s.vm_rss.has_value());
}

TEST(QpMemory, BadValueNamesFileLineAndField) {
  MemorySnapshot s;
  EXPECT_THAT(ParseMemoryFields("Name:\tx\nVmRSS:\t12 MB\n", "/proc/self/status", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/proc/self/status:2: VmRSS is")));
}

TEST(QpMemory, SumsOnlyTheUverbsMappings) {
  constexpr char kMaps[] =
      "55d0a000-55d0b000 r--p 00000000 fe:01 1234   /usr/bin/rdmacheck\n"
      "7f1200000000-7f1200021000 rw-s 00000000 00:05 88   /dev/infiniband/uverbs0\n"
      "7f1200100000-7f1200105000 rw-s 00021000 00:05 88   /dev/infiniband/uverbs0\n"
      "7f1300000000-7f1300001000 rw-p 00000000 00:00 0\n";
  EXPECT_EQ(UverbsMappedBytes(kMaps), 0x21000u + 0x5000u);
  EXPECT_EQ(UverbsMappedBytes(""), 0u);
}

TEST(QpMemory, ReadsThisProcess) {
  ASSERT_OK_AND_ASSIGN(MemorySnapshot s, ReadMemorySnapshot());
  ASSERT_TRUE(s.vm_rss.has_value());
  EXPECT_GT(*s.vm_rss, 0u);
  EXPECT_THAT(ReadMemorySnapshot("/nonexistent/status").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/status")));
}

TEST(QpMemory, PerQpIsTheGrowthOverTheQpsCreated) {
  QpMemoryMeasurement m;
  m.created = 4;
  EXPECT_THAT(m.PerQp(1000, 5000), Optional(1000u));
  EXPECT_THAT(m.PerQp(5000, 1000), Optional(0u));  // shrank meanwhile: no growth
  EXPECT_FALSE(m.PerQp(std::nullopt, 5000).has_value());
  m.created = 0;
  EXPECT_FALSE(m.PerQp(1000, 5000).has_value());
}

TEST(QpMemory, RefusesUnboundedRequests) {
  QpMemoryRequest r;
  r.device = "rxe0";
  r.count = 0;
  EXPECT_THAT(MeasureQpMemory(r).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("count=0 must be 1..64")));
  r.count = 65;
  EXPECT_THAT(MeasureQpMemory(r).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("count=65 must be 1..64")));
  r.count = 2;
  r.deadline_s = 0;
  EXPECT_THAT(MeasureQpMemory(r).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deadline_s=0 must be in (0, 60]")));
  r.deadline_s = 1;
  r.device = "no_such_dev9";
  EXPECT_THAT(MeasureQpMemory(r).status(), StatusIs(absl::StatusCode::kNotFound, HasSubstr("no_such_dev9")));
}

}  // namespace
}  // namespace rdmacheck
