//===- ObjectFile.h - plan bytes as a native object file --------*- C++ -*-===//
#ifndef COLLC_PLAN_OBJECTFILE_H
#define COLLC_PLAN_OBJECTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Writes a relocatable object for the host target defining the same two
/// symbols as writePlanCSource: `const unsigned char SYMBOL[]` and
/// `const unsigned long SYMBOL_size`. Link it into any C/C++/Fortran program.
llvm::Error writePlanObject(llvm::ArrayRef<uint8_t> bytes,
                            llvm::StringRef symbol,
                            llvm::raw_pwrite_stream &os);

} // namespace collc

#endif // COLLC_PLAN_OBJECTFILE_H
