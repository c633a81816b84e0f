"""affidavit: a batch fact-checking pipeline.

The code lives in the repository's root folders and installs as subpackages of this one:
``affidavit.schemas`` (table contracts), ``affidavit.warehouse`` (disk and DuckDB),
``affidavit.tasks`` (one module per stage) and ``affidavit.flows`` (flows and the CLI).
"""

__version__ = "0.1.0"
