"""Autotune configs: the winners saved on a GPU machine, and one row of facts per config."""
