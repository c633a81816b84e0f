-- fetch_outcomes: one row per (run_id, kind, reason): how many fetches ended that way.
create or replace view fetch_outcomes as
select
    run_id,
    kind,
    reason,
    count(*) as n_fetches,
    sum(body_bytes) as body_bytes,
    cast(median(elapsed_ms) as bigint) as median_elapsed_ms,
    max(elapsed_ms) as max_elapsed_ms
from fetches
group by run_id, kind, reason
