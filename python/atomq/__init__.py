"""atomq: the queueing model of the GPU atomic units, from Python (host-only).

Tables, profiles, the model's analysis and what-ifs, and run documents as plain records:
docs/usage.md, "Python". `python -m atomq` runs atomq's command line."""
from ._atomq import *  # noqa: F401,F403 (the module's functions and types)
from ._atomq import __version__  # noqa: F401
