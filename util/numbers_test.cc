#include "util/numbers.h"

#include <cstdint>
#include <optional>

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

struct Row {
  const char* in;
  std::optional<uint64_t> want;
};

TEST(ParseUnsigned, Table) {
  const Row rows[] = {
      {"0", 0},
      {"4096", 4096},
      {"0x1a", 26},
      {"0X15B3", 0x15b3},
      {"18446744073709551615", UINT64_MAX},
      {"0xffffffffffffffff", UINT64_MAX},
      {"18446744073709551616", std::nullopt},  // overflow
      {"0x10000000000000000", std::nullopt},
      {"", std::nullopt},
      {"0x", std::nullopt},
      {"+12", std::nullopt},
      {"-1", std::nullopt},
      {" 12", std::nullopt},
      {"12\n", std::nullopt},
      {"12abc", std::nullopt},
      {"0xfg", std::nullopt},
      {"ab", std::nullopt},  // hex digits need 0x
  };
  for (const Row& r : rows) EXPECT_EQ(ParseUnsigned(r.in), r.want) << "input `" << r.in << "`";
}

}  // namespace
}  // namespace rdmacheck
