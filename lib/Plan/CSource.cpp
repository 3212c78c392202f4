//===- CSource.cpp - plan bytes as a C translation unit -------------------===//
#include "lib/Plan/CSource.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace collc;

std::string collc::sanitizeSymbol(llvm::StringRef name) {
  std::string symbol;
  for (char c : name)
    symbol += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (symbol.empty() || llvm::isDigit(symbol.front()))
    symbol.insert(0, "plan_");
  return symbol;
}

void collc::writePlanCSource(llvm::ArrayRef<uint8_t> bytes,
                             llvm::StringRef symbol, llvm::raw_ostream &os) {
  os << "/* collc plan, " << bytes.size()
     << " bytes. Load with collrt_plan_load(" << symbol << ", " << symbol
     << "_size, &plan, &diag). */\n";
  os << "const unsigned char " << symbol << "[" << bytes.size() << "] = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    os << (i % 12 == 0 ? "\n  " : " ");
    os << llvm::format("0x%02x", bytes[i]) << ",";
  }
  os << "\n};\n";
  os << "const unsigned long " << symbol << "_size = " << bytes.size()
     << ";\n";
}
