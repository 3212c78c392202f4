//===- Coll.td - the coll dialect, umbrella ------------------*- tablegen -*-===//
//
// The high-level dialect: a machine topology and one op per collective, as
// the user asked for it. Algorithm selection records its choice here.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COLL_TD
#define COLLC_COLL_TD

include "collc/Dialect/Coll/CollDialect.td"
include "collc/Dialect/Coll/CollAttrs.td"
include "collc/Dialect/Coll/CollOps.td"

#endif // COLLC_COLL_TD
