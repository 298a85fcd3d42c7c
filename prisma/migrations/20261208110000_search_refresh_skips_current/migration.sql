-- The lines' refresh of their orders' documents runs its UPDATE only when a document changed
-- (issue 46). Since an order goes in with its document complete (order_search_document_at_insert),
-- the refresh that follows its lines' insert finds it current and its UPDATE changed no row; but
-- an UPDATE statement fires the statement triggers of its table whatever it changes: on Order
-- the overview's (Order_overview_update) and the returns' documents' (Order_search_returns), two
-- calls per order created for nothing. The documents are computed first, and only those that differ
-- are written. The same for returns' items, customers' custom fields and products' option values.
CREATE OR REPLACE FUNCTION "search_refresh_parents"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parents text[];
  stale text[];
  documents text[];
BEGIN
  CASE TG_ARGV[0]
    WHEN 'Order' THEN
      parents := ARRAY(SELECT DISTINCT c."orderId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      SELECT array_agg(d.id), array_agg(d.doc) INTO stale, documents
        FROM (SELECT x.id, x."searchText", order_search_document(x) AS doc FROM "Order" x WHERE x.id = ANY (parents)) d
       WHERE d."searchText" IS DISTINCT FROM d.doc;
      IF stale IS NULL THEN RETURN NULL; END IF;
      UPDATE "Order" o SET "searchText" = d.doc FROM unnest(stale, documents) AS d(id, doc) WHERE o.id = d.id;
    WHEN 'Return' THEN
      parents := ARRAY(SELECT DISTINCT c."returnId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      SELECT array_agg(d.id), array_agg(d.doc) INTO stale, documents
        FROM (SELECT x.id, x."searchText", return_search_document(x) AS doc FROM "Return" x WHERE x.id = ANY (parents)) d
       WHERE d."searchText" IS DISTINCT FROM d.doc;
      IF stale IS NULL THEN RETURN NULL; END IF;
      UPDATE "Return" r SET "searchText" = d.doc FROM unnest(stale, documents) AS d(id, doc) WHERE r.id = d.id;
    WHEN 'Customer' THEN
      parents := ARRAY(SELECT DISTINCT c."customerId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      SELECT array_agg(d.id), array_agg(d.doc) INTO stale, documents
        FROM (SELECT x.id, x."searchText", customer_search_document(x) AS doc FROM "Customer" x WHERE x.id = ANY (parents)) d
       WHERE d."searchText" IS DISTINCT FROM d.doc;
      IF stale IS NULL THEN RETURN NULL; END IF;
      UPDATE "Customer" c SET "searchText" = d.doc FROM unnest(stale, documents) AS d(id, doc) WHERE c.id = d.id;
    WHEN 'Product' THEN
      parents := ARRAY(SELECT DISTINCT c."productId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      SELECT array_agg(d.id), array_agg(d.doc) INTO stale, documents
        FROM (SELECT x.id, x."searchText", product_search_document(x) AS doc FROM "Product" x WHERE x.id = ANY (parents)) d
       WHERE d."searchText" IS DISTINCT FROM d.doc;
      IF stale IS NULL THEN RETURN NULL; END IF;
      UPDATE "Product" p SET "searchText" = d.doc FROM unnest(stale, documents) AS d(id, doc) WHERE p.id = d.id;
  END CASE;
  RETURN NULL;
END
$$;
