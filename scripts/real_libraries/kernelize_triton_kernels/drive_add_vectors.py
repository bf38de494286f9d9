from triton_kernels import add_vectors, add_vectors2
add_vectors.run()
add_vectors2.run()
