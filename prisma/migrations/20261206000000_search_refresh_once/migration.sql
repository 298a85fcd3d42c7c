-- search_refresh_parents computed each parent's document twice: the subquery that computes it is
-- pulled up into the UPDATE, and its expression then stands both in the SET and in the WHERE
-- that skips unchanged documents (pg_stat_user_functions: order_search_document called three
-- times per order created, once by the order's own trigger and twice by its lines' refresh).
-- A MATERIALIZED CTE computes it once. Same rows, same documents, same triggers.
CREATE OR REPLACE FUNCTION "search_refresh_parents"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parents text[];
BEGIN
  EXECUTE format('SELECT array_agg(DISTINCT %I) FROM changed_rows', TG_ARGV[1]) INTO parents;
  IF parents IS NULL THEN RETURN NULL; END IF;
  CASE TG_ARGV[0]
    WHEN 'Order' THEN
      WITH d AS MATERIALIZED (SELECT x.id, order_search_document(x) AS doc FROM "Order" x WHERE x.id = ANY (parents))
      UPDATE "Order" o SET "searchText" = d.doc FROM d WHERE o.id = d.id AND o."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Return' THEN
      WITH d AS MATERIALIZED (SELECT x.id, return_search_document(x) AS doc FROM "Return" x WHERE x.id = ANY (parents))
      UPDATE "Return" r SET "searchText" = d.doc FROM d WHERE r.id = d.id AND r."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Customer' THEN
      WITH d AS MATERIALIZED (SELECT x.id, customer_search_document(x) AS doc FROM "Customer" x WHERE x.id = ANY (parents))
      UPDATE "Customer" c SET "searchText" = d.doc FROM d WHERE c.id = d.id AND c."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Product' THEN
      WITH d AS MATERIALIZED (SELECT x.id, product_search_document(x) AS doc FROM "Product" x WHERE x.id = ANY (parents))
      UPDATE "Product" p SET "searchText" = d.doc FROM d WHERE p.id = d.id AND p."searchText" IS DISTINCT FROM d.doc;
  END CASE;
  RETURN NULL;
END
$$;
