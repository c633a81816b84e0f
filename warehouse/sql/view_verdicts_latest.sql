-- one row per claim: its verdict from the most recent run that decided it; rows of runs that
-- did not complete (still running, failed, or abandoned by a process that died) are left out
create or replace view verdicts_latest as
with closed_out as (
    select run_id from runs where status in ('running', 'failed', 'abandoned')
),
ranked as (
    select
        v.*,
        row_number() over (partition by v.claim_id order by v.decided_at desc, v.run_id desc) as rn
    from verdicts as v
    where v.run_id not in (select run_id from closed_out)
)
select * exclude (rn) from ranked where rn = 1
