from triton_kernels import rotary_embedding
rotary_embedding.run()
