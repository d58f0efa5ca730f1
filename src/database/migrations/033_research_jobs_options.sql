-- A research task's source and length options (POST /research include_domains, exclude_domains, output_length),
-- kept with the job so that whichever node runs it, or runs it again after a node died, honours them. Tasks recorded
-- before this migration had none of them: every site, and the medium length they were written at.
ALTER TABLE research_jobs
  ADD COLUMN include_domains jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN exclude_domains jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN output_length text NOT NULL DEFAULT 'medium' CHECK (output_length IN ('short', 'medium', 'long'));
