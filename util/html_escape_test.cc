#include "util/html_escape.h"

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(HtmlEscape("rxe0"), "rxe0");
  EXPECT_EQ(HtmlEscape(""), "");
}

}  // namespace
}  // namespace rdmacheck
