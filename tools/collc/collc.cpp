//===- collc.cpp - the collc compiler driver ------------------------------===//
//
//   collc SPEC.yaml [-o OUT] [--emit=coll|sched|plan|c|obj]   compile a spec
//   collc SPEC.yaml --emit=platform|platform-cpp|hostfile   the machine, for SimGrid SMPI
//   collc FILE.mlir ...                                  compile coll/sched IR
//   collc PLAN.collplan --emit=sched|c|obj               inspect or re-wrap
//
// Pipeline: spec -> coll IR -> buildCollcPipeline (coll-select-algorithm,
// coll-lower, canonicalize, cse) -> plan bytes, encoded once and verified
// (sched-verify's checks) before they are written. MLIR's pass manager
// options (--mlir-print-ir-after-all, --mlir-timing, ...) apply.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Sched/SchedOps.h"
#include "lib/Algorithms/Algorithm.h"
#include "lib/Cost/CostModel.h"
#include "lib/Frontend/SpecToColl.h"
#include "collc/Passes/Passes.h"
#include "lib/Plan/CSource.h"
#include "lib/Plan/ObjectFile.h"
#include "lib/Plan/PlanEmitter.h"
#include "lib/Plan/PlanImporter.h"
#include "lib/Platform/Platform.h"
#include "lib/Spec/Spec.h"
#include "tools/collc/plan_set.h"
#include "tools/collc/report.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <unistd.h>

using namespace mlir;
using namespace collc;
namespace cl = llvm::cl;

namespace {

enum class EmitKind { Coll, Sched, Plan, C, Obj, Platform, PlatformSource, Hostfile };

// --help lists these categories only: the options LLVM's and MLIR's
// libraries register (back ends, passes, ...) are still accepted but not
// listed, not even by --help-hidden.
cl::OptionCategory outputCategory("Output");
cl::OptionCategory checkCategory("Verification and the cost model");
cl::OptionCategory irCategory("Inspecting the pipeline (MLIR)");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<spec.yaml | file.mlir | "
                                            "plan.collplan>"),
                                   cl::cat(outputCategory));
cl::opt<bool> planSet(
    "plan-set",
    cl::desc("From a machine spec (a topology, no collective): write into the -o "
             "directory the plans that serve every collective at every size, each "
             "recording the byte range it wins, and generic ones for any communicator"),
    cl::cat(outputCategory));
cl::opt<std::string> networkFile(
    "network",
    cl::desc("Network parameters that override the spec's topology.network: a "
             "file with a 'network:' section, as collc-run --calibrate prints it"),
    cl::value_desc("file"), cl::cat(outputCategory));
cl::opt<bool> listAlgorithms(
    "list-algorithms",
    cl::desc("Print the algorithm table as JSON (the ops each lowers, its "
             "options, default FIFO depth and order) and exit"),
    cl::cat(outputCategory));
cl::opt<std::string> outputFilename(
    "o", cl::desc("Output file (default: stdout for text, "
                  "<input>.collplan for --emit=plan)"),
    cl::value_desc("file"), cl::cat(outputCategory));
cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::Plan),
    cl::cat(outputCategory),
    cl::values(clEnumValN(EmitKind::Coll, "coll",
                          "coll IR after algorithm selection"),
               clEnumValN(EmitKind::Sched, "sched", "the schedule (sched IR)"),
               clEnumValN(EmitKind::Plan, "plan", "binary .collplan"),
               clEnumValN(EmitKind::C, "c",
                          "the plan bytes as a C array and size"),
               clEnumValN(EmitKind::Obj, "obj",
                          "an object file defining the same symbols as "
                          "--emit=c"),
               clEnumValN(EmitKind::Platform, "platform",
                          "the spec's machine as a SimGrid platform (XML)"),
               clEnumValN(EmitKind::PlatformSource, "platform-cpp",
                          "a switch machine as a SimGrid platform in C++ "
                          "(for an offload NIC)"),
               clEnumValN(EmitKind::Hostfile, "hostfile",
                          "the SMPI hostfile placing ranks on that "
                          "platform's nodes")));
cl::opt<int64_t> verifyRanks(
    "verify-ranks",
    cl::desc("Simulate and check the schedule for every communicator size "
             "up to N (topology plans: their shape and smaller ones that fit)"),
    cl::init(16), cl::cat(checkCategory));
cl::opt<bool> noVerify("no-verify",
                       cl::desc("Do not verify; the plan records that it was "
                                "not verified"),
                       cl::cat(checkCategory));
cl::opt<std::string>
    symbolName("symbol",
               cl::desc("C symbol for --emit=c and --emit=obj (default: from the input "
                        "file name)"),
               cl::cat(outputCategory));
cl::opt<bool> report("report",
                     cl::desc("Route the plan's messages over its torus: hottest link, "
                              "messages and scratch per rank, implied time vs the bound"),
                     cl::cat(checkCategory));
cl::opt<bool> explain("explain",
                      cl::desc("Show the cost model's estimates for every "
                               "candidate algorithm"),
                      cl::cat(checkCategory));

/// --network FILE: the calibrated parameters over the spec's.
LogicalResult applyNetworkFile(llvm::SourceMgr &sourceMgr, Spec &spec) {
  if (networkFile.empty())
    return success();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(networkFile, &error);
  if (!file) {
    llvm::errs() << "collc: error: --network " << networkFile << ": " << error << "\n";
    return failure();
  }
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return success(parseNetworkFile(sourceMgr, id, spec.topology.network));
}

/// --list-algorithms: CollAlgorithms.def as JSON, for tools that must not
/// keep their own list of names (bench/smpi/run).
void printAlgorithmTable(llvm::raw_ostream &os) {
  llvm::json::Array rows;
  for (const algorithms::AlgorithmRow &row : algorithms::kAlgorithms) {
    llvm::json::Array ops, options;
    for (CollectiveKind kind :
         {CollectiveKind::Alltoall, CollectiveKind::Alltoallv, CollectiveKind::Allgatherv,
          CollectiveKind::Allreduce, CollectiveKind::Bcast})
      if (row.lowers[algorithmColumn(kind)])
        ops.push_back(stringifyCollectiveKind(kind));
    for (const algorithms::OptionRow &option : algorithms::kOptions)
      if (option.algorithm == row.name)
        options.push_back(option.option);
    llvm::json::Object entry{{"name", row.name},
                             {"ops", std::move(ops)},
                             {"options", std::move(options)},
                             {"fifo_depth", row.defaultDepth}};
    if (algorithms::takesOption(row.name, "order"))
      entry["order"] = algorithms::defaultOrder(row.name);
    rows.push_back(std::move(entry));
  }
  llvm::json::Array orders(llvm::ArrayRef<llvm::StringLiteral>(algorithms::kOrders));
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"algorithms", std::move(rows)}, {"orders", std::move(orders)}}))
     << "\n";
}

bool isPlanFile(const llvm::MemoryBuffer &buffer) {
  return buffer.getBufferSize() >= 8 &&
         std::memcmp(buffer.getBufferStart(), COLLRT_PLAN_MAGIC, 8) == 0;
}

/// The most collc reads of one input. Specs are a few KiB, plans at most
/// 1 MiB (the runtime's cap) and the largest sched IR of the examples a few
/// MiB; a larger input is a mistake (`collc /dev/zero` read 3.6 GB before it
/// was killed).
constexpr uint64_t kMaxInputBytes = 64u << 20;

StringRef fileKind(llvm::sys::fs::file_type type) {
  using llvm::sys::fs::file_type;
  switch (type) {
  case file_type::directory_file: return "a directory";
  case file_type::fifo_file: return "a FIFO";
  case file_type::character_file: return "a character device";
  case file_type::block_file: return "a block device";
  case file_type::socket_file: return "a socket";
  default: return "not a regular file";
  }
}

/// The input, refused unless it is a regular file (or stdin, "-") of at most
/// kMaxInputBytes: a FIFO or device would block or never end, and the
/// parser would hold all of it in memory.
std::unique_ptr<llvm::MemoryBuffer> readInput(StringRef path, std::string &error) {
  const char *cap = "64 MiB: the most collc reads of a spec, MLIR or plan";
  if (path == "-") {
    std::string data;
    char chunk[65536];
    while (data.size() <= kMaxInputBytes) {
      ssize_t got = ::read(0, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0) {
        error = "cannot read standard input: " + std::string(std::strerror(errno));
        return nullptr;
      }
      if (got == 0)
        return llvm::MemoryBuffer::getMemBufferCopy(data, "<stdin>");
      data.append(chunk, static_cast<size_t>(got));
    }
    error = "standard input is longer than " + std::string(cap);
    return nullptr;
  }
  llvm::sys::fs::file_status status;
  // a path that cannot be stat'ed is left to openInputFile, which says why
  if (!llvm::sys::fs::status(path, status)) {
    if (status.type() != llvm::sys::fs::file_type::regular_file) {
      error = "'" + path.str() + "' is " + fileKind(status.type()).str() +
              ", not a regular file (give a spec, MLIR or plan file, or - for "
              "standard input)";
      return nullptr;
    }
    if (status.getSize() > kMaxInputBytes) {
      error = "'" + path.str() + "' is " + std::to_string(status.getSize()) +
              " bytes, larger than " + cap;
      return nullptr;
    }
  }
  return openInputFile(path, &error);
}

bool isSpecFile(StringRef path) {
  return path.ends_with(".yaml") || path.ends_with(".yml");
}

std::string defaultSymbol() {
  return sanitizeSymbol(llvm::sys::path::stem(inputFilename).str() + "_plan");
}

/// Opens -o (or `defaultPath`), lets `write` fill it, and keeps the file
/// only if `write` succeeded.
LogicalResult
writeOutput(llvm::function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write,
            StringRef defaultPath) {
  std::string path = outputFilename.empty() ? defaultPath.str()
                                            : outputFilename.getValue();
  std::string error;
  auto output = openOutputFile(path, &error);
  if (!output) {
    llvm::errs() << "collc: error: " << error << "\n";
    return failure();
  }
  if (failed(write(output->os())))
    return failure();
  output->keep();
  return success();
}

LogicalResult writePlan(ArrayRef<uint8_t> bytes) {
  std::string symbol =
      symbolName.empty() ? defaultSymbol() : symbolName.getValue();
  std::string stem = llvm::sys::path::stem(inputFilename).str();
  if (emitKind == EmitKind::Obj)
    return writeOutput(
        [&](llvm::raw_pwrite_stream &os) -> LogicalResult {
          if (llvm::Error err = writePlanObject(bytes, symbol, os)) {
            llvm::errs() << "collc: error: " << llvm::toString(std::move(err))
                         << "\n";
            return failure();
          }
          return success();
        },
        stem + ".o");
  if (emitKind == EmitKind::C)
    return writeOutput(
        [&](llvm::raw_pwrite_stream &os) {
          writePlanCSource(bytes, symbol, os);
          return success();
        },
        "-");
  return writeOutput(
      [&](llvm::raw_pwrite_stream &os) {
        os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
        return success();
      },
      stem + ".collplan");
}

LogicalResult printModule(ModuleOp module) {
  return writeOutput(
      [&](llvm::raw_pwrite_stream &os) {
        module.print(os);
        return success();
      },
      "-");
}

/// A plan given as input: show it as sched IR or re-wrap its bytes.
LogicalResult handlePlan(MLIRContext &context,
                         const llvm::MemoryBuffer &buffer) {
  if (emitKind == EmitKind::Platform || emitKind == EmitKind::Hostfile) {
    llvm::errs() << inputFilename << ": error: a plan does not describe the "
                                     "machine; --emit=platform and "
                                     "--emit=hostfile need the spec (.yaml)\n";
    return failure();
  }
  collrt_plan_t *raw = nullptr;
  collrt_diag_t diag;
  diag.message[0] = '\0';
  collrt_status_t status = collrt_plan_load(
      buffer.getBufferStart(), buffer.getBufferSize(), &raw, &diag);
  if (status != COLLRT_OK) {
    llvm::errs() << inputFilename << ": error: " << collrt_strerror(status)
                 << ": " << diag.message << "\n";
    return failure();
  }
  PlanPtr plan(raw);
  if (emitKind == EmitKind::Sched || emitKind == EmitKind::Coll) {
    OwningOpRef<ModuleOp> module = importPlan(
        plan.get(), &context, FileLineColLoc::get(&context, inputFilename, 0, 0));
    // The plan inlines expressions at every use; CSE makes the IR readable.
    PassManager pm(&context);
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module)))
      return failure();
    return printModule(*module);
  }
  size_t length = 0;
  const uint8_t *bytes = collrt_plan_bytes(plan.get(), &length);
  return writePlan(ArrayRef<uint8_t>(bytes, length));
}

/// --emit=platform|platform-cpp|hostfile: the spec's machine, no compilation.
LogicalResult writeMachine(const Spec &spec) {
  if (emitKind == EmitKind::Hostfile)
    return writeOutput(
        [&](llvm::raw_pwrite_stream &os) {
          writeSimGridHostfile(spec.topology, os);
          return success();
        },
        "-");
  return writeOutput(
      [&](llvm::raw_pwrite_stream &os) -> LogicalResult {
        if (llvm::Error err = emitKind == EmitKind::PlatformSource
                                  ? writeSimGridPlatformSource(spec.topology, os)
                                  : writeSimGridPlatform(spec.topology, os)) {
          llvm::errs() << inputFilename << ": error: "
                       << llvm::toString(std::move(err)) << "\n";
          return failure();
        }
        return success();
      },
      "-");
}

/// --report for the candidates the cost model weighed but did not pick:
/// each lowered (unverified) from the spec's module as it was before
/// selection, then routed like the selected plan.
void reportOtherCandidates(MLIRContext &context, ModuleOp pristine,
                           ArrayRef<std::string> candidates, StringRef selected) {
  for (const std::string &name : candidates) {
    if (name == selected)
      continue;
    OwningOpRef<ModuleOp> module = pristine.clone();
    module->walk([&](Operation *op) {
      if (auto algorithm = op->getAttrOfType<coll::AlgorithmAttr>("algorithm"))
        op->setAttr("algorithm", algorithm.selectAs(name));
    });
    std::string error;
    FailureOr<PlanPtr> plan = failure();
    sched::PlanOp planOp;
    {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error && error.empty())
          error = diag.str();
        return success();
      });
      PassManager pm(&context);
      // selection decides the candidate's parameters
      buildCollcPipeline(pm, /*verifyRanks=*/0);
      if (succeeded(pm.run(*module))) {
        auto plans = module->getBody()->getOps<sched::PlanOp>();
        if (!plans.empty()) {
          planOp = *plans.begin();
          plan = emitPlan(planOp);
        }
      }
    }
    if (failed(plan)) {
      llvm::errs() << "report: " << name << ": not lowered"
                   << (error.empty() ? "" : ": " + error) << "\n";
      continue;
    }
    printPlanReport(planOp, plan->get(), llvm::errs());
  }
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  OwningOpRef<ModuleOp> module;
  // --report: the module before selection and the candidates of the spec
  OwningOpRef<ModuleOp> pristine;
  std::vector<std::string> candidates;
  bool emitsMachine = emitKind == EmitKind::Platform ||
                      emitKind == EmitKind::PlatformSource ||
                      emitKind == EmitKind::Hostfile;
  if (emitsMachine && !isSpecFile(inputFilename)) {
    llvm::errs() << "collc: error: --emit=platform and --emit=hostfile need a "
                    "spec (.yaml) describing the machine\n";
    return failure();
  }
  if (verifyRanks < 1 && !noVerify) {
    llvm::errs() << "collc: error: --verify-ranks=" << verifyRanks
                 << " verifies nothing; give at least 1, or --no-verify to "
                    "skip verification (the plan records it)\n";
    return failure();
  }
  if (planSet) {
    if (!isSpecFile(inputFilename) || outputFilename.empty()) {
      llvm::errs() << "collc: error: --plan-set needs a machine spec (.yaml: a topology and "
                      "no collective) and -o DIRECTORY\n";
      return failure();
    }
    std::optional<Spec> machine = parseSpec(sourceMgr, 1, SpecKind::Machine);
    if (!machine || failed(applyNetworkFile(sourceMgr, *machine)))
      return failure();
    return writePlanSet(context, *machine, outputFilename, noVerify ? 0 : verifyRanks.getValue(),
                        llvm::outs());
  }
  if (isSpecFile(inputFilename)) {
    std::optional<Spec> spec = parseSpec(sourceMgr, 1);
    if (!spec || failed(applyNetworkFile(sourceMgr, *spec)))
      return failure();
    if (emitsMachine)
      return writeMachine(*spec);
    auto [line, column] =
        spec->collective.opLoc.isValid()
            ? sourceMgr.getLineAndColumn(spec->collective.opLoc)
            : std::pair<unsigned, unsigned>(1, 1);
    module = buildCollModule(
        *spec, sanitizeSymbol(llvm::sys::path::stem(inputFilename)), &context,
        FileLineColLoc::get(&context, inputFilename, line, column));
    if (!module)
      return failure();
    if (report) {
      pristine = module->clone();
      for (const Candidate &candidate : weighAlgorithms(*spec).weighed)
        candidates.push_back(candidate.estimate.algorithm);
    }
  } else {
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return failure();
  }

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  if (emitKind == EmitKind::Coll)
    pm.addPass(createCollSelectAlgorithm());
  else
    buildCollcPipeline(pm, /*verifyRanks=*/0); // verified below, on the bytes written
  if (failed(pm.run(*module)))
    return failure();
  if (emitKind == EmitKind::Coll)
    return printModule(*module);

  // Each plan is encoded once: sched-verify's checks run on the bytes that
  // are written.
  SmallVector<std::pair<sched::PlanOp, PlanPtr>> encoded;
  for (sched::PlanOp planOp : module->getBody()->getOps<sched::PlanOp>()) {
    if (noVerify)
      planOp.setUnverified(true);
    FailureOr<PlanPtr> plan = emitPlan(planOp);
    if (failed(plan) ||
        (!noVerify && failed(verifyEncodedPlan(planOp, plan->get(), verifyRanks))))
      return failure();
    encoded.emplace_back(planOp, std::move(*plan));
  }
  if (emitKind == EmitKind::Sched)
    return printModule(*module);

  if (encoded.empty())
    return module->emitError("input holds no sched.plan to emit");
  if (encoded.size() > 1)
    return encoded[1].first.emitError(
        "input holds more than one sched.plan; a plan file holds one");
  auto &[planOp, plan] = encoded.front();
  if (report) {
    printPlanReport(planOp, plan.get(), llvm::errs());
    if (pristine)
      reportOtherCandidates(context, *pristine, candidates, planOp.getAlgorithm());
  }
  size_t length = 0;
  const uint8_t *bytes = collrt_plan_bytes(plan.get(), &length);
  return writePlan(ArrayRef<uint8_t>(bytes, length));
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  // the few MLIR options a collc user needs to look inside the pipeline
  llvm::StringMap<cl::Option *> &options = cl::getRegisteredOptions();
  for (StringRef name : {"mlir-print-ir-after-all", "mlir-print-ir-before-all",
                         "mlir-timing", "mlir-pass-statistics"})
    if (cl::Option *opt = options.lookup(name))
      opt->addCategory(irCategory);
  cl::HideUnrelatedOptions({&outputCategory, &checkCategory, &irCategory});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "collc " << COLLC_VERSION_MAJOR << "." << COLLC_VERSION_MINOR
       << " (plan format " << COLLRT_PLAN_FORMAT_VERSION << ", LLVM/MLIR "
       << LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "collc: a compiler for collective communication\n\n"
      "  collc SPEC.yaml [-o PLAN]                compile a spec to a plan\n"
      "  collc SPEC.yaml --emit=c|obj --symbol S  the plan to embed in a program\n"
      "  collc SPEC.yaml --emit=coll|sched        the IR after selection / the schedule\n"
      "  collc PLAN.collplan --emit=sched         a plan turned back into IR\n");

  if (listAlgorithms) {
    printAlgorithmTable(llvm::outs());
    return 0;
  }
  if (inputFilename.empty()) {
    llvm::errs() << "collc: error: no input: give a spec, IR or plan file (see --help)\n";
    return 1;
  }

  DialectRegistry registry;
  registry.insert<coll::CollDialect, sched::SchedDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the spec or IR line; the op dump adds only noise.
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInput(inputFilename, error);
  if (!buffer) {
    llvm::errs() << "collc: error: " << error << "\n";
    return 1;
  }
  // A .collplan name with the wrong contents is a damaged plan, not MLIR.
  if (isPlanFile(*buffer) || StringRef(inputFilename).ends_with(".collplan"))
    return failed(handlePlan(context, *buffer)) ? 1 : 0;

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler sourceHandler(sourceMgr, &context);
  // Selection remarks are for --explain; everything else goes through.
  ScopedDiagnosticHandler remarkFilter(&context, [](Diagnostic &diag) {
    return success(diag.getSeverity() == DiagnosticSeverity::Remark &&
                   !explain);
  });
  return failed(compile(context, sourceMgr)) ? 1 : 0;
}
