// JSON renderer: the machine-readable form of a run (`rdmacheck --format=json`),
// schema_version 1 (kJsonSchemaVersion, checks/run_report.h). Every field is
// always present (empty string / empty list when unknown), keys appear in a
// fixed order. The schema is documented field by field in
// docs/output-formats.md; CI scripts rely on it.
//
//   std::cout << RenderJson(rep);   // pretty, 2-space indent, trailing newline
#ifndef RDMACHECK_REPORT_JSON_H_
#define RDMACHECK_REPORT_JSON_H_

#include <string>

#include "checks/run_report.h"

namespace rdmacheck {

// Strings are emitted as given; bytes that are not valid UTF-8 become U+FFFD
// (JSON text must be UTF-8), control characters are escaped as \u00XX.
std::string RenderJson(const RunReport& rep);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_JSON_H_
