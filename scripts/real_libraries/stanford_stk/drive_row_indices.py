import stk
topo = stk.random.mask(8192, 4096, 0.5, blocking=128).to("cuda")
stk.ops.row_indices(topo.size(), topo.data, topo.offsets, topo.column_indices)
