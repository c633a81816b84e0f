select distinct {cols} from read_parquet({glob}, union_by_name = true)
