from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn  # noqa: F401
