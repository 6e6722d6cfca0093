// The support bundle of `rdmacheck report`: one document for a ticket with
// the node's profile, every check's result and explain's findings on the
// logs given. Renders only: the run and the findings are made by the caller.
//
//   std::string text = RenderSupportBundle(view, rep, explained, SupportFormat::kJson);
#ifndef RDMACHECK_REPORT_SUPPORT_BUNDLE_H_
#define RDMACHECK_REPORT_SUPPORT_BUNDLE_H_

#include <optional>
#include <string>

#include "checks/run_report.h"
#include "facts/device_view.h"

namespace rdmacheck {

enum class SupportFormat { kText, kJson };

// `explained`: explain's output in the same format (JSON text for kJson), or
// nullopt when no log was given. `checks_text`: the text rendering of `rep`
// (with or without colour, as the caller decided), used by kText.
std::string RenderSupportBundle(const DeviceView& view, const RunReport& rep, const std::string& checks_text,
                                const std::optional<std::string>& explained, SupportFormat format);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_SUPPORT_BUNDLE_H_
