// Renderers for the findings of an Explainer: human text and JSON (schema
// "rdmacheck.explain/1", documented in docs/explain.md).
//
//   Explainer ex(*rules);
//   ...
//   RenderExplainText(ex, std::cout);   // or RenderExplainJson(ex, std::cout);
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_OUTPUT_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_OUTPUT_H_

#include <ostream>

#include "tools/diag/explain.h"

namespace rdmacheck {

// One block per finding (diagnosis, numbered causes, remediation with the
// captured values filled in, "confirm with: rdmacheck --checks <ids>"), then a
// summary line.
void RenderExplainText(const Explainer& explainer, std::ostream& out);

// One JSON document; invalid UTF-8 in log text is replaced, never fatal.
void RenderExplainJson(const Explainer& explainer, std::ostream& out);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_OUTPUT_H_
