#include "util/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(ReadInputFile, ReadsARegularFileWhole) {
  std::string p = Write("ok.txt", "line 1\nline 2\n");
  absl::StatusOr<std::string> got = ReadInputFile("Read", p, "a test file", 100);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "line 1\nline 2\n");
}

TEST(ReadInputFile, EachRefusalNamesCallerPathAndWhy) {
  const std::string dir = ::testing::TempDir();
  EXPECT_THAT(ReadInputFile("ReadPlanFile", dir + "/nope.plan", "a plan", 100),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("ReadPlanFile(" + dir + "/nope.plan): no such file")));
  EXPECT_THAT(ReadInputFile("ReadPlanFile", dir, "a plan", 100),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is a directory, not a plan")));
  // /dev/zero would never end; a FIFO with no writer would block forever.
  EXPECT_THAT(ReadInputFile("ReadProfileFile", "/dev/zero", "a profile", 100),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ReadProfileFile(/dev/zero): not a regular file (a profile is read from a file)")));
  const std::string fifo = dir + "/input_file_test.fifo";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(ReadInputFile("ReadProfileFile", fifo, "a profile", 100),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a regular file")));
  unlink(fifo.c_str());
  std::string big = Write("big.txt", std::string(101, 'x'));
  EXPECT_THAT(ReadInputFile("Read", big, "a test file", 100),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("101 bytes is too large for a test file (at most 100)")));
}

}  // namespace
}  // namespace rdmacheck
