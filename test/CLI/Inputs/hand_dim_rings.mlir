// decided-parameters.test: hand_dim_rings.yaml written as IR by hand, with
// the parameters selection would decide (fifo_depth, parts) given.
coll.alltoall @hand_dim_rings {
  algorithm = #coll.algorithm<"dim-rings", {parts = 2, fifo_depth = 16}>,
  min_bytes = 4096 : i64,
  topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1,
                            alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>
}
