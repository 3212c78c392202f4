//===- SchedAttrs.td - sched attributes and enums -------------*- tablegen -*-===//
#ifndef COLLC_SCHED_ATTRS_TD
#define COLLC_SCHED_ATTRS_TD

include "collc/Dialect/Sched/SchedDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// Values match collrt_buffer_t.
def Sched_Buffer : I32EnumAttr<"Buffer", "a buffer a transfer reads or writes", [
  I32EnumAttrCase<"sendbuf", 0>,
  I32EnumAttrCase<"recvbuf", 1>,
  I32EnumAttrCase<"scratch", 2>,
  I32EnumAttrCase<"arena", 3>
]> {
  let cppNamespace = "::collc::sched";
}

// Values are the plan's expression opcodes (collrt_expr_op_t).
def Sched_CountArray : I32EnumAttr<"CountArray", "a run-time count array", [
  I32EnumAttrCase<"sendcount", 0x10>,
  I32EnumAttrCase<"senddispl", 0x11>,
  I32EnumAttrCase<"recvcount", 0x12>,
  I32EnumAttrCase<"recvdispl", 0x13>
]> {
  let cppNamespace = "::collc::sched";
}

def Sched_CountStat : I32EnumAttr<"CountStat", "a reduction over receive counts", [
  I32EnumAttrCase<"sum", 0x14>,
  I32EnumAttrCase<"minpos", 0x15>,
  I32EnumAttrCase<"zeros", 0x16>
]> {
  let cppNamespace = "::collc::sched";
}

// A reserved FIFO: sends and receives in flight (recv_depth 0 = unbounded).
// (F1) 1 <= send_depth <= 65535, (F2) 0 <= recv_depth <= 65535
def Sched_FifoAttr : AttrDef<Sched_Dialect, "Fifo"> {
  let mnemonic = "fifo";
  let parameters = (ins "int64_t":$send_depth, "int64_t":$recv_depth);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // COLLC_SCHED_ATTRS_TD
