//===- ObjectFile.cpp - plan bytes as a native object file ----------------===//
//
// The plan becomes two constant globals of an LLVM module, which the host's
// LLVM target compiles to an object file: no C compiler needed, and the
// symbols match the --emit=c container exactly.
//
//===----------------------------------------------------------------------===//
#include "lib/Plan/ObjectFile.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

Error collc::writePlanObject(ArrayRef<uint8_t> bytes, StringRef symbol,
                             raw_pwrite_stream &os) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  std::string triple = sys::getDefaultTargetTriple();
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(inconvertibleErrorCode(),
                             "no LLVM target for " + triple + ": " + error);
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", TargetOptions(), Reloc::PIC_));

  LLVMContext context;
  Module module("collc_plan", context);
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  auto *data = ConstantDataArray::get(context, bytes);
  new GlobalVariable(module, data->getType(), /*isConstant=*/true,
                     GlobalValue::ExternalLinkage, data, symbol);
  // `unsigned long` is pointer-sized on every LP64 and ILP32 target.
  Type *sizeType = module.getDataLayout().getIntPtrType(context);
  new GlobalVariable(module, sizeType, /*isConstant=*/true,
                     GlobalValue::ExternalLinkage,
                     ConstantInt::get(sizeType, bytes.size()),
                     (symbol + "_size").str());

  legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(),
                             "target " + triple + " cannot emit objects");
  passes.run(module);
  return Error::success();
}
