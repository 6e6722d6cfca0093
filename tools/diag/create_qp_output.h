// What `rdmacheck diag create-qp` prints for a diagnosis (acts/create_qp.h):
// the asked and granted caps, each finding, the verdict sentences, and the
// same as JSON (schema in docs/diag-create-qp.md). Rendering only.
//
//   out << (json ? FormatDiagnosisJson(d) : FormatDiagnosisText(d));
#ifndef RDMACHECK_TOOLS_DIAG_CREATE_QP_OUTPUT_H_
#define RDMACHECK_TOOLS_DIAG_CREATE_QP_OUTPUT_H_

#include <string>

#include "acts/create_qp.h"

namespace rdmacheck {

std::string FormatDiagnosisText(const CreateQpDiagnosis& d);
std::string FormatDiagnosisJson(const CreateQpDiagnosis& d);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_CREATE_QP_OUTPUT_H_
