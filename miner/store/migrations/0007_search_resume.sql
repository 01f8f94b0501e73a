-- Where the reading of a slice's query stands, stored with each page, so a crawl killed in the
-- middle of a slice goes on from the page after the last one stored instead of from page 1.
-- read_query, read_order: the q whose pages are stored and their order by stars (asc: fewest
-- first); read_pass: 1, or 2 when a slice short of its total is asked again; read_pages: the
-- last page stored; read_more: 1 when a page follows it; read_total: the total_count that page
-- reported; first_stars: the fewest stars on page 1; last_stars: the stars of the last result
-- stored (first_stars and last_stars are where an over-full slice is split).
ALTER TABLE search_slices ADD COLUMN read_query TEXT;
ALTER TABLE search_slices ADD COLUMN read_order TEXT;
ALTER TABLE search_slices ADD COLUMN read_pass INTEGER NOT NULL DEFAULT 0;
ALTER TABLE search_slices ADD COLUMN read_pages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE search_slices ADD COLUMN read_more INTEGER NOT NULL DEFAULT 0;
ALTER TABLE search_slices ADD COLUMN read_total INTEGER;
ALTER TABLE search_slices ADD COLUMN first_stars INTEGER;
ALTER TABLE search_slices ADD COLUMN last_stars INTEGER;
