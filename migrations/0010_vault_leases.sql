-- Mallory Recall, 0010: one hub run at a time per vault.
--
-- Two hubs syncing one vault at once (a cron job and `mallory serve --sync-vault`, say)
-- could leave a note at an older version: the run with the later sequence may have read
-- the file before the other run did. A run's first heartbeat now takes the vault's lease
-- for its sequence; while another hub's lease is live, a heartbeat is refused (409
-- vault_busy, nothing stored) and that hub's next run syncs. The lease lasts
-- worker/store/vaults.py LEASE_MS from the last heartbeat or batch of its run, and the
-- run's last heartbeat gives it up, so a killed hub holds it at most that long (its own
-- next run, from the same state, takes it over at once).
--
-- lease_holder: the hub's id (its state's `hub_id`); lease_seq: the sync sequence of the
-- run holding the lease; lease_until: when it lapses (ms).
ALTER TABLE vaults ADD COLUMN lease_holder TEXT;
ALTER TABLE vaults ADD COLUMN lease_seq INTEGER;
ALTER TABLE vaults ADD COLUMN lease_until INTEGER;
