//===- SpecParser.cpp - spec.yaml (format v1) to collc::Spec --------------===//
//
// Walks the llvm::yaml node tree (not YAML I/O traits) so that every
// diagnostic can point at the exact key or value that is wrong. The parser
// keeps going after an error so one run reports everything it can find.
//
//===----------------------------------------------------------------------===//
#include "lib/Spec/Spec.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/plan.h"
#include "collc/plan_format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace collc;
using namespace llvm;

namespace {

/// "a, b or c" (or "a, b and c")
std::string listOf(ArrayRef<std::string> names, StringRef last = " or ") {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? last.str() : ", ") + names[i];
  return text;
}

/// "direct and balanced": the algorithms the table says take `option`.
std::string algorithmsTaking(StringRef option) {
  std::vector<std::string> taking;
  for (const algorithms::OptionRow &row : algorithms::kOptions)
    if (row.option == option)
      taking.push_back(row.algorithm.str());
  return listOf(taking, " and ");
}

/// The names of the plan's REDUCE table (plan_format.h), in its order.
std::vector<std::string> reduceOpNames() {
  std::vector<std::string> names;
#define COLLC_X_NAME(NAME, ID, SPELLING, CLASSES) names.push_back(SPELLING);
  COLLRT_REDUCE_OPS(COLLC_X_NAME)
#undef COLLC_X_NAME
  return names;
}
std::vector<std::string> reduceTypeNames() {
  std::vector<std::string> names;
#define COLLC_X_NAME(NAME, ID, SPELLING, CTYPE, CLASS) names.push_back(SPELLING);
  COLLRT_REDUCE_TYPES(COLLC_X_NAME)
#undef COLLC_X_NAME
  return names;
}

/// A value the parser keeps with its position for checks that need other
/// keys (the algorithm is only valid or invalid once 'op' is known).
template <typename T>
struct Located {
  T value{};
  SMLoc loc;
  bool present = false;
};

class SpecParser {
public:
  SpecParser(SourceMgr &sourceMgr, SpecKind kind) : sourceMgr(sourceMgr), kind(kind) {}

  std::optional<Spec> parse(unsigned bufferId);
  bool parseNetworkFile(unsigned bufferId, NetworkParams &net);

private:
  using KeyFn = function_ref<void(StringRef key, SMLoc keyLoc, yaml::Node *)>;

  /// Only the first kMaxErrors errors (and their notes) are printed: a
  /// spec with thousands of bad entries would bury the first, which is
  /// usually the one to fix. finish() says how many more there were.
  static constexpr unsigned kMaxErrors = 20;

  void error(SMLoc loc, const Twine &msg) {
    hadError = true;
    if (++errors <= kMaxErrors)
      sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, msg);
  }
  void note(SMLoc loc, const Twine &msg) {
    if (errors <= kMaxErrors)
      sourceMgr.PrintMessage(loc, SourceMgr::DK_Note, msg);
  }

public:
  /// Reports the errors past the first kMaxErrors, as a count.
  void finish(unsigned bufferId) {
    if (errors <= kMaxErrors)
      return;
    StringRef file = sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
    errs() << file << ": error: " << errors - kMaxErrors << " more error"
           << (errors - kMaxErrors == 1 ? "" : "s") << " not shown (" << errors
           << " in all; the first " << kMaxErrors << " are above)\n";
  }

private:

  /// Visits every key of `map` (named `where` in messages) that is listed in
  /// `known`, once; reports unknown and duplicate keys. Returns where each
  /// known key was seen so the caller can check required ones.
  StringMap<SMLoc> visitKeys(yaml::MappingNode *map, const Twine &where,
                             ArrayRef<StringRef> known, KeyFn fn);

  /// Returns `value` as a mapping, or reports that `what` must be one.
  yaml::MappingNode *expectMapping(const Twine &what, SMLoc keyLoc,
                                   yaml::Node *value);
  yaml::SequenceNode *expectSequence(const Twine &what, const Twine &expected,
                                     SMLoc keyLoc, yaml::Node *value);
  /// The unquoted text of a scalar, or std::nullopt after reporting that
  /// `what` must be `expected`.
  std::optional<std::string> readScalar(const Twine &what,
                                        const Twine &expected, SMLoc keyLoc,
                                        yaml::Node *value);
  std::optional<int64_t> readInt(const Twine &what, SMLoc keyLoc,
                                 yaml::Node *value);
  std::optional<uint64_t> readUnsigned(const Twine &what, SMLoc keyLoc,
                                       yaml::Node *value);
  std::optional<double> readDouble(const Twine &what, SMLoc keyLoc,
                                   yaml::Node *value);
  std::optional<bool> readBool(const Twine &what, SMLoc keyLoc,
                               yaml::Node *value);

  void parseTopology(SMLoc keyLoc, yaml::Node *value, TopologySpec &topo);
  void parseNetwork(SMLoc keyLoc, yaml::Node *value, NetworkParams &net);
  /// Parses 'nic'; returns whether it parsed cleanly.
  bool parseNic(SMLoc keyLoc, yaml::Node *value, NicParams &nic);
  void parseCollective(SMLoc keyLoc, yaml::Node *value, CollectiveSpec &coll);
  void checkMesh(const Spec &spec);
  void checkParts(const Spec &spec);
  void parseBytes(SMLoc keyLoc, yaml::Node *value, CollectiveSpec &coll);

  SourceMgr &sourceMgr;
  SpecKind kind;
  bool hadError = false;
  unsigned errors = 0; // reported, shown or not
};

} // namespace

/// Where to point for `node`: the node itself, or the key that owns it when
/// the value is missing (a null node's position is that of the next token).
static SMLoc locOf(yaml::Node *node, SMLoc keyLoc) {
  if (!node || isa<yaml::NullNode>(node))
    return keyLoc;
  SMLoc start = node->getSourceRange().Start;
  if (!isa<yaml::SequenceNode, yaml::MappingNode>(node))
    return start;
  // A flow collection's range starts at its first entry; point at the
  // opening bracket instead, which is what the user reads as the value.
  const char *p = start.getPointer();
  const char *limit = keyLoc.isValid() ? keyLoc.getPointer() : nullptr;
  while (limit && p > limit && StringRef(" \t\r\n").contains(p[-1]))
    --p;
  if (limit && p > limit && (p[-1] == '[' || p[-1] == '{'))
    return SMLoc::getFromPointer(p - 1);
  return start;
}

/// "a sequence", "a mapping", ... for "must be X, got Y" messages.
static std::string describe(yaml::Node *node) {
  if (!node || isa<yaml::NullNode>(node))
    return "nothing";
  if (isa<yaml::SequenceNode>(node))
    return "a sequence";
  if (isa<yaml::MappingNode>(node))
    return "a mapping";
  if (auto *scalar = dyn_cast<yaml::ScalarNode>(node))
    return ("'" + scalar->getRawValue() + "'").str();
  if (auto *block = dyn_cast<yaml::BlockScalarNode>(node))
    return ("'" + block->getValue() + "'").str();
  return "an alias";
}

static std::string joinKeys(ArrayRef<StringRef> keys) {
  std::string out;
  for (auto [i, key] : llvm::enumerate(keys)) {
    if (i)
      out += ", ";
    out += key.str();
  }
  return out;
}

StringMap<SMLoc> SpecParser::visitKeys(yaml::MappingNode *map,
                                       const Twine &where,
                                       ArrayRef<StringRef> known, KeyFn fn) {
  StringMap<SMLoc> seen;
  for (yaml::KeyValueNode &kv : *map) {
    auto *keyNode = dyn_cast_or_null<yaml::ScalarNode>(kv.getKey());
    if (!keyNode) {
      if (kv.getKey())
        error(kv.getKey()->getSourceRange().Start,
              "keys in " + where + " must be plain names");
      continue;
    }
    SmallString<32> storage;
    StringRef key = keyNode->getValue(storage);
    SMLoc keyLoc = keyNode->getSourceRange().Start;
    yaml::Node *value = kv.getValue();
    if (!llvm::is_contained(known, key)) {
      error(keyLoc, "unknown key '" + key + "' in " + where + " (expected " +
                        joinKeys(known) + ")");
      continue;
    }
    auto [it, inserted] = seen.try_emplace(key, keyLoc);
    if (!inserted) {
      error(keyLoc, "duplicate key '" + key + "' in " + where);
      note(it->second, "'" + key + "' first given here");
      continue;
    }
    fn(key, keyLoc, value);
  }
  return seen;
}

yaml::MappingNode *SpecParser::expectMapping(const Twine &what, SMLoc keyLoc,
                                             yaml::Node *value) {
  if (auto *map = dyn_cast_or_null<yaml::MappingNode>(value))
    return map;
  error(locOf(value, keyLoc),
        what + " must be a mapping, got " + describe(value));
  return nullptr;
}

yaml::SequenceNode *SpecParser::expectSequence(const Twine &what,
                                               const Twine &expected,
                                               SMLoc keyLoc,
                                               yaml::Node *value) {
  if (auto *seq = dyn_cast_or_null<yaml::SequenceNode>(value))
    return seq;
  error(locOf(value, keyLoc),
        what + " must be " + expected + ", got " + describe(value));
  return nullptr;
}

std::optional<std::string> SpecParser::readScalar(const Twine &what,
                                                  const Twine &expected,
                                                  SMLoc keyLoc,
                                                  yaml::Node *value) {
  if (auto *scalar = dyn_cast_or_null<yaml::ScalarNode>(value)) {
    SmallString<32> storage;
    return scalar->getValue(storage).str();
  }
  error(locOf(value, keyLoc),
        what + " must be " + expected + ", got " + describe(value));
  return std::nullopt;
}

std::optional<int64_t> SpecParser::readInt(const Twine &what, SMLoc keyLoc,
                                           yaml::Node *value) {
  std::optional<std::string> text =
      readScalar(what, "an integer", keyLoc, value);
  if (!text)
    return std::nullopt;
  int64_t result;
  if (StringRef(*text).getAsInteger(10, result)) {
    error(locOf(value, keyLoc),
          what + " must be an integer, got '" + *text + "'");
    return std::nullopt;
  }
  return result;
}

std::optional<uint64_t> SpecParser::readUnsigned(const Twine &what,
                                                 SMLoc keyLoc,
                                                 yaml::Node *value) {
  std::optional<std::string> text =
      readScalar(what, "an unsigned 64-bit integer", keyLoc, value);
  if (!text)
    return std::nullopt;
  uint64_t result;
  if (StringRef(*text).getAsInteger(10, result)) {
    error(locOf(value, keyLoc),
          what + " must be an unsigned 64-bit integer, got '" + *text + "'");
    return std::nullopt;
  }
  return result;
}

std::optional<double> SpecParser::readDouble(const Twine &what, SMLoc keyLoc,
                                             yaml::Node *value) {
  std::optional<std::string> text = readScalar(what, "a number", keyLoc, value);
  if (!text)
    return std::nullopt;
  double result;
  if (StringRef(*text).getAsDouble(result) || !std::isfinite(result)) {
    error(locOf(value, keyLoc),
          what + " must be a number, got '" + *text + "'");
    return std::nullopt;
  }
  return result;
}

std::optional<bool> SpecParser::readBool(const Twine &what, SMLoc keyLoc,
                                         yaml::Node *value) {
  std::optional<std::string> text =
      readScalar(what, "true or false", keyLoc, value);
  if (!text)
    return std::nullopt;
  if (std::optional<bool> result = yaml::parseBool(*text))
    return result;
  error(locOf(value, keyLoc), what + " must be true or false, got '" + *text +
                                  "'");
  return std::nullopt;
}

void SpecParser::parseNetwork(SMLoc keyLoc, yaml::Node *value,
                              NetworkParams &net) {
  yaml::MappingNode *map = expectMapping("'network'", keyLoc, value);
  if (!map)
    return;
  static constexpr StringRef keys[] = {
      "alpha_us",    "beta_ns_per_byte", "copy_ns_per_byte",
      "header_bytes", "proto_bytes",     "link_mb_per_s",
      "hop_latency_us", "shm_mb_per_s",  "shm_latency_us",
      "reverse_load"};
  visitKeys(map, "'network'", keys, [&](StringRef key, SMLoc kLoc,
                                        yaml::Node *v) {
    std::string what = ("'" + key + "'").str();
    if (key == "header_bytes" || key == "proto_bytes") {
      std::optional<int64_t> bytes = readInt(what, kLoc, v);
      if (!bytes)
        return;
      if (*bytes < 0) {
        error(locOf(v, kLoc), what + " is " + Twine(*bytes) +
                                  "; a byte count cannot be negative");
        return;
      }
      (key == "header_bytes" ? net.headerBytes : net.protoBytes) = *bytes;
      return;
    }
    std::optional<double> number = readDouble(what, kLoc, v);
    if (!number)
      return;
    // Latencies may be 0 (an ideal wire); rates and costs may not.
    bool isLatency = key == "hop_latency_us" || key == "shm_latency_us";
    if (key == "reverse_load") {
      if (*number < 0 || *number > 1) {
        error(locOf(v, kLoc), what + " is " + cast<yaml::ScalarNode>(v)->getRawValue() +
                                  "; a fraction of the forward load, it must be in [0, 1]");
        return;
      }
      net.reverseLoad = *number;
      return;
    }
    if (*number < 0 || (*number == 0 && !isLatency)) {
      error(locOf(v, kLoc), what + " is " +
                                cast<yaml::ScalarNode>(v)->getRawValue() +
                                (isLatency ? "; it cannot be negative"
                                           : "; it must be greater than 0"));
      return;
    }
    if (key == "alpha_us")
      net.alphaUs = *number;
    else if (key == "beta_ns_per_byte")
      net.betaNsPerByte = *number;
    else if (key == "copy_ns_per_byte")
      net.copyNsPerByte = *number;
    else if (key == "link_mb_per_s")
      net.linkMBPerS = *number;
    else if (key == "hop_latency_us")
      net.hopLatencyUs = *number;
    else if (key == "shm_mb_per_s")
      net.shmMBPerS = *number;
    else
      net.shmLatencyUs = *number;
  });
}

bool SpecParser::parseNic(SMLoc keyLoc, yaml::Node *value, NicParams &nic) {
  yaml::MappingNode *map = expectMapping("'nic'", keyLoc, value);
  if (!map)
    return false;
  static constexpr StringRef keys[] = {"kind", "core_mb_per_s", "contexts",
                                       "congestion"};
  // Each key belongs to one kind; the kind may come after it.
  bool ok = true;
  StringMap<SMLoc> at;
  StringMap<SMLoc> seen = visitKeys(map, "'nic'", keys, [&](StringRef key, SMLoc kLoc,
                                                            yaml::Node *v) {
    at[key] = locOf(v, kLoc);
    std::string what = ("'" + key + "'").str();
    if (key == "kind") {
      std::optional<std::string> name = readScalar(what, "onload or offload", kLoc, v);
      std::optional<NicKind> kind = name ? symbolizeNicKind(*name) : std::nullopt;
      if (kind && *kind != NicKind::None)
        nic.kind = *kind;
      else if (name)
        error(locOf(v, kLoc), "unknown NIC kind '" + *name + "' (expected onload or offload)");
      ok &= nic.kind != NicKind::None;
      return;
    }
    if (key == "contexts") {
      std::optional<int64_t> n = readInt(what, kLoc, v);
      if (n && *n < 1)
        error(locOf(v, kLoc), what + " is " + Twine(*n) +
                                  "; a NIC serves at least 1 transfer at full rate");
      ok &= n && *n >= 1;
      if (n)
        nic.contexts = *n;
      return;
    }
    std::optional<double> number = readDouble(what, kLoc, v);
    // congestion may be 0 (a NIC that never slows down); a rate may not.
    bool rate = key == "core_mb_per_s";
    if (number && (*number < 0 || (*number == 0 && rate))) {
      error(locOf(v, kLoc), what + " is " + cast<yaml::ScalarNode>(v)->getRawValue() +
                                (rate ? "; it must be greater than 0"
                                      : "; it cannot be negative"));
      number.reset();
    }
    ok &= number.has_value();
    if (number)
      (rate ? nic.coreMBPerS : nic.congestion) = *number;
  });
  if (!seen.count("kind")) {
    error(keyLoc, "missing required key 'kind' in 'nic' (onload or offload)");
    return false;
  }
  if (!ok)
    return false;
  // What the other kind's keys would describe does not exist on this NIC.
  auto refuse = [&](StringRef key, StringRef kind) {
    if (!at.count(key))
      return;
    error(at[key], "'" + key + "' describes an " + kind + " NIC, but 'kind' is " +
                       stringifyNicKind(nic.kind));
    ok = false;
  };
  if (nic.kind == NicKind::Onload) {
    refuse("contexts", "offload");
    refuse("congestion", "offload");
    if (!at.count("core_mb_per_s")) {
      error(keyLoc, "an onload NIC needs 'core_mb_per_s': what one core injects "
                    "(the node's link, network.link_mb_per_s, caps the sum)");
      ok = false;
    }
  } else {
    refuse("core_mb_per_s", "onload");
  }
  return ok;
}

void SpecParser::parseTopology(SMLoc keyLoc, yaml::Node *value,
                               TopologySpec &topo) {
  yaml::MappingNode *map = expectMapping("'topology'", keyLoc, value);
  if (!map)
    return;
  static constexpr StringRef keys[] = {"shape",  "wrap",    "ranks_per_node",
                                       "fabric", "routing", "network", "nic"};
  // Cross-key checks need to know whether each part parsed cleanly.
  bool shapeOk = false, rpnOk = true;
  SMLoc shapeLoc, wrapLoc, nicLoc;
  std::optional<SmallVector<bool, 3>> wrap;
  StringMap<SMLoc> seen = visitKeys(
      map, "'topology'", keys, [&](StringRef key, SMLoc kLoc, yaml::Node *v) {
        if (key == "shape") {
          shapeLoc = locOf(v, kLoc);
          auto *seq = expectSequence("'shape'", "a sequence of 1 to 3 integers",
                                     kLoc, v);
          if (!seq)
            return;
          shapeOk = true;
          unsigned index = 0;
          for (yaml::Node &entry : *seq) {
            std::string what = "'shape' entry " + std::to_string(index++);
            std::optional<int64_t> dim = readInt(what, kLoc, &entry);
            if (!dim) {
              shapeOk = false;
              continue;
            }
            if (*dim < 1) {
              error(locOf(&entry, kLoc),
                    what + " is " + Twine(*dim) +
                        "; every dimension needs at least 1 node");
              shapeOk = false;
              continue;
            }
            topo.shape.push_back(*dim);
          }
          if (index == 0 || index > 3) {
            error(shapeLoc, "'shape' has " + Twine(index) +
                                " entries; a topology has 1 to 3 dimensions");
            shapeOk = false;
          }
          return;
        }
        if (key == "wrap") {
          wrapLoc = locOf(v, kLoc);
          auto *seq = expectSequence(
              "'wrap'", "a sequence of true/false, one per dimension", kLoc, v);
          if (!seq)
            return;
          SmallVector<bool, 3> flags;
          bool ok = true;
          unsigned index = 0;
          for (yaml::Node &entry : *seq) {
            std::optional<bool> flag =
                readBool("'wrap' entry " + Twine(index++), kLoc, &entry);
            ok &= flag.has_value();
            flags.push_back(flag.value_or(true));
          }
          if (ok)
            wrap = flags;
          return;
        }
        if (key == "ranks_per_node") {
          rpnOk = false;
          std::optional<int64_t> rpn = readInt("'ranks_per_node'", kLoc, v);
          if (!rpn)
            return;
          if (*rpn < 1) {
            error(locOf(v, kLoc), "'ranks_per_node' is " + Twine(*rpn) +
                                      "; a node needs at least 1 rank");
            return;
          }
          topo.ranksPerNode = *rpn;
          rpnOk = true;
          return;
        }
        if (key == "fabric") {
          std::optional<std::string> name =
              readScalar("'fabric'", "torus or switch", kLoc, v);
          if (!name)
            return;
          if (*name == "torus" || *name == "switch")
            topo.fabric = *name == "torus" ? Fabric::Torus : Fabric::Switch;
          else
            error(locOf(v, kLoc), "unknown fabric '" + *name +
                                      "' (expected torus or switch)");
          return;
        }
        if (key == "routing") {
          std::optional<std::string> name = readScalar(
              "'routing'", "dimension-order or adaptive", kLoc, v);
          if (!name)
            return;
          if (*name == "dimension-order" || *name == "adaptive")
            topo.routing = *name == "adaptive" ? Routing::Adaptive
                                               : Routing::DimensionOrder;
          else
            error(locOf(v, kLoc), "unknown routing '" + *name +
                                      "' (expected dimension-order or adaptive)");
          return;
        }
        if (key == "nic") {
          nicLoc = kLoc;
          if (!parseNic(kLoc, v, topo.nic))
            topo.nic = NicParams();
          return;
        }
        parseNetwork(kLoc, v, topo.network);
      });

  if (!seen.count("shape")) {
    error(keyLoc, "missing required key 'shape' in 'topology'");
    return;
  }
  if (!shapeOk)
    return;
  if (wrap && wrap->size() != topo.shape.size()) {
    error(wrapLoc, "'wrap' has " + Twine(wrap->size()) + " entries but 'shape' "
                       "has " + Twine(topo.shape.size()));
    wrap.reset();
  }
  // Default: a torus in every dimension.
  topo.wrap = wrap ? *wrap : SmallVector<bool, 3>(topo.shape.size(), true);
  if (wrap && topo.fabric == Fabric::Switch)
    error(wrapLoc, "'wrap' describes torus links, but fabric is switch");
  if (seen.count("nic") && topo.fabric != Fabric::Switch)
    error(nicLoc, "'nic' describes a node's one interface to a switch "
                  "(fabric: switch); a torus node's links are its own");

  // Ranks are C ints at run time (MPI), so P must fit in 2^31 - 1.
  if (!rpnOk)
    return;
  constexpr int64_t maxRanks = std::numeric_limits<int32_t>::max();
  int64_t ranks = topo.ranksPerNode;
  bool overflow = false;
  for (int64_t dim : topo.shape)
    overflow |= MulOverflow(ranks, dim, ranks);
  if (overflow || ranks > maxRanks) {
    std::string count = overflow ? "more than 2^63" : std::to_string(ranks);
    error(shapeLoc, "topology has " + count +
                        " ranks ('shape' times 'ranks_per_node'); at most " +
                        Twine(maxRanks) + " are supported");
  }
}

void SpecParser::parseBytes(SMLoc keyLoc, yaml::Node *value,
                            CollectiveSpec &coll) {
  auto checkNonNegative = [&](const Twine &what, yaml::Node *node,
                              std::optional<int64_t> bytes) {
    if (bytes && *bytes < 0) {
      error(locOf(node, keyLoc), what + " is " + Twine(*bytes) +
                                     "; a byte count cannot be negative");
      return std::optional<int64_t>();
    }
    return bytes;
  };
  if (auto *seq = dyn_cast_or_null<yaml::SequenceNode>(value)) {
    SmallVector<std::optional<int64_t>, 2> bounds;
    for (yaml::Node &entry : *seq) {
      StringRef what = bounds.empty() ? "'bytes' min" : "'bytes' max";
      bounds.push_back(
          checkNonNegative(what, &entry, readInt(what, keyLoc, &entry)));
    }
    if (bounds.size() != 2) {
      error(locOf(value, keyLoc), "'bytes' range has " + Twine(bounds.size()) +
                                      " entries; expected [min, max]");
      return;
    }
    if (!bounds[0] || !bounds[1])
      return;
    if (*bounds[0] > *bounds[1]) {
      error(locOf(value, keyLoc), "'bytes' range [" + Twine(*bounds[0]) +
                                      ", " + Twine(*bounds[1]) +
                                      "] has min greater than max");
      return;
    }
    coll.minBytes = bounds[0];
    coll.maxBytes = bounds[1];
    return;
  }
  if (!isa_and_nonnull<yaml::ScalarNode>(value)) {
    error(locOf(value, keyLoc),
          "'bytes' must be an integer or [min, max], got " + describe(value));
    return;
  }
  std::optional<int64_t> bytes =
      checkNonNegative("'bytes'", value, readInt("'bytes'", keyLoc, value));
  if (!bytes)
    return;
  coll.minBytes = coll.maxBytes = bytes;
}

void SpecParser::parseCollective(SMLoc keyLoc, yaml::Node *value,
                                 CollectiveSpec &coll) {
  yaml::MappingNode *map = expectMapping("'collective'", keyLoc, value);
  if (!map)
    return;
  static constexpr StringRef keys[] = {"op",    "bytes",       "algorithm",
                                       "order", "seed",        "block_bytes",
                                       "fifo_depth", "stages", "waves",
                                       "throttle", "counts", "mesh",
                                       "parts", "reduce_op", "datatype",
                                       "root"};
  Located<std::optional<CollectiveKind>> op;
  Located<std::string> algorithm, order, throttle, reduceOp, datatype;
  SMLoc seedLoc, countsLoc, meshLoc;
  StringMap<SMLoc> seen = visitKeys(
      map, "'collective'", keys, [&](StringRef key, SMLoc kLoc, yaml::Node *v) {
        std::string what = ("'" + key + "'").str();
        if (key == "op") {
          std::optional<std::string> name =
              readScalar(what, "a collective name", kLoc, v);
          if (!name)
            return;
          op.present = true;
          op.loc = locOf(v, kLoc);
          op.value = symbolizeCollectiveKind(*name);
          if (!op.value)
            error(op.loc, "unknown op '" + *name +
                              "' (expected alltoall, alltoallv, allgatherv, allreduce or bcast)");
          return;
        }
        if (key == "bytes")
          return parseBytes(kLoc, v, coll);
        if (key == "algorithm" || key == "order" || key == "throttle") {
          std::optional<std::string> name =
              readScalar(what, "a name", kLoc, v);
          if (!name)
            return;
          Located<std::string> &slot = key == "algorithm" ? algorithm
                                       : key == "order"   ? order
                                                          : throttle;
          slot = {*name, locOf(v, kLoc), true};
          return;
        }
        if (key == "reduce_op" || key == "datatype") {
          bool isOp = key == "reduce_op";
          std::optional<std::string> name = readScalar(
              what, isOp ? "a reduction operation" : "an element type", kLoc, v);
          if (!name)
            return;
          bool known = isOp ? collrt_reduce_op_from_name(name->c_str()) != 0
                            : collrt_reduce_type_from_name(name->c_str()) != 0;
          if (!known) {
            error(locOf(v, kLoc), "unknown " + key + " '" + *name + "' (expected " +
                                      listOf(isOp ? reduceOpNames() : reduceTypeNames()) +
                                      ")");
            return;
          }
          (isOp ? reduceOp : datatype) = {*name, locOf(v, kLoc), true};
          return;
        }
        if (key == "counts") {
          countsLoc = kLoc;
          std::optional<std::string> name = readScalar(what, "even or uneven", kLoc, v);
          if (!name)
            return;
          if (*name != "even" && *name != "uneven")
            error(locOf(v, kLoc), "'counts' is '" + *name + "' (expected even or uneven)");
          coll.evenCounts = *name == "even";
          return;
        }
        if (key == "mesh") {
          meshLoc = kLoc;
          auto *seq = expectSequence(what, "a list of parts, one per torus dimension", kLoc, v);
          if (!seq)
            return;
          bool ok = true;
          for (yaml::Node &entry : *seq) {
            std::optional<int64_t> parts = readInt("a 'mesh' entry", kLoc, &entry);
            if (parts && *parts < 1)
              error(locOf(&entry, kLoc), "'mesh' entry is " + Twine(*parts) +
                                             "; a dimension is cut in at least 1 part");
            ok &= parts && *parts >= 1;
            if (ok)
              coll.meshParts.push_back(*parts);
          }
          if (!ok) // reported; the topology checks would only add noise
            coll.meshParts.clear();
          else if (coll.meshParts.empty())
            error(locOf(v, kLoc), "'mesh' is empty; give the parts of each torus dimension");
          return;
        }
        if (key == "seed") {
          seedLoc = kLoc;
          if (std::optional<uint64_t> seed = readUnsigned(what, kLoc, v))
            coll.seed = *seed;
          return;
        }
        std::optional<int64_t> number = readInt(what, kLoc, v);
        if (!number)
          return;
        // the options that count something: at least 1, and why
        struct Positive {
          StringRef key;
          std::optional<int64_t> &slot;
          const char *atLeastOne;
        } positives[] = {
            {"block_bytes", coll.blockBytes, "a block needs at least 1 byte"},
            {"waves", coll.waves, "the exchange needs at least 1 wave"},
            {"parts", coll.dimRingsParts, "a block is cut in at least 1 part"},
            {"stages", coll.stages, "an intermediate needs at least 1 stage slot"},
        };
        for (Positive &option : positives) {
          if (key != option.key)
            continue;
          if (*number < 1)
            error(locOf(v, kLoc),
                  "'" + key + "' is " + Twine(*number) + "; " + option.atLeastOne);
          else
            option.slot = *number;
          return;
        }
        if (key == "root") {
          // a plan records no root: the runtime's simulator proves and its
          // bind serves a broadcast from rank 0
          if (*number != 0)
            error(locOf(v, kLoc), "'root' is " + Twine(*number) +
                                      "; a bcast plan broadcasts from rank 0 (the plan "
                                      "format records no root yet)");
          coll.root = *number;
          return;
        }
        if (*number < 1 || *number > 65535)
          error(locOf(v, kLoc), "'fifo_depth' is " + Twine(*number) +
                                    "; it must be between 1 and 65535");
        else
          coll.fifoDepth = *number;
      });

  if (!seen.count("op"))
    error(keyLoc, "missing required key 'op' in 'collective'");

  // Option compatibility needs the op and the algorithm; an invalid op has
  // already been reported, so only check against a known one.
  bool opKnown = op.present && op.value;
  StringRef opName = opKnown ? stringifyCollectiveKind(*op.value) : "";
  if (algorithm.present) {
    // the op's column of the table; an unknown op accepts any algorithm
    int column = opKnown ? algorithmColumn(*op.value) : -1;
    bool valid = algorithm.value == "auto";
    std::vector<std::string> expected{"auto"};
    for (const algorithms::AlgorithmRow &row : algorithms::kAlgorithms) {
      bool lowersOp = column < 0 || row.lowers[column];
      valid |= lowersOp && row.name == algorithm.value;
      if (lowersOp)
        expected.push_back(row.name.str());
    }
    if (!valid)
      error(algorithm.loc, "unknown algorithm '" + algorithm.value + "'" +
                               (opKnown ? " for " + opName : Twine()) +
                               " (expected " + listOf(expected) + ")");
    else
      coll.algorithm = algorithm.value;
  }
  // A named option (order, throttle): one of the table's names, for an
  // algorithm that takes it; true if it is valid.
  auto checkNamed = [&](const Located<std::string> &value, StringRef option,
                        algorithms::OptionKind kind) {
    if (!value.present)
      return false;
    ArrayRef<StringLiteral> names = algorithms::namesOf(kind);
    if (!is_contained(names, value.value)) {
      std::vector<std::string> expected(names.begin(), names.end());
      error(value.loc, "unknown " + option + " '" + value.value + "' (expected " +
                           listOf(expected) + ")");
      return false;
    }
    if (!algorithms::takesOption(coll.algorithm, option)) {
      error(seen.lookup(option), "'" + option + "' applies only to the " +
                                     algorithmsTaking(option) +
                                     " algorithms, but algorithm is " + coll.algorithm);
      return false;
    }
    return true;
  };
  if (checkNamed(order, "order", algorithms::OptionKind::Order))
    coll.order = order.value;
  if (checkNamed(throttle, "throttle", algorithms::OptionKind::Throttle)) {
    if (throttle.value == "bisection" && seen.count("fifo_depth"))
      error(seen.lookup("fifo_depth"),
            "'fifo_depth' and 'throttle: bisection' both set the FIFO depth; keep one");
    else
      coll.throttle = throttle.value;
  }
  std::string effectiveOrder =
      order.present ? order.value : algorithms::defaultOrder(coll.algorithm).str();
  if (seen.count("seed") && effectiveOrder != "random")
    error(seedLoc, "'seed' applies only to 'order: random', but order is " +
                       (order.present ? order.value : "shift (the default)"));
  if (seen.count("counts") && opKnown && *op.value != CollectiveKind::Alltoallv)
    error(countsLoc, "'counts' applies only to alltoallv (its blocks' sizes), but op is " +
                         opName);
  // the reduction's keys belong to allreduce, the root to bcast
  for (StringRef key : {"reduce_op", "datatype"})
    if (seen.count(key) && opKnown && *op.value != CollectiveKind::Allreduce)
      error(seen.lookup(key), "'" + key + "' applies only to allreduce, but op is " + opName);
  if (seen.count("root") && opKnown && *op.value != CollectiveKind::Bcast)
    error(seen.lookup("root"), "'root' applies only to bcast, but op is " + opName);
  if (reduceOp.present)
    coll.reduceOp = reduceOp.value;
  if (datatype.present)
    coll.datatype = datatype.value;
  if (reduceOp.present || datatype.present) {
    // the pair must be one the plan's kernels define (band on double is not)
    char why[200];
    if (!collrt_reduce_valid(collrt_reduce_op_from_name(coll.reduceOp.c_str()),
                             collrt_reduce_type_from_name(coll.datatype.c_str()), why,
                             sizeof why))
      error(reduceOp.present ? reduceOp.loc : datatype.loc,
            "'reduce_op': " + Twine(why) +
                (datatype.present ? "" : " (double is the default 'datatype')"));
  }
  if (opKnown && *op.value == CollectiveKind::Allreduce && coll.maxBytes) {
    size_t element = collrt_reduce_type_size(collrt_reduce_type_from_name(coll.datatype.c_str()));
    if (element && (*coll.maxBytes % element || *coll.minBytes % element))
      error(seen.lookup("bytes"), "'bytes' is not a whole number of " + coll.datatype +
                                      " elements (" + Twine(element) + " bytes each)");
  }
  if (seen.count("block_bytes")) {
    if (opKnown && *op.value != CollectiveKind::Allgatherv)
      error(seen.lookup("block_bytes"), "'block_bytes' applies only to the blocked-ring "
                      "algorithm of allgatherv, but op is " +
                          opName);
    else if (!algorithms::takesOption(coll.algorithm, "block_bytes"))
      error(seen.lookup("block_bytes"), "'block_bytes' applies only to the blocked-ring "
                      "algorithms, but algorithm is " + coll.algorithm);
  }
  // one algorithm's shape options; with auto, the shape that algorithm is
  // priced and built with if chosen
  for (llvm::StringRef option : {"mesh", "parts"})
    if (seen.count(option) && !algorithms::takesOption(coll.algorithm, option))
      error(seen.lookup(option), "'" + option.str() + "' applies only to the " +
                                     algorithmsTaking(option) + " algorithm, but algorithm is " +
                                     coll.algorithm);
  coll.meshLoc = meshLoc;
  coll.partsLoc = seen.lookup("parts");
  if (opKnown) {
    coll.kind = *op.value;
    coll.opLoc = op.loc;
  }
}

/// A vmesh mesh needs the topology: one entry per dimension, each dividing
/// its extent.
void SpecParser::checkMesh(const Spec &spec) {
  const std::vector<int64_t> &parts = spec.collective.meshParts;
  llvm::ArrayRef<int64_t> shape = spec.topology.shape;
  if (parts.empty() || shape.empty())
    return;
  SMLoc loc = spec.collective.meshLoc;
  if (parts.size() != shape.size()) {
    error(loc, "'mesh' has " + Twine(parts.size()) + " entries, but the topology has " +
                   Twine(shape.size()) + " dimensions; give the parts of each");
    return;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] % parts[d])
      error(loc, "'mesh' cuts dimension " + Twine(d) + " (extent " + Twine(shape[d]) +
                     ") in " + Twine(parts[d]) + " parts, which do not divide it");
}

/// dim-rings cuts a block into at most one part per dimension longer than 1.
void SpecParser::checkParts(const Spec &spec) {
  std::optional<int64_t> parts = spec.collective.dimRingsParts;
  int64_t most = algorithms::dimRingsMaxParts(spec.topology.shape);
  if (parts && !spec.topology.shape.empty() && *parts > most)
    error(spec.collective.partsLoc,
          "'parts' is " + Twine(*parts) + ", but dim-rings cuts a block into at most " +
              Twine(most) + " on this topology (one per dimension longer than 1)");
}

std::optional<Spec> SpecParser::parse(unsigned bufferId) {
  MemoryBufferRef buffer =
      sourceMgr.getMemoryBuffer(bufferId)->getMemBufferRef();
  SMLoc bufferStart = SMLoc::getFromPointer(buffer.getBufferStart());

  // Syntax first, on a stream of its own: the YAML parser reports through the
  // same SourceMgr, and semantic checks on a half-parsed tree would only add
  // noise after a syntax error.
  {
    yaml::Stream syntax(buffer, sourceMgr);
    for (yaml::Document &doc : syntax)
      doc.skip();
    if (syntax.failed())
      return std::nullopt;
  }

  yaml::Stream stream(buffer, sourceMgr);
  auto docIt = stream.begin();
  yaml::Node *root = docIt == stream.end() ? nullptr : docIt->getRoot();
  if (!root || isa<yaml::NullNode>(root)) {
    error(bufferStart, "spec is empty; expected sections topology and "
                       "collective");
    return std::nullopt;
  }
  auto *map = dyn_cast<yaml::MappingNode>(root);
  if (!map) {
    error(root->getSourceRange().Start,
          "spec must be a mapping with sections topology and collective, got " +
              describe(root));
    return std::nullopt;
  }

  Spec spec;
  static constexpr StringRef sections[] = {"topology", "collective"};
  StringMap<SMLoc> seen = visitKeys(
      map, "the spec", sections, [&](StringRef key, SMLoc kLoc, yaml::Node *v) {
        if (key == "topology")
          parseTopology(kLoc, v, spec.topology);
        else
          parseCollective(kLoc, v, spec.collective);
      });
  if (kind == SpecKind::Machine && seen.count("collective"))
    error(seen.lookup("collective"),
          "a plan set is made for a machine: its spec has a topology and no "
          "'collective' section (the plan set holds every collective)");
  for (StringRef section : sections)
    if (!seen.count(section) && (kind == SpecKind::Collective || section == "topology"))
      error(map->getSourceRange().Start,
            "missing required section '" + section + "'");
  checkMesh(spec);
  checkParts(spec);

  if (++docIt != stream.end() && docIt->getRoot())
    error(docIt->getRoot()->getSourceRange().Start,
          "a spec holds one yaml document; remove this second one");

  if (hadError)
    return std::nullopt;
  return spec;
}

std::optional<Spec> collc::parseSpec(SourceMgr &sourceMgr, unsigned bufferId, SpecKind kind) {
  SpecParser parser(sourceMgr, kind);
  std::optional<Spec> spec = parser.parse(bufferId);
  parser.finish(bufferId);
  return spec;
}

bool SpecParser::parseNetworkFile(unsigned bufferId, NetworkParams &net) {
  MemoryBufferRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getMemBufferRef();
  {
    yaml::Stream syntax(buffer, sourceMgr);
    for (yaml::Document &doc : syntax)
      doc.skip();
    if (syntax.failed())
      return false;
  }
  yaml::Stream stream(buffer, sourceMgr);
  auto docIt = stream.begin();
  yaml::Node *root = docIt == stream.end() ? nullptr : docIt->getRoot();
  auto *map = dyn_cast_or_null<yaml::MappingNode>(root);
  if (!map) {
    error(root ? root->getSourceRange().Start : SMLoc::getFromPointer(buffer.getBufferStart()),
          "a network file is a mapping with one section, 'network' (as collc-run "
          "--calibrate prints it)");
    return false;
  }
  static constexpr StringRef sections[] = {"network"};
  StringMap<SMLoc> seen = visitKeys(map, "the network file", sections,
                                    [&](StringRef, SMLoc kLoc, yaml::Node *v) {
                                      parseNetwork(kLoc, v, net);
                                    });
  if (!seen.count("network"))
    error(map->getSourceRange().Start, "missing required section 'network'");
  return !hadError;
}

bool collc::parseNetworkFile(SourceMgr &sourceMgr, unsigned bufferId, NetworkParams &net) {
  SpecParser parser(sourceMgr, SpecKind::Machine);
  bool ok = parser.parseNetworkFile(bufferId, net);
  parser.finish(bufferId);
  return ok;
}
