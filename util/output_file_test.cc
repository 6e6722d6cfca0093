#include "util/output_file.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/input_file.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Canonical: the writer names the file a symlink or "//" resolves to.
std::string Dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/" + name;
  mkdir(d.c_str(), 0755);
  char* real = realpath(d.c_str(), nullptr);
  const std::string out = real ? real : d;
  free(real);
  return out;
}

std::string Read(const std::string& path) {
  return ReadInputFile("Read", path, "a written file", 1 << 20).value_or("(unreadable)");
}

// Names in `dir` that look like our temporary files.
std::vector<std::string> Leftovers(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = d ? readdir(d) : nullptr)
    if (absl::StrContains(e->d_name, ".tmp.")) out.push_back(e->d_name);
  if (d) closedir(d);
  return out;
}

TEST(WriteFileAtomically, ReplacesTheFileAndKeepsItsMode) {
  const std::string dir = Dir("replace");
  const std::string path = dir + "/rdmacheck.prom";
  std::ofstream(path) << "old\n";
  chmod(path.c_str(), 0640);
  ASSERT_THAT(WriteFileAtomically(path, "new contents\n"), IsOk());
  EXPECT_EQ(Read(path), "new contents\n");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_THAT(Leftovers(dir), IsEmpty());
  // A file that did not exist is created.
  ASSERT_THAT(WriteFileAtomically(dir + "/fresh.json", "{}\n"), IsOk());
  EXPECT_EQ(Read(dir + "/fresh.json"), "{}\n");
}

// The failure the textfile collector must never see: a write that stops
// halfway (here RLIMIT_FSIZE; a full disk is the same EFBIG/ENOSPC path).
TEST(WriteFileAtomically, AFailedWriteLeavesTheOldFileIntactAndNoTemporary) {
  const std::string dir = Dir("efbig");
  const std::string path = dir + "/rdmacheck.prom";
  std::ofstream(path) << "rdmacheck_up 1\n";
  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 64;
  // SIGXFSZ would end the process; ignored, write() says EFBIG instead.
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const absl::Status s = WriteFileAtomically(path, std::string(4096, 'x'));
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kOutOfRange,
                          HasSubstr(absl::StrCat("write(", path, ".tmp.", getpid(), ")"))));
  EXPECT_EQ(Read(path), "rdmacheck_up 1\n");
  EXPECT_THAT(Leftovers(dir), IsEmpty());
}

TEST(WriteFileAtomically, ATemporaryThatCannotBeCreatedLeavesTheOldFile) {
  const std::string dir = Dir("blocked");
  const std::string path = dir + "/out.json";
  std::ofstream(path) << "old\n";
  // Something already holds our temporary name: never written through.
  const std::string squat = absl::StrCat(path, ".tmp.", getpid());
  ASSERT_EQ(mkdir(squat.c_str(), 0755), 0);
  EXPECT_THAT(WriteFileAtomically(path, "new\n"),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("open(" + squat + ")")));
  EXPECT_EQ(Read(path), "old\n");
  rmdir(squat.c_str());
  EXPECT_THAT(WriteFileAtomically(dir + "/no/such/dir/out.json", "x"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("open(" + dir + "/no/such/dir/out.json.tmp.")));
}

TEST(WriteFileAtomically, ASymlinkKeepsPointingAtTheReplacedFile) {
  const std::string dir = Dir("link");
  std::ofstream(dir + "/real.prom") << "old\n";
  ASSERT_EQ(symlink("real.prom", (dir + "/link.prom").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(dir + "/link.prom", "new\n"), IsOk());
  struct stat st;
  ASSERT_EQ(lstat((dir + "/link.prom").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Read(dir + "/real.prom"), "new\n");
}

TEST(WriteFileAtomically, ADeviceIsWrittenInPlace) {
  ASSERT_THAT(WriteFileAtomically("/dev/null", "discarded\n"), IsOk());
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

}  // namespace
}  // namespace rdmacheck
