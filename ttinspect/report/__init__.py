"""A compiled kernel reduced to facts: the Report model (model.py), its collection from a build
(collect.py, through the target's backend), and its stored copy (store.py)."""
