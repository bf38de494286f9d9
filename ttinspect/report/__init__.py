"""A compiled kernel reduced to facts: the Report model, its collection from a build, and its stored copy."""
