-- The return rate sums units per SKU alone and looks up titles for its top ten only
-- (src/domain/overview.ts): grouping every SKU sold in a period together with its titles was
-- most of the overview at a million orders (some 50,000 SKUs a period).
--
-- Its pass over the SKU figures reads SKU and units only: the covering index of migration
-- overview_sku_rows_covered also carried each row's title and line count, which that pass no
-- longer reads, so it is narrowed to what it does.
DROP INDEX "ReturnsOverviewRollup_sku_figures_idx";
CREATE INDEX "ReturnsOverviewRollup_sku_units_idx" ON "ReturnsOverviewRollup" ("storeId", "figure", "day") INCLUDE ("key", "units")
  WHERE "figure" IN ('ordered', 'returned', 'ordered_month', 'returned_month');

-- The titles of the ten: the ordered day rows of a SKU in the period, found by SKU (a handful of
-- rows each) instead of among every SKU's rows of the period.
CREATE INDEX "ReturnsOverviewRollup_sku_titles_idx" ON "ReturnsOverviewRollup" ("storeId", "key", "day") INCLUDE ("detail", "returns")
  WHERE "figure" = 'ordered';

-- Returns needing action count the 'status' rows of every day of the store (a few thousand at a
-- million returns), which the unique index found but left to be read from the table, a heap page
-- each (that statement took 52-72 ms of every overview at a million returns, 34-45 ms of it in
-- that scan); this index answers them alone.
CREATE INDEX "ReturnsOverviewRollup_status_idx" ON "ReturnsOverviewRollup" ("storeId", "key", "day") INCLUDE ("returns")
  WHERE "figure" = 'status';
