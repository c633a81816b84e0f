-- feed_status: one row per polled feed URL, with its polling state in words.
-- state: ok (last poll succeeded) | failing (failed, polled again at the next run)
--        | backed_off (failed repeatedly or asked to wait: not polled before next_poll_at)
create or replace view feed_status as
select
    feed_url,
    title,
    case
        when consecutive_failures = 0 then 'ok'
        when next_poll_at > last_polled_at then 'backed_off'
        else 'failing'
    end as state,
    consecutive_failures,
    next_poll_at,
    last_polled_at,
    last_success_at,
    last_status,
    last_reason,
    last_error,
    n_polls,
    n_not_modified,
    n_entries_seen,
    n_documents_added,
    etag,
    last_modified
from feeds
