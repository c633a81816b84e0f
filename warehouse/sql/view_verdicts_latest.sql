-- one row per claim: its verdict from the most recent run that decided it
create or replace view verdicts_latest as
with ranked as (
    select
        v.*,
        row_number() over (partition by v.claim_id order by v.decided_at desc, v.run_id desc) as rn
    from verdicts as v
)
select * exclude (rn) from ranked where rn = 1
