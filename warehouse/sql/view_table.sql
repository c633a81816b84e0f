create or replace view {name} as
select * from read_parquet({glob}, union_by_name = true)
