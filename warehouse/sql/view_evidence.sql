-- one row per admitted judgment with a stance (NEUTRAL is not evidence), with its document
-- and origin; judgments of runs that did not complete (still running, failed, or abandoned by a
-- process that died) are left out
create or replace view evidence as
with closed_out as (
    select run_id from runs where status in ('running', 'failed', 'abandoned')
),
admitted as (
    select * from judgments
    where is_admitted and stance <> 'NEUTRAL' and run_id not in (select run_id from closed_out)
),
final as (
    select
        a.run_id, a.claim_id, a.doc_id, a.judge, a.side, a.stance, a.relevance, a.quote,
        a.anchor, a.span_start, a.span_end,
        d.url, d.host, d.title, d.published_at,
        o.origin_doc_id, o.lineage_id
    from admitted as a
    left join documents as d on d.doc_id = a.doc_id
    left join origins as o on o.doc_id = a.doc_id
)
select * from final
