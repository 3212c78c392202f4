// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-lower-direct --coll-lower-dim-rings --coll-lower-vmesh
// A lowering reads its parameters from the op and decides none itself:
// without coll-select-algorithm (which records them, lib/Algorithms), it
// names the first parameter that is missing and fails.

// expected-error @+2 {{the direct lowering reads its parameters from the op, and order is not decided: run coll-select-algorithm first}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @direct {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct", {fifo_depth = 4}>}

// -----

// expected-error @+2 {{the dim-rings lowering reads its parameters from the op, and fifo_depth is not decided: run coll-select-algorithm first}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @rings {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">}

// -----

// expected-error @+2 {{the vmesh lowering reads its parameters from the op, and mesh is not decided: run coll-select-algorithm first}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @vmesh {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh", {fifo_depth = 8}>}
