#include "util/numbers.h"

#include <cstdint>
#include <optional>
#include <vector>

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

TEST(ParseDecimal, Table) {
  const struct {
    const char* in;
    std::optional<double> want;
  } rows[] = {
      {"0", 0.0},       {"100", 100.0},  {"12.5", 12.5},        {"0.5", 0.5},
      {"007.25", 7.25}, {"", std::nullopt}, {".5", std::nullopt}, {"5.", std::nullopt},
      {"1.2.3", std::nullopt}, {"-1", std::nullopt}, {"+1", std::nullopt},
      {"1e3", std::nullopt},   {"nan", std::nullopt}, {"inf", std::nullopt},
      {" 1", std::nullopt},    {"1 ", std::nullopt},  {"0x10", std::nullopt},
  };
  for (const auto& r : rows) EXPECT_EQ(ParseDecimal(r.in), r.want) << "input `" << r.in << "`";
}

TEST(ParseDotted, Table) {
  using V = std::vector<uint64_t>;
  const struct {
    const char* in;
    std::optional<V> want;
  } rows[] = {
      {"20.31.1014", V{20, 31, 1014}},
      {"7", V{7}},
      {"219.0.112.0", V{219, 0, 112, 0}},
      {"1.2.3.4.5", std::nullopt},  // more than 4 parts
      {"20..1014", std::nullopt},
      {".1", std::nullopt},
      {"1.", std::nullopt},
      {"", std::nullopt},
      {"20.31.1014a", std::nullopt},
      {"0x10.1", std::nullopt},
      {"-1.2", std::nullopt},
      {"1.99999999999999999999", std::nullopt},  // overflow
  };
  for (const auto& r : rows) EXPECT_EQ(ParseDotted(r.in), r.want) << "input `" << r.in << "`";
  EXPECT_EQ(ParseDotted("1.2.3", 2), std::nullopt);
}

TEST(CompareDotted, ComparesNumbersNotText) {
  auto cmp = [](const char* a, const char* b) { return CompareDotted(*ParseDotted(a), *ParseDotted(b)); };
  EXPECT_LT(cmp("20.28.2006", "20.31.1014"), 0);
  EXPECT_GT(cmp("20.31.1014", "20.28.2006"), 0);
  EXPECT_GT(cmp("20.100.0", "20.31.1014"), 0);  // as text "20.100" < "20.31"
  EXPECT_LT(cmp("2.9", "2.10"), 0);
  EXPECT_EQ(cmp("20.31", "20.31.0"), 0);
  EXPECT_LT(cmp("20.31", "20.31.1"), 0);
  EXPECT_EQ(cmp("16.35.2000", "16.35.2000"), 0);
}

}  // namespace
}  // namespace rdmacheck
