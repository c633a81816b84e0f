-- prior findings not past their expiry whose claim text matches every word of the query
select v.claim_id, v.claim_text, v.status, v.confidence, v.supporting_origins,
       v.refuting_origins, v.best_quote, v.best_url, v.decided_at, v.expires_at, v.run_id
from verdicts_latest as v
where (v.expires_at is null or v.expires_at > $now)
  and list_bool_and(list_transform($words, lambda w: contains(lower(v.claim_text), w)))
order by v.decided_at desc
limit $limit
