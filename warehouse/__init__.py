"""The only code of affidavit that touches disk and DuckDB."""
