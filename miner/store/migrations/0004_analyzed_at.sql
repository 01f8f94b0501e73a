-- One spelling throughout: the commands say "analyze".
ALTER TABLE audits RENAME COLUMN analysed_at TO analyzed_at;
