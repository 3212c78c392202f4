// coll-lower applies every algorithm's lowering pattern with the coll
// dialect illegal: each collective becomes its algorithm's plan, in place,
// and one nothing lowers fails the conversion with the reason.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower --sched-verify=max-ranks=8 | FileCheck %s

// CHECK-NOT: {{^ *coll\.}}
// CHECK-LABEL: sched.plan @rings
// CHECK-SAME: algorithm = "dim-rings", {{.*}}collective = "alltoall"
// CHECK-LABEL: sched.plan @mesh
// CHECK-SAME: algorithm = "vmesh", {{.*}}collective = "alltoallv"
// CHECK-LABEL: sched.plan @ring
// CHECK-SAME: algorithm = "blocked-ring", {{.*}}collective = "allgatherv"
// CHECK-LABEL: sched.plan @cores
// CHECK-SAME: algorithm = "smp-all-cores", {{.*}}collective = "alltoall"
// CHECK-NOT: {{^ *coll\.}}
coll.alltoall @rings {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}
coll.alltoallv @mesh {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh">}
coll.allgatherv @ring {topology = #coll.topology<shape = [8], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring">}
coll.alltoall @cores {topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 4, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-all-cores">}

// -----

// A shape the algorithm's lowering refuses: its reason, then the
// conversion's failure for the op left over.
// expected-error @+2 {{the two-phase alltoall needs a line and a plane}}
// expected-error @+1 {{failed to legalize operation 'coll.alltoall' that was explicitly marked illegal}}
coll.alltoall @line {topology = #coll.topology<shape = [8], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">}
