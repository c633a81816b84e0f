"""Table contracts of affidavit: pyarrow schemas, enums, frozen records and configs. No IO."""
