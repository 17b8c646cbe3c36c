-- Searches read the trigram indexes; catalog writes are few. With GIN's fast update on, every new
-- row waits in the index's unsorted pending list until a vacuum merges it, and each search reads
-- that whole list: after a bulk insert of 100k listings a search took about 100 ms of backend time
-- instead of 0.5-1 ms until autovacuum ran. Off: each insert merges its own trigrams at once.
ALTER INDEX "Listing_description_trgm_idx" SET (fastupdate = off);
ALTER INDEX "Listing_resource_trgm_idx" SET (fastupdate = off);
ALTER INDEX "Listing_sellerPayTo_trgm_idx" SET (fastupdate = off);
ALTER INDEX "Listing_serviceName_trgm_idx" SET (fastupdate = off);
ALTER INDEX "Listing_tags_trgm_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('"Listing_description_trgm_idx"'::regclass);
SELECT gin_clean_pending_list('"Listing_resource_trgm_idx"'::regclass);
SELECT gin_clean_pending_list('"Listing_sellerPayTo_trgm_idx"'::regclass);
SELECT gin_clean_pending_list('"Listing_serviceName_trgm_idx"'::regclass);
SELECT gin_clean_pending_list('"Listing_tags_trgm_idx"'::regclass);

-- A search is planned for its text (custom plans): with the default 100-value statistics of these
-- long text columns the planner spent 0.65-0.9 ms reading them per search at 100k listings; 10 values
-- plan it in 0.26-0.30 ms with the same plans (bitmap scans of the trigram indexes).
ALTER TABLE "Listing" ALTER COLUMN "description" SET STATISTICS 10;
ALTER TABLE "Listing" ALTER COLUMN "resource" SET STATISTICS 10;
ALTER TABLE "Listing" ALTER COLUMN "sellerPayTo" SET STATISTICS 10;
ALTER TABLE "Listing" ALTER COLUMN "serviceName" SET STATISTICS 10;
ALTER TABLE "Listing" ALTER COLUMN "tags" SET STATISTICS 10;
ANALYZE "Listing";
