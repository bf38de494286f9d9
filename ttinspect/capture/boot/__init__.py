"""The bootstrap folder `ttinspect capture` puts first on a program's PYTHONPATH (its sitecustomize.py)."""
