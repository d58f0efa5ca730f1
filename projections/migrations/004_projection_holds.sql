-- A rebuild holds the live projector off while it catches up and swaps (see projections/rebuild.ts): until
-- `held_until`, a projector leaves its batch for later instead of applying it. A rebuild that dies lets it lapse.
ALTER TABLE projection_checkpoints ADD COLUMN held_until timestamptz;
