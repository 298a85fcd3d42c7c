-- The return rate by SKU reads some 180,000 rollup rows for 90 days at a million orders, in the
-- order of the unique index but scattered over the table (each transaction and each fold adds
-- its rows where there is room): a heap page per row. This index holds what that figure reads,
-- so those rows come from the index alone once vacuumed; the other figures read a few rows a day.
CREATE INDEX "ReturnsOverviewRollup_sku_figures_idx" ON "ReturnsOverviewRollup" ("storeId", "figure", "day") INCLUDE ("key", "detail", "returns", "units")
  WHERE "figure" IN ('ordered', 'returned', 'ordered_month', 'returned_month');
