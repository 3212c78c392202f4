//===- CSource.h - plan bytes as a C translation unit -----------*- C++ -*-===//
#ifndef COLLC_PLAN_CSOURCE_H
#define COLLC_PLAN_CSOURCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace collc {

/// A valid C identifier derived from `name` (e.g. a file stem).
std::string sanitizeSymbol(llvm::StringRef name);

/// Writes `const unsigned char SYMBOL[]` and `const unsigned long
/// SYMBOL_size`, embeddable with any C toolchain and loadable with
/// collrt_plan_load(SYMBOL, SYMBOL_size, ...).
void writePlanCSource(llvm::ArrayRef<uint8_t> bytes, llvm::StringRef symbol,
                      llvm::raw_ostream &os);

} // namespace collc

#endif // COLLC_PLAN_CSOURCE_H
