-- Key and token previews end in three dots, as API Umbrella shows them
-- ("abc123..."), instead of one ellipsis character. Only previews made from
-- the key's own first six characters change; an imported preview of another
-- form stays as it was. Analytics entries keep the preview they were logged
-- with: rewriting every row of a large log would hold start-up for minutes.
UPDATE api_users SET api_key_preview = substr(api_key_prefix, 1, 6) || '...'
  WHERE api_key_preview = substr(api_key_prefix, 1, 6) || '…';
UPDATE admins SET auth_token_preview = substr(auth_token_prefix, 1, 6) || '...'
  WHERE auth_token_preview = substr(auth_token_prefix, 1, 6) || '…';
